#!/usr/bin/env bats
# Issue 26: what the command can write into its tree is input, never evidence.
# After a kill -9 of isorun, `ls` and `gc` read the tree's records: the `cgroup`
# record (where the run's cgroup is) and the others.  A record the command
# rewrote is refused, said, and the scan that does not trust it (the
# environment's) runs instead; nothing blocks on a FIFO or reads without bound.

load helpers

# The caller's cgroup2 directory, as isorun finds it; empty when there is none.
own_cgroup() {
	local mnt rel
	mnt=$(awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	rel=$(sed -n 's/^0:://p' /proc/self/cgroup)
	[ -n "$mnt" ] && [ -n "$rel" ] || return 0
	[ "$rel" = / ] && rel=
	echo "$mnt$rel"
}

# Skip as an ordinary user whose cgroup is not delegated (root must have one).
need_cgroup() {
	local own
	own=$(own_cgroup)
	if [ -z "$own" ] || [ ! -w "$own" ] || [ ! -w "$own/cgroup.procs" ]; then
		[ "$(id -u)" -ne 0 ] || { echo "root cannot write $own" >&2; return 1; }
		skip "the caller's cgroup $own is not delegated to uid $(id -u)"
	fi
}

# Dead or a zombie waiting for its reaper: either way no longer running.
assert_not_running() {
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null || true)
	[ -z "$st" ] || [ "$st" = Z ] || { echo "pid $1 still runs (state $st)" >&2; return 1; }
}

# A tree that looks orphaned: its owner is gone and recorded nothing.
orphaned_tree() {
	iso --cgroup=off --keep -- true 2>/dev/null
	tree=$(the_tree)
	rm -f "$tree/outcome"
}

# ls, ls --json, gc --dry-run and gc, each bounded: a hang is a failure.
ls_and_gc() {
	run --separate-stderr timeout 30 "$ISORUN" ls --root "$R"
	[ "$status" -eq 0 ]
	ls_out=$output
	run --separate-stderr timeout 30 "$ISORUN" ls --root "$R" --json
	[ "$status" -eq 0 ]
	ls_json=$output
	run --separate-stderr timeout 30 "$ISORUN" gc --root "$R" --dry-run
	[ "$status" -eq 0 ]
	dry_out=$output
	run --separate-stderr timeout 30 "$ISORUN" gc --root "$R"
	[ "$status" -eq 0 ]
	gc_out=$output
}

refused_json() {
	python3 -c 'import json,sys; t=json.loads(sys.argv[1])[0]; assert t["cgroup"] is None and sys.argv[2] in t["cgroup_refused"] and all(p["found_by"]=="environment" for p in t["processes"]), t' "$ls_json" "$1"
}

@test "a cgroup record leading to a look-alike directory whose cgroup.procs is a FIFO: ls and gc do not block, say the record is refused, stop the run's processes by their environment, remove the tree" {
	orphaned_tree
	fake=$W/fake/isorun-$(basename "$tree")
	mkdir -p "$fake"
	mkfifo "$fake/cgroup.procs" "$fake/cgroup.events"
	echo "$fake" >"$tree/cgroup"
	# a process of the run's: found by the scan that does not trust the record
	ISORUN_NAMESPACE=$tree sleep 300 3>&- &
	p=$!
	ls_and_gc
	[[ "$ls_out" == *$'\n'"    pid $p \`sleep 300\`"* ]]
	[[ "$dry_out" == *"would kill pid $p \`sleep 300\`: its environment names $tree"* ]]
	[[ "$gc_out" == *"killed pid $p \`sleep 300\`: its environment names $tree"* ]]
	wait "$p" || true
	[[ "$ls_out" == *" orphaned "*"; its cgroup record is refused ('$fake' is not below the cgroup2 mount "*"): not measurable through a cgroup, its processes are looked for by their environment only"* ]]
	refused_json "is not below the cgroup2 mount"
	[[ "$dry_out" == *"would remove $tree"*"its cgroup record is refused"* ]]
	[[ "$gc_out" == *"removed $tree"*"its cgroup record is refused"* ]]
	assert_no_tree
}

