#!/usr/bin/env bats
# isorun inside a user namespace that shares the host's process list
# (`bwrap --unshare-user`, `unshare -U`, `unshare -Ur`, a rootless container
# without a PID namespace of its own): the processes outside that namespace
# cannot be read from inside it, dumpable or not (issue 26 item 20).
#
# - A run: they are not holders of the 0700 tree it made inside the namespace;
#   it exits as the command did, removes the tree, and says in every output
#   which processes were not measured.
# - gc: a tree of a dead run may be theirs; it keeps it and names them as
#   outside, never as "not dumpable"; gc outside the namespace decides.
# - Control: a non-dumpable process of the caller's inside isorun's own
#   namespace is still not measurable (122), as in holders.bats.

load helpers

# Serial: gc's words name every process of this user it could not read, and
# another file's runs (a non-dumpable isorun in its start, as an ordinary user)
# would join that list and truncate it.
# bats file_tags=serial

setup() {
	setup_shielded
}

teardown() {
	show_last_run
	touch "$W/never" 2>/dev/null || true
	for f in "$W"/*.kill; do
		[ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	[ -z "${WD:-}" ] || rm -rf "$WD"
	validate_outputs
	# root's trees wear shields, which this takes off first
	teardown_shield_root
	for t in "$R"/isorun-*/2*; do
		[ -d "$t" ] && force_remove "$t"
	done
	return 0
}

bwrap_ok() {
	bwrap --unshare-user --dev-bind / / true
}

# in_userns KIND CMD...: CMD in a new user namespace that shares the host's
# PIDs and mounts.  bwrap keeps the caller's uid (mapped to itself); unshare-U
# maps nobody (isorun runs as the overflow uid, and so shows every process
# outside); unshare-Ur maps the caller to root.
in_userns() {
	local kind=$1
	shift
	case $kind in
	bwrap) bwrap --unshare-user --dev-bind / / -- "$@" ;;
	unshare-U) unshare -U -- "$@" ;;
	unshare-Ur) unshare -U -r -- "$@" ;;
	esac
}

# A process outside every namespace made here that the run's isorun counts as
# its uid's: the caller's own (waitfor, no capability) for an ordinary user;
# for root, another user's (inside `unshare -U` isorun is the overflow uid,
# as is every unmapped id), started through a FIFO in a directory that user
# can reach.  Its pid goes to $W/witness.kill.
start_witness() {
	WD=$(mktemp -d /tmp/isorun-witness.XXXXXX)
	chmod 755 "$WD"
	mkfifo -m 666 "$WD/ready"
	if [ "$(id -u)" -eq 0 ]; then
		as_other sh -c 'echo $$ >"$1"; exec sleep 600' sh "$WD/ready" \
			<&- >/dev/null 2>&1 3>&- &
	else
		sh -c 'echo $$ >"$1"; exec "$2" -t 600 "$3"' sh "$WD/ready" "$H/waitfor" "$W/never" \
			<&- >/dev/null 2>&1 3>&- &
	fi
	witness=$(timeout 60 cat "$WD/ready")
	[ -n "$witness" ]
	echo "$witness" >"$W/witness.kill"
}

# A process of the caller's in a sibling user namespace made with the map the
# runs' own have (`unshare -Ur` as root maps 0 to 0, as bwrap does; bwrap as a
# user maps the uid to itself): its /proc/PID/uid_map reads as theirs, yet it
# is outside them.  Its pid goes to $W/sibling.kill.
start_sibling() {
	local k=unshare-Ur
	[ "$(id -u)" -eq 0 ] || k=bwrap
	mkfifo "$W/sibling.ready"
	in_userns "$k" sh -c 'echo $$ >"$1"; exec "$2" -t 600 "$3"' sh "$W/sibling.ready" \
		"$H/waitfor" "$W/never" <&- >/dev/null 2>&1 3>&- &
	sibling=$(timeout 60 cat "$W/sibling.ready")
	[ -n "$sibling" ]
	echo "$sibling" >"$W/sibling.kill"
}

# No tree under any user directory of $R: isorun's uid inside is not ours.
assert_no_tree_anywhere() {
	local left
	left=$(find "$R" -mindepth 2 -maxdepth 2 -name '2*' 2>/dev/null || true)
	[ -z "$left" ] || {
		echo "trees left behind: $left" >&2
		return 1
	}
}

# The namespaces this caller can make, each a KIND of in_userns.
kinds() {
	local k
	for k in unshare-U unshare-Ur bwrap; do
		case $k in
		bwrap) bwrap_ok >/dev/null 2>&1 || continue ;;
		*) unshare -U true >/dev/null 2>&1 || continue ;;
		esac
		echo "$k"
	done
}

