#!/usr/bin/env bats
# Teardown needs proof: removed only when the tree joined, the pipes closed and
# nothing holds a file in it; otherwise retained, with the exact path.

load helpers

teardown() {
	show_last_run
	# a holder started outside isorun is this test's to stop
	if [ -f "$W/holder.pid" ]; then
		kill "$(cat "$W/holder.pid")" 2>/dev/null || true
	fi
	validate_outputs
	teardown_shield_root
}

@test "a background job holding stdout inside the tree is killed, and the tree is still removed" {
	run iso --settle 0 --report "$W/r.json" -- sh -c "$H/termignore $W/pid & $H/waitfor $W/pid"
	[ "$status" -eq 122 ]
	[[ "$output" == *"leaked: pid $(cat "$W/pid")"* ]]
	grep -q '"state": "removed"' "$W/r.json"
	assert_no_tree
}

@test "a holder outside the tree keeping stdout open makes the tree be retained, path printed" {
	"$H/fdpass" hold "$W/sock" "$W/holder.pid" <&- 3>&- &
	"$H/waitfor" "$W/holder.pid"
	run --separate-stderr iso --settle 200ms -- "$H/fdpass" send "$W/sock" 1
	[ "$status" -eq 122 ]
	holder=$(cat "$W/holder.pid")
	tree=$(the_tree)
	[ -n "$tree" ]
	[[ "$stderr" == *"isorun: tree retained at $tree: pipe still open (pid $holder "*" holds stdout)"* ]]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 122): tree retained" ]
	kill "$holder"
	force_remove "$tree"
}

@test "a process outside the tree with its cwd inside makes the tree be retained" {
	run --separate-stderr iso -- sh -c "
		$H/holdcwd \"\$HOME\" $W/holder.pid <&- >/dev/null 2>&1 3>&- &
		$H/waitfor $W/holder.pid"
	# holdcwd was started by the command, so the leak gate kills it first: removed
	[ "$status" -eq 122 ]
	assert_no_tree
	rm -f "$W/holder.pid"
	# the same holder, but from outside isorun's tree: it must survive, and win
	mkfifo "$W/path"
	iso -- sh -c "echo \"\$HOME\" > $W/path; $H/waitfor $W/holder.pid" >"$W/out" 2>&1 3>&- &
	isopid=$!
	home=$(cat "$W/path")
	"$H/holdcwd" "$home" "$W/holder.pid" <&- 3>&- &
	wait "$isopid" && rc=0 || rc=$?
	[ "$rc" -eq 122 ]
	tree=$(dirname "$home")
	grep -q "tree retained at $tree: pid $(cat "$W/holder.pid") \`.*\` has its cwd in it ($home)" "$W/out"
	[ -d "$home" ]
	kill "$(cat "$W/holder.pid")"
	force_remove "$tree"
}

@test "a symlink in the tree to a directory outside is not followed" {
	mkdir "$W/outside"
	echo keep >"$W/outside/precious"
	run iso -- sh -c "ln -s $W/outside \"\$HOME/link\"; ln -s $W/outside/precious \"\$TMPDIR/file-link\""
	[ "$status" -eq 0 ]
	[ "$(cat "$W/outside/precious")" = keep ]
	assert_no_tree
}

@test "directories without write or search permission are removed" {
	run iso -- sh -c 'mkdir -p "$HOME/a/b" "$HOME/c"; touch "$HOME/a/b/f" "$HOME/c/g"; chmod 000 "$HOME/a/b" "$HOME/a"; chmod 500 "$HOME/c"'
	[ "$status" -eq 0 ]
	assert_no_tree
}

@test "a tree 5,000 directories deep (beyond PATH_MAX) is removed" {
	run iso -- python3 -c '
import os
os.chdir(os.environ["HOME"])
for i in range(5000):
    os.mkdir("deep")
    os.chdir("deep")
open("leaf", "w").write("x")'
	[ "$status" -eq 0 ]
	assert_no_tree
}

@test "a removal failure keeps going, retains the tree and names the first failing path" {
	require "user+mount namespaces" unshare -Urm --propagation slave true
	# a mount point inside the tree cannot be removed through: isorun must not cross it
	run --separate-stderr unshare -Urm --propagation slave sh -c "
		mount --make-rprivate / &&
		$ISORUN --root $R -- sh -c 'mkdir \"\$HOME/mnt\" && mount -t tmpfs none \"\$HOME/mnt\" && touch \"\$HOME/mnt/inside\" \"\$HOME/other\"'"
	[ "$status" -eq 122 ]
	# inside the user namespace isorun ran as uid 0: its per-user directory is isorun-0
	tree=$(find "$R" -mindepth 2 -maxdepth 2 -type d | head -1)
	[[ "$stderr" == *"tree retained at $tree: removal failed: "*"$tree/home/mnt"* ]]
	# everything else was removed
	[ ! -e "$tree/home/other" ]
	[ ! -e "$tree/tmp" ]
	force_remove "$tree"
}