@test "a cgroup record leading to a directory whose cgroup.procs lists pid 1 and our shell: neither is named nor signalled, gc removes the tree" {
	orphaned_tree
	fake=$W/fake/isorun-$(basename "$tree")
	mkdir -p "$fake"
	printf '1\n%s\n' "$$" >"$fake/cgroup.procs"
	printf 'populated 1\n' >"$fake/cgroup.events"
	: >"$fake/cgroup.kill"
	: >"$fake/cgroup.freeze"
	echo "$fake" >"$tree/cgroup"
	ls_and_gc
	[[ "$ls_out" != *"live: pid"* ]]
	[[ "$ls_out" == *"its cgroup record is refused"* ]]
	refused_json "is not below the cgroup2 mount"
	[[ "$dry_out" != *"would kill"* ]]
	[[ "$gc_out" != *"killed"* ]]
	[[ "$gc_out" == *"removed $tree"* ]]
	assert_no_tree
}

@test "a cgroup record naming a directory of the cgroup tree that holds our own line (this shell): refused, not believed" {
	# the test's cgroup tree (ISORUN_TEST_CGROUP_ROOT): the place is right, the processes are not the run's
	d=$W/cg
	mkdir -p "$d"
	orphaned_tree
	own=$d/isorun-$(basename "$tree")
	mkdir "$own"
	printf '%s\n' "$$" >"$own/cgroup.procs"
	printf 'populated 1\n' >"$own/cgroup.events"
	: >"$own/cgroup.kill"
	: >"$own/cgroup.freeze"
	echo "$own" >"$tree/cgroup"
	ISORUN_TEST_CGROUP_ROOT=$d ls_and_gc
	[[ "$ls_out" == *"its cgroup record is refused ('$own' holds pid $$, this isorun's own or one of its ancestors)"* ]]
	[[ "$gc_out" != *"killed"* ]]
	[[ "$gc_out" == *"removed $tree"* ]]
	[ -d "$own" ]
	# control: the same directory listing a process of the run's is believed
	orphaned_tree
	own=$d/isorun-$(basename "$tree")
	mkdir "$own"
	sleep 60 3>&- &
	pid=$!
	printf '%s\n' "$pid" >"$own/cgroup.procs"
	printf 'populated 0\n' >"$own/cgroup.events"
	: >"$own/cgroup.kill"
	: >"$own/cgroup.freeze"
	echo "$own" >"$tree/cgroup"
	ISORUN_TEST_CGROUP_ROOT=$d run --separate-stderr timeout 30 "$ISORUN" ls --root "$R"
	kill "$pid" 2>/dev/null || true
	[[ "$output" == *"live: pid $pid \`sleep 60\` (in the run's cgroup $own)"* ]]
	[[ "$output" != *"refused"* ]]
}

@test "a cgroup record naming a directory of the cgroup tree whose cgroup.events is a FIFO: refused, nothing blocks; the run's processes are found by their environment" {
	d=$W/cg
	mkdir -p "$d"
	orphaned_tree
	own=$d/isorun-$(basename "$tree")
	mkdir "$own"
	ISORUN_NAMESPACE=$tree sleep 300 3>&- &
	p=$!
	printf '%s\n' "$p" >"$own/cgroup.procs"
	mkfifo "$own/cgroup.events"
	: >"$own/cgroup.kill"
	: >"$own/cgroup.freeze"
	echo "$own" >"$tree/cgroup"
	ISORUN_TEST_CGROUP_ROOT=$d ls_and_gc
	wait "$p" || true
	[[ "$ls_out" == *"its cgroup record is refused ('$own/cgroup.events' is not a regular file)"* ]]
	[[ "$gc_out" == *"killed pid $p \`sleep 300\`: its environment names $tree"* ]]
	assert_not_running "$p"
	assert_no_tree
}

@test "the cgroup record itself a FIFO, a symbolic link, a huge or a many-line file: refused by name, nothing blocks" {
	local kind
	for kind in fifo link huge lines; do
		orphaned_tree
		case $kind in
		fifo) mkfifo "$tree/cgroup" ;;
		link) echo /sys/fs/cgroup >"$W/target" && ln -s "$W/target" "$tree/cgroup" ;;
		huge) truncate -s 1G "$tree/cgroup" ;;
		lines) printf '/sys/fs/cgroup/isorun-%s\n/x\n' "$(basename "$tree")" >"$tree/cgroup" ;;
		esac
		ls_and_gc
		case $kind in
		fifo) why="not a regular file" ;;
		link) why="a symbolic link, not isorun's file" ;;
		huge) why="1073741824 bytes, too large to be isorun's" ;;
		lines) why="more than one line" ;;
		esac
		[[ "$ls_out" == *"its cgroup record is refused ($why)"* ]] || { echo "$kind: $ls_out" >&2; return 1; }
		[[ "$gc_out" == *"removed $tree"* ]] || { echo "$kind: $gc_out" >&2; return 1; }
	done
	assert_no_tree
}