# run_inside KIND OPTION...: `isorun OPTION... -- true` inside KIND with a
# report and a JUnit file; asserts the clean exit and every output's words.
run_inside() {
	local k=$1
	shift
	run --separate-stderr in_userns "$k" "$ISORUN" --no-config --root "$R" \
		--report "$W/$k.json" --junit "$W/$k.xml" "$@" -- true

	[ "$status" -eq 0 ]
	# one short line on every run, the count and not the list (issue 39 item 11);
	# beside it only --pidns=try's fallback, where isorun makes no namespace
	line=$(grep -F "holders not measured" <<<"$stderr")
	[[ "$line" =~ ^"isorun: holders not measured in "[0-9]+" process"(es)?" outside isorun's user namespace, not holders of a tree made inside it (--verbose or the report names "(them|it)")"$ ]]
	[ "${#line}" -le 160 ]
	[ "$(grep -vc "^isorun: pidns: not available (.*); using the subreaper gate$" <<<"$stderr")" -eq 1 ]
	[[ "$stderr" != *"(pid "* ]]
	# the report and JUnit keep the list
	python3 - "$W/$k.json" <<-'EOF'
	import json, sys
	t = json.load(open(sys.argv[1]))["tree"]
	assert t["state"] == "removed", t
	assert "outside isorun's user namespace, which cannot read " in t["reason"], t
	assert "(pid " in t["reason"], t
	assert "not dumpable" not in t["reason"], t
	EOF
	grep -F "holders not measured in " "$W/$k.xml" | grep -F "(pid "
	assert_no_tree_anywhere
	# -v: the whole list on stderr too
	run --separate-stderr in_userns "$k" "$ISORUN" --no-config --root "$R" -v "$@" -- true
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"isorun: holders not measured in "*" outside isorun's user namespace, which cannot read "*"(pid "* ]]
	[[ "$stderr" == *"not holders of a tree made inside it (isorun run outside that namespace measures "* ]]
	[[ "$stderr" != *"not dumpable"* ]]
	# -q: not this line
	run --separate-stderr in_userns "$k" "$ISORUN" --no-config --root "$R" -q "$@" -- true
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"holders not measured"* ]]
	assert_no_tree_anywhere
}

@test "inside a user namespace sharing the host's processes, a clean run exits 0 and removes its tree; what was not measured is said in every output" {
	require "unprivileged user namespaces" unshare -U true
	local k n=0
	start_witness
	# and one in a namespace whose map reads as the run's own
	if [ "$(id -u)" -eq 0 ] || bwrap_ok >/dev/null 2>&1; then
		start_sibling
	fi
	for k in $(kinds); do
		run_inside "$k"
		n=$((n + 1))
	done
	[ "$n" -ge 2 ]
}

# run_inside_gated KIND OPTION...: isorun made a user namespace of its own
# inside KIND, so its tree lay below its gate (tree/gate.h): the kernel proved
# it, and no process outside was looked at, so none is said to be unmeasured.
run_inside_gated() {
	local k=$1
	shift
	run --separate-stderr in_userns "$k" "$ISORUN" --no-config --root "$R" -v \
		--report "$W/$k.json" "$@" -- true
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"isorun: holders: proven by the kernel, no process read: the overlay over the tree's gate"* ]]
	[[ "$stderr" != *"holders not measured"* ]]
	python3 - "$W/$k.json" <<-'EOF'
	import json, sys
	t = json.load(open(sys.argv[1]))["tree"]
	assert t["state"] == "removed", t
	EOF
	assert_no_tree_anywhere
}

# Whether isorun makes a user namespace of its own inside KIND: it does as
# any uid but 0 (bwrap maps the caller to itself; unshare -r to 0).
gated_inside() {
	[ "$1" = bwrap ] && [ "$(id -u)" -ne 0 ]
}

@test "--pidns inside such a user namespace: a clean exit; the kernel proves the tree where isorun makes a user namespace of its own, else the same words" {
	require "unprivileged user namespaces" unshare -U true
	local k n=0 g=0
	start_witness
	for k in $(kinds); do
		# unmapped (unshare -U), isorun cannot make a user namespace of its own
		[ "$k" = unshare-U ] && continue
		if gated_inside "$k"; then
			run_inside_gated "$k" --pidns
			g=$((g + 1))
		else
			run_inside "$k" --pidns
		fi
		n=$((n + 1))
	done
	# --pidns=try (a toolbox or a devcontainer): the same, every kind; unmapped,
	# its fallback takes the tree back from below its gate before the command
	for k in $(kinds); do
		if gated_inside "$k"; then
			run_inside_gated "$k" --pidns=try
		else
			run_inside "$k" --pidns=try
		fi
	done
	[ "$n" -ge 1 ]
	# bwrap is what an ordinary user's toolbox is made of: where it runs, the gate is tested
	if [ "$(id -u)" -ne 0 ] && bwrap_ok >/dev/null 2>&1; then
		[ "$g" -ge 1 ]
	fi
}