@test "--keep keeps the tree and prints its path" {
	run --separate-stderr iso --keep -- sh -c 'echo hi > "$HOME/f"'
	[ "$status" -eq 0 ]
	tree=$(the_tree)
	[ "$stderr" = "isorun: tree kept at $tree" ]
	[ "$(cat "$tree/home/f")" = hi ]
	force_remove "$tree"
}

# The next three hold where the tree is a plain directory: for an ordinary user,
# or root whose tree cannot wear its shield (a nested run).  As root the tree's
# top is its shield's mount point (the last test of this group).
@test "a command that deletes its own tree ends 0, the tree counted as removed" {
	export ISORUN_TEST_FAULT=no-shield
	run --separate-stderr iso --report "$W/r.json" -- sh -c 'rm -rf "$ISORUN_NAMESPACE"'
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"retained"* ]]
	grep -q '"state": "removed"' "$W/r.json"
	assert_no_tree
}

@test "a command that deletes only part of its tree (its owner record, tmp) still gets it removed" {
	run iso -- sh -c 'rm -f "$ISORUN_NAMESPACE/owner" && rm -rf "$ISORUN_NAMESPACE/tmp" && ln -s / "$ISORUN_NAMESPACE/tmp"'
	[ "$status" -eq 0 ]
	assert_no_tree
	# the symlink was removed, not followed
	[ -d /etc ]
}

@test "a tree moved away by the command is retained where it went, not removed, exit 122" {
	export ISORUN_TEST_FAULT=no-shield
	run --separate-stderr iso --report "$W/r.json" -- sh -c "mv \"\$ISORUN_NAMESPACE\" $W/moved"
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"tree retained at $U/"*": the tree was moved away (now at $W/moved); not removed"* ]]
	grep -q '"state": "retained"' "$W/r.json"
	[ -f "$W/moved/owner" ]
	force_remove "$W/moved"
}

@test "a directory put at the tree's path by the command is not removed, exit 122" {
	export ISORUN_TEST_FAULT=no-shield
	run --separate-stderr iso -- sh -c 'rm -rf "$ISORUN_NAMESPACE" && mkdir "$ISORUN_NAMESPACE" && touch "$ISORUN_NAMESPACE/theirs"'
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"the tree was replaced by something else at its path; not removed"* ]]
	tree=$(the_tree)
	[ -f "$tree/theirs" ]
	force_remove "$tree"
}

@test "as root the tree's top is its shield's mount point: the command empties it, cannot remove or move it, and its mounts inside come off" {
	[ "$(id -u)" -eq 0 ] || skip "only root's tree wears a shield"
	shield_root
	run --separate-stderr "$ISORUN" -v --no-config --root "$R" -- sh -c '
		rm -rf "$ISORUN_NAMESPACE" 2>/dev/null; echo "rm=$?"
		mv "$ISORUN_NAMESPACE" "$ISORUN_NAMESPACE.moved" 2>/dev/null; echo "mv=$?"
		mkdir "$HOME" "$HOME/mnt" && mount -t tmpfs none "$HOME/mnt" && touch "$HOME/mnt/inside"
		ls -A "$ISORUN_NAMESPACE"'
	[ "$status" -eq 0 ]
	[[ "$output" == *"rm=1"*"mv=1"*"home"* ]]
	# the tmpfs inside held the shield's unmount; nothing else did, and the removal
	# never reached into it
	[[ "$stderr" == *"isorun: holders: every process read: the tree's shield is held through its mount"* ]]
	[[ "$stderr" != *"retained"* ]]
	assert_no_tree
	! grep -q " $U/" /proc/self/mountinfo
}

@test "a tree retained after a failed removal keeps its records, and gc removes it once the obstacle is gone" {
	require "user+mount namespaces" unshare -Urm --propagation slave true
	# the obstacle is a mount inside the tree, made and later lifted in one mount namespace
	run --separate-stderr unshare -Urm --propagation slave sh -c "
		mount --make-rprivate / || exit 90
		$ISORUN --no-config --root $R -- sh -c 'mkdir \"\$HOME/mnt\" && mount -t tmpfs none \"\$HOME/mnt\" && touch \"\$HOME/other\"'
		echo rc=\$?
		tree=\$(find $R -mindepth 2 -maxdepth 2 -type d)
		echo tree=\$tree
		ls \"\$tree\" | tr '\n' ' '; echo
		$ISORUN ls --root $R
		umount \"\$tree/home/mnt\" || exit 91"
	[ "$status" -eq 0 ]
	[[ "$output" == *"rc=122"* ]]
	# isorun's own records are what stays, so the tree can be judged later
	[[ "$output" == *"outcome"*"owner"* ]]
	[[ "$output" != *"owner record: missing"* ]]
	[[ "$output" == *"retained"* ]]
	tree=$(find "$R" -mindepth 2 -maxdepth 2 -type d)
	if [ "$(id -u)" -ne 0 ]; then
		# the tree is uid 0's of the namespace (isorun-0): only a gc in a user
		# namespace sees it, and there the host's processes cannot be read, so a
		# dead run's tree is kept, saying why (docs/decisions/0037-*.md, issue 26 item 20)
		run unshare -Ur "$ISORUN" gc --root "$R"
		[ "$status" -eq 0 ]
		[ -e "$tree" ]
		[[ "$output" == *"outside isorun's user namespace"* ]]
		rm -rf "$tree"
		return 0
	fi
	# gc from outside the user namespace, which reads every process
	run "$ISORUN" gc --root "$R"
	[ "$status" -eq 0 ]
	[ ! -e "$tree" ]
}