@test "the other records ls and gc read: an owner record that is a FIFO, an outcome record that is huge or a link, never block; ls says why, gc keeps a tree without an owner record" {
	local kind
	for kind in owner-fifo outcome-huge outcome-link; do
		iso --cgroup=off --keep -- true 2>/dev/null
		tree=$(the_tree)
		case $kind in
		owner-fifo) rm "$tree/owner" && mkfifo "$tree/owner" ;;
		outcome-huge) truncate -s 1G "$tree/outcome" ;;
		outcome-link) rm "$tree/outcome" && ln -s /etc/passwd "$tree/outcome" ;;
		esac
		ls_and_gc
		[[ "$ls_out" == *" unreadable "* ]] || { echo "$kind: $ls_out" >&2; return 1; }
		case $kind in
		owner-fifo) [[ "$ls_out" == *"owner record: not a regular file"* ]] ;;
		outcome-huge) [[ "$ls_out" == *"outcome record: 1073741824 bytes, too large to be isorun's"* ]] ;;
		outcome-link) [[ "$ls_out" == *"outcome record: a symbolic link, not isorun's file"* ]] ;;
		esac
		# without an owner record nothing is proven; `outcome` is display only
		case $kind in
		owner-fifo) [[ "$gc_out" == *"kept $tree"* ]] && force_remove "$tree" ;;
		*) [[ "$gc_out" == *"removed $tree"* ]] ;;
		esac || { echo "$kind: $gc_out" >&2; return 1; }
	done
	assert_no_tree
}

@test "kill -9 of isorun with a cgroup (kernel): a process that moved itself out of the run's cgroup is listed by ls and stopped by gc before the tree goes" {
	need_cgroup
	own=$(own_cgroup)
	away=$own/isorun-test-away-$$
	mkdir "$away"
	# --policy=off: an execve on its way when isorun dies would find no one to answer it
	# shellcheck disable=SC2016 # expanded by the command's shell
	"$ISORUN" --no-config --root "$R" --policy=off -- sh -c '
		sh -c "echo \$\$ >$2/cgroup.procs; exec sleep 302" 3>&- &
		sleep 300 & echo $! >"$1.in"
		while ! grep -q . "$2/cgroup.procs"; do sleep 0.1; done
		p=$(grep . "$2/cgroup.procs")
		while [ "$(cat /proc/$p/comm)" != sleep ]; do sleep 0.1; done
		echo "$p" >"$1.tmp"; mv "$1.tmp" "$1"; exec sleep 301' sh "$W/pid" "$away" 3>&- &
	owner=$!
	"$H/waitfor" -t 60 "$W/pid"
	kill -9 "$owner"
	wait "$owner" || true
	moved=$(cat "$W/pid")
	tree=$(the_tree)
	cg=$(cat "$tree/cgroup")
	run --separate-stderr timeout 60 "$ISORUN" ls --root "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == *"live: pid $(cat "$W/pid.in") \`sleep 300\` (in the run's cgroup $cg)"* ]]
	[[ "$output" == *"1 of its processes still run (found by ISORUN_NAMESPACE"* ]]
	[[ "$output" == *"    pid $moved \`sleep 302\`"* ]]
	run --separate-stderr timeout 60 "$ISORUN" ls --root "$R" --json
	python3 -c 'import json,sys; t=json.loads(sys.argv[1])[0]; b={p["pid"]: p["found_by"] for p in t["processes"]}; assert b[int(sys.argv[2])]=="environment" and sorted(b.values())==["cgroup","cgroup","environment"], t' "$output" "$moved"
	run --separate-stderr timeout 60 "$ISORUN" gc --root "$R" --dry-run
	[[ "$output" == *"would kill pid $moved \`sleep 302\`: its environment names $tree"* ]]
	# one still in the cgroup carries the environment too: named once, as the cgroup's
	[ "$(grep -c "pid $(cat "$W/pid.in") " <<<"$output")" -eq 1 ]
	[[ "$output" == *"would kill: pid $(cat "$W/pid.in") \`sleep 300\` (in the run's cgroup $cg)"* ]]
	kill -0 "$moved"
	run --separate-stderr timeout 60 "$ISORUN" gc --root "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == *"killed pid $moved \`sleep 302\`: its environment names $tree"* ]]
	[[ "$output" == *"removed $tree"*"; killed 1 of its processes (found by ISORUN_NAMESPACE"* ]]
	# the one that moved was stopped before the tree went: it is gone now
	assert_not_running "$moved"
	[ ! -e "$cg" ]
	rmdir "$away"
	assert_no_tree
}