@test "control: a non-dumpable holder of the caller's inside isorun's own user namespace is still not measurable (122)" {
	[ "$(id -u)" -ne 0 ] || skip "root of a user namespace reads every process in it"
	require bwrap bwrap_ok
	# everything inside one bwrap: the run, and the holder it must not overlook
	run --separate-stderr timeout -k 10 300 bwrap --unshare-user --dev-bind / / -- \
		env W="$W" R="$R" H="$H" ISORUN="$ISORUN" sh -c '
		mkfifo "$W/path"
		"$ISORUN" --no-config --root "$R" -- sh -c \
			"echo \"\$HOME\" >$W/path; exec $H/waitfor -t 600 $W/go" >"$W/out" 2>&1 3>&- &
		isopid=$!
		home=$(cat "$W/path")
		"$H/mapholder" -n "$home/agent.sock" "$W/holder.pid" <&- >/dev/null 2>&1 3>&- &
		"$H/waitfor" -t 60 "$W/holder.pid"
		cp "$W/holder.pid" "$W/holder.kill"
		: >"$W/go"
		wait "$isopid"
		echo "rc=$?"
		cat "$W/out"'
	holder=$(cat "$W/holder.pid")
	[[ "$output" == *"rc=122"* ]]
	[[ "$output" == *"holders not measurable: pid $holder (mapholder) is the caller's but cannot be inspected (not dumpable"* ]]
	[[ "$output" != *"pid $holder (mapholder) runs outside"* ]]
}

@test "gc inside such a user namespace keeps a dead run's tree, naming the processes outside as not measured; gc outside names the holder, then removes the tree" {
	require "unprivileged user namespaces" unshare -U true
	local k kinds_here
	# a dead run (kill -9) whose survivor, outside, holds a file of its tree
	mkfifo "$W/gone"
	"$ISORUN" --no-config --root "$R" --cgroup=off -- sh -c \
		"exec 3>\"\$HOME/held\" 9>$W/gone; echo \"\$\$ \$HOME\" >&9; exec env -i $H/waitfor -r $W/execd -t 600 $W/never" \
		3>&- 8>&- >"$W/run.out" 2>&1 &
	isopid=$!
	exec 8<"$W/gone"
	read -r cmdpid home <&8
	echo "$cmdpid" >"$W/cmd.kill"
	# past its exec: with the supervisor killed first, the notified exec would
	# fail (ENOSYS) and the shell exit, and gc would rightly find no holder
	"$H/waitfor" -t 60 "$W/execd"
	tree=$(dirname "$home")
	kill -KILL "$isopid"
	wait "$isopid" || true
	# where isorun's uid inside is the caller's, so that gc looks at this tree
	if [ "$(id -u)" -eq 0 ]; then kinds_here="unshare-Ur bwrap"; else kinds_here=bwrap; fi
	for k in $kinds_here; do
		[ "$k" != bwrap ] || bwrap_ok >/dev/null 2>&1 || continue
		for dry in --dry-run ""; do
			run --separate-stderr in_userns "$k" "$ISORUN" gc --root "$R" $dry

			[ "$status" -eq 0 ]
			[[ "$output" == "ke"[ep]*" $tree: holders not measurable: "*" outside isorun's user namespace, which cannot read "*"(run isorun outside that namespace to measure "* ]]
			[[ "$output" != *"not dumpable"* ]]
			# the environment scan too: outside, not "e.g. not dumpable"
			[[ "$output" == *" of this user outside isorun's user namespace could not be examined "* ]]
			[ -f "$home/held" ]
		done
	done
	run "$ISORUN" gc --root "$R" --dry-run
	[[ "$output" == "keep $tree: pid $cmdpid \`"*"\` holds $home/held open (fd 3)"* ]]
	kill -KILL "$cmdpid"
	cat <&8
	exec 8<&-
	run "$ISORUN" gc --root "$R"
	[[ "$output" == "removed $tree: "* ]]
	assert_no_tree
}

@test "--pidns inside a sandbox that forbids new user namespaces (bwrap --disable-userns) blames that sandbox, not the sysctl; 125, no tree" {
	require "bwrap --disable-userns" bwrap --unshare-user --disable-userns --dev-bind / / true
	local as=() root=$R left
	# root makes no user namespace of its own: the ordinary user is the case
	if [ "$(id -u)" -eq 0 ]; then
		require "uid $OTHER_UID reaching $ISORUN" as_other test -x "$ISORUN"
		as=(as_other)
		root=$(mktemp -d /tmp/isorun-h6-XXXXXX)
		chown "$OTHER_UID:$OTHER_UID" "$root"
	fi
	run --separate-stderr "${as[@]}" bwrap --unshare-user --disable-userns --dev-bind / / -- \
		"$ISORUN" --no-config --root "$root" --pidns -- touch "$W/ran"
	# nothing was left in the root; a root made here goes before any assertion can fail
	left=$(find "$root" -mindepth 2 -maxdepth 2)
	[ "$root" = "$R" ] || rm -rf "$root"
	[ -z "$left" ]
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: create a user namespace (refused by an enclosing user namespace's limit; this one's user.max_user_namespaces="*"; or nested deeper than 32): No space left on device" ]]
	[[ "${stderr_lines[1]}" == "  (hint: isorun runs in a user namespace whose creator forbids new ones "* ]]
	[[ "$stderr" != *"ask an admin to raise"* ]]
	[ ! -e "$W/ran" ]
	# selftest says the same of its probe
	run "${as[@]}" bwrap --unshare-user --disable-userns --dev-bind / / -- "$ISORUN" selftest
	[[ "$output" == *"probe userns: no (create a user namespace (refused by an enclosing user namespace's limit;"* ]]
}