@test "SIGTERM while a large tree is removed stops the removal: 143, cancelled_by, the rest retained and collectable" {
	require python3 python3 -c 'pass'
	# as root, trees out of the suite's own run: on disk, not a nested run's tmpfs
	[ "$(id -u)" -ne 0 ] || shield_root
	# isorun -v says when removal starts: the signal is sent on that line, not after a delay
	{
		"$ISORUN" --no-config --root "$R" -v --report "$W/r.json" -- python3 -c '
import os
d = os.environ["TMPDIR"]
for i in range(100000):
    os.close(os.open("%s/f%d" % (d, i), os.O_CREAT | os.O_WRONLY, 0o600))
' 2>&1 >/dev/null 3>&- &
		echo $! >"$W/iso.pid"
		rc=0
		wait $! || rc=$?
		echo "$rc" >"$W/rc"
	} | while IFS= read -r line; do
		echo "$line"
		case $line in
		"isorun: removing "*) kill -TERM "$(cat "$W/iso.pid")" ;;
		esac
	done >"$W/err"
	cat "$W/err"
	[ "$(cat "$W/rc")" -eq 143 ]
	grep -q '"cancelled_by": "SIGTERM"' "$W/r.json"
	grep -q '"state": "retained"' "$W/r.json"
	tree=$(the_tree)
	grep -q "tree retained at $tree: removal stopped by SIGTERM; the rest of the tree stays" "$W/err"
	[ -f "$tree/owner" ]
	run "$ISORUN" gc --root "$R"
	[ "$status" -eq 0 ]
	assert_no_tree
}

# The removal has a deadline (2 minutes), like every phase after the command: past it
# the rest of the tree stays, with its records, for gc.  ISORUN_TEST_FAULT=slow-removal
# puts the deadline at the start of the removal, the only way to reach it on demand.
@test "a removal past its deadline stops: the rest is retained with its records, 122, and gc finishes it" {
	[ "$(id -u)" -ne 0 ] || shield_root
	ISORUN_TEST_FAULT=slow-removal run --separate-stderr "$ISORUN" --no-config --root "$R" \
		--report "$W/r.json" -- sh -c 'i=0; while [ $i -lt 300 ]; do : >"$TMPDIR/f$i"; i=$((i + 1)); done'
	[ "$status" -eq 122 ]
	tree=$(the_tree)
	[[ "$stderr" == *"tree retained at $tree: removal still running after 2m; the rest of the tree stays for isorun gc"* ]]
	grep -q '"state": "retained"' "$W/r.json"
	[ -f "$tree/owner" ]
	# control: without the fault the same run removes its tree
	run "$ISORUN" gc --root "$R"
	[ "$status" -eq 0 ]
	assert_no_tree
	run "$ISORUN" --no-config --root "$R" -- sh -c 'i=0; while [ $i -lt 300 ]; do : >"$TMPDIR/f$i"; i=$((i + 1)); done'
	[ "$status" -eq 0 ]
	assert_no_tree
}

@test "a low descriptor limit at setup: the run works or fails 125 naming the cause, and nothing stays behind" {
	require prlimit prlimit --nofile=64:64 true
	local n mode rc left
	for mode in "" --pidns; do
		for n in $(seq 4 40); do
			rm -f "$W/r.json"
			rc=0
			prlimit --nofile="$n:$n" "$ISORUN" --no-config --root "$R" $mode --report "$W/r.json" -- true >/dev/null 2>"$W/err" || rc=$?
			left=$(find "$U" -mindepth 1 -maxdepth 1 ! -name .empty 2>/dev/null || true)
			# the dynamic loader failing before isorun runs (bats holds a few fds too)
			if [ "$rc" -eq 127 ] && grep -q 'error while loading shared libraries' "$W/err"; then
				continue
			fi
			if [ "$rc" -ne 0 ] && [ "$rc" -ne 125 ] || [ -n "$left" ]; then
				echo "limit $n $mode: exit $rc, left: $left" >&2
				cat "$W/err" >&2
				return 1
			fi
			if [ "$rc" -eq 125 ]; then
				# the cause, then the verdict: nothing else
				[ "$(wc -l <"$W/err")" -eq 2 ]
				grep -q 'Too many open files\|descriptor limit' "$W/err"
				# never `removed` for a tree that is still there (checked above: none is)
				! grep -q '"state": "retained"' "$W/r.json"
			fi
		done
	done
}
