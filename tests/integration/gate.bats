#!/usr/bin/env bats
# An ordinary user's run under --pidns: its tree lies below a gate (0100) while
# the run lives, and the command sees it through an overlay in the run's own
# mount namespace (tree/gate.h).  From outside, a process reaches the tree only
# through that overlay (/proc/PID/root of a process in the run, a descriptor
# passed out), and each way pins it: the overlay's end with the namespace is
# the kernel's word that nothing holds the tree, no process read (issue 35).
# As root the same runs are made as another uid (as_other).

load helpers

setup() {
	# tmpfs: an overlay's upper layer cannot be the suite's own tree when that
	# is an overlay, as root's is (its shield)
	W=$(mktemp -d /dev/shm/isorun-gate.XXXXXX)
	echo "$W" >"$BATS_TEST_TMPDIR/gate-root"
	R="$W/root"
	mkdir "$R"
	AS=()
	if [ "$(id -u)" -eq 0 ]; then
		require "uid $OTHER_UID reaching $ISORUN" as_other test -x "$ISORUN"
		chown -R "$OTHER_UID:$OTHER_UID" "$W"
		# a command, not as_other (a function): $! is then isorun's own pid
		AS=(setpriv --reuid="$OTHER_UID" --regid="$OTHER_UID" --clear-groups --)
	fi
	U="$R/isorun-$("${AS[@]}" id -u)"
}

teardown() {
	for f in "$W"/*.kill; do
		[ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	[ -f "$W/out" ] && cat "$W/out"
	chmod -R u+rwx "$W" 2>/dev/null
	umount_below "$W"
	rm -rf "$W"
}

# The run: its command writes $HOME/data, says its home on $W/path, and exits
# once $W/go exists.  Sets isopid, home, tree, and init (the namespace's init,
# whose root is the run's mount namespace).
start_gated() {
	"${AS[@]}" "$ISORUN" --no-config --root "$R" --pidns "$@" -- sh -c \
		"echo data > \"\$HOME/data\"; echo \"\$HOME\" > $W/path.tmp; mv $W/path.tmp $W/path; exec $H/waitfor -t 600 $W/go" \
		>"$W/out" 2>&1 3>&- &
	isopid=$!
	"$H/waitfor" -t 60 "$W/path"
	home=$(cat "$W/path")
	tree=${home%/home}
	init=$(cat /proc/"$isopid"/task/*/children | awk '{ print $1; exit }')
	[ -n "$init" ]
	inside="/proc/$init/root$home"
}

holder_started() {
	"$H/waitfor" -t 60 "$W/holder.pid"
	holder=$(cat "$W/holder.pid")
	echo "$holder" >"$W/holder.kill"
	"${AS[@]}" touch "$W/go"
}

# 122, the tree retained at its own path with `$1` in the reason, data intact,
# the gate gone: a plain directory of the user's again.
assert_retained() {
	wait "$isopid" && rc=0 || rc=$?
	cat "$W/out"
	[ "$rc" -eq 122 ]
	grep -F "tree retained at $tree: " "$W/out"
	grep -F -- "$1" "$W/out"
	[ "$(cat "$home/data")" = data ]
	[ "$(stat -c %a "$tree")" = 700 ]
	[ ! -e "$tree/.t" ]
	[ -z "$(find "$U" -mindepth 1 -maxdepth 1 -name '.*')" ]
}

@test "an ordinary user's --pidns run: its tree's path leads nowhere from the host while it runs, and the kernel proves it unheld, no process read" {
	start_gated -v
	# the path given to the command does not lead into the tree from the host
	run "${AS[@]}" ls "$home"
	[ "$status" -ne 0 ]
	[ "$(stat -c %a "$tree")" = 100 ]
	"${AS[@]}" touch "$W/go"
	wait "$isopid"
	grep -F "isorun: holders: proven by the kernel, no process read: the overlay over the tree's gate ended with the run's namespace" "$W/out"
	run grep -F "processes read" "$W/out"
	[ "$status" -eq 1 ]
	[ -z "$(ls -A "$U")" ]
}

@test "control: without the gate (ISORUN_TEST_FAULT=no-gate) the same run reads every process, and the tree is where the command saw it" {
	ISORUN_TEST_FAULT=no-gate start_gated -v
	[ "$(cat "$home/data")" = data ]
	"${AS[@]}" touch "$W/go"
	wait "$isopid"
	grep -F "isorun: holders: every process read" "$W/out"
	grep -E "isorun: holders: [0-9]+ processes read" "$W/out"
	[ -z "$(ls -A "$U")" ]
}

@test "a cwd reached through /proc/PID/root of the run holds the tree: retained at its own path, the holder named" {
	start_gated
	"${AS[@]}" "$H/holdcwd" "$inside" "$W/holder.pid" <&- 3>&- &
	holder_started
	assert_retained "pid $holder \`$H/holdcwd "
}

@test "a MAP_SHARED mapping through the run's root, its fd closed, holds the tree" {
	start_gated
	"${AS[@]}" "$H/mapholder" "$inside/lib.so" "$W/holder.pid" <&- 3>&- &
	holder_started
	assert_retained "pid $holder \`$H/mapholder "
}

# A run whose command says its home on $W/home and then runs "$@" (in sh -c).
run_gated() {
	"${AS[@]}" "$ISORUN" --no-config --root "$R" --pidns -- sh -c \
		"echo data > \"\$HOME/data\"; echo \"\$HOME\" > $W/home; $*" >"$W/out" 2>&1 3>&- &&
		rc=0 || rc=$?
	cat "$W/out"
	home=$(cat "$W/home")
	tree=${home%/home}
}

@test "a descriptor the command passes out of the run holds the tree" {
	"${AS[@]}" "$H/fdpass" hold "$W/sock" "$W/holder.pid" <&- 3>&- &
	"$H/waitfor" -t 60 "$W/holder.pid"
	holder=$(cat "$W/holder.pid")
	echo "$holder" >"$W/holder.kill"
	run_gated "exec 5<\"\$HOME/data\"; $H/fdpass send $W/sock 5"
	[ "$rc" -eq 122 ]
	grep -F "tree retained at $tree: pid $holder " "$W/out"
	[ "$(cat "$home/data")" = data ]
	[ ! -e "$tree/.t" ]
}

@test "a descriptor in flight in an outside process's socket (no process holds it) keeps the tree, and the report says what could hold it" {
	"${AS[@]}" python3 "$TOP/tests/helpers/inflight.py" listen "$W/sock" "$W/holder.pid" <&- 3>&- &
	"$H/waitfor" -t 60 "$W/holder.pid"
	cat "$W/holder.pid" >"$W/holder.kill"
	run_gated "python3 $TOP/tests/helpers/inflight.py send $W/sock"
	[ "$rc" -eq 122 ]
	grep -F "tree retained at $tree: the kernel says the tree is held (the overlay over its gate lives on" "$W/out"
	grep -F "a descriptor in flight in a unix socket" "$W/out"
	[ "$(cat "$home/data")" = data ]
}

@test "a directory of the tree that can be listed but not searched (0400), held through the run's root, holds the tree" {
	start_gated
	"${AS[@]}" mkdir "$inside/d"
	"${AS[@]}" "$H/holdcwd" "$inside/d" "$W/holder.pid" <&- 3>&- &
	"$H/waitfor" -t 60 "$W/holder.pid"
	"${AS[@]}" chmod 0400 "$inside/d"
	holder_started
	assert_retained "pid $holder \`$H/holdcwd "
}

@test "a process that entered the run's namespaces (nsenter) with its cwd in the tree holds it, and is named" {
	start_gated
	"${AS[@]}" nsenter -U -m --preserve-credentials -t "$init" "$H/holdcwd" "$home" "$W/holder.pid" <&- 3>&- &
	holder_started
	assert_retained "pid $holder \`$H/holdcwd "
}

@test "a non-dumpable holder of the user's through the run's root keeps the tree: the kernel said held, the scan cannot read it" {
	start_gated
	"${AS[@]}" "$H/mapholder" -n "$inside/agent.sock" "$W/holder.pid" <&- 3>&- &
	holder_started
	assert_retained "the kernel says the tree is held (the overlay over its gate lives on after the run's namespace ended)"
}

@test "a process whose main thread exited holds the tree through its live thread's cwd, reached through the run's root" {
	start_gated
	(cd "$inside" && exec "${AS[@]}" "$H/leaderexit" "$W/holder.pid") <&- 3>&-
	holder_started
	assert_retained "pid $holder \`$H/leaderexit "
}

@test "a holder in a directory named like the gate's (.t/) in a tree the command made 0100 holds it; the tree is not taken for a gate" {
	start_gated
	"${AS[@]}" mkdir "$inside/../lock" "$inside/../.t"
	"${AS[@]}" "$H/holdcwd" "$inside/../.t" "$W/holder.pid" <&- 3>&- &
	"$H/waitfor" -t 60 "$W/holder.pid"
	"${AS[@]}" chmod 0100 "$inside/.."
	holder_started
	wait "$isopid" && rc=0 || rc=$?
	[ "$rc" -eq 122 ]
	grep -F "tree retained at $tree: pid $holder " "$W/out"
	# the tree's own mode is isorun's again, and ls reads its records at its top
	[ "$(stat -c %a "$tree")" = 700 ]
	[ "$(cat "$home/data")" = data ]
	kill "$holder"
	run "${AS[@]}" "$ISORUN" gc --root "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == "removed $tree: "* ]]
	[ -z "$(ls -A "$U")" ]
}

@test "control: the gate's proof broken on purpose (ISORUN_TEST_FAULT=gate-blind) lets the tree go under a holder; only the release proof still fails the run" {
	ISORUN_TEST_FAULT=gate-blind start_gated
	"${AS[@]}" "$H/holdcwd" "$inside" "$W/holder.pid" <&- 3>&- &
	holder_started
	wait "$isopid" && rc=0 || rc=$?
	[ "$rc" -eq 122 ]
	grep -F "removed tree still held" "$W/out"
	[ ! -e "$tree" ]
}

@test "a holder that walked into the tree before its gate closed fails the run and is named" {
	"${AS[@]}" mkdir -p "$U"
	"${AS[@]}" "$H/earlyin" "$U" "$W/holder.pid" <&- 3>&- &
	"$H/waitfor" -t 60 "$W/holder.pid.watching"
	ISORUN_TEST_FAULT=late-shield "${AS[@]}" "$ISORUN" --no-config --root "$R" --pidns -- true \
		>"$W/out" 2>&1 3>&- && rc=0 || rc=$?
	holder=$(cat "$W/holder.pid")
	echo "$holder" >"$W/holder.kill"
	cat "$W/out"
	[ "$rc" -eq 122 ]
	# the release proof after the removal; or, when the overlay's end came late
	# (a loaded machine: the namespace's mounts are put from a workqueue), the
	# scan before it, which keeps the tree: either way the holder is named
	grep -E "removed tree still held|tree retained at $tree|tree retained at " "$W/out"
	grep -F "pid $holder " "$W/out"
}

@test "ls and gc beside a live run below its gate, then after its isorun was killed: listed, kept while it runs, then removed whole" {
	start_gated
	run "${AS[@]}" "$ISORUN" ls --root "$R"
	[[ "$output" == *"$tree "*" running "* ]]
	run "${AS[@]}" "$ISORUN" gc --root "$R"
	[[ "$output" == "kept $tree: owner pid $isopid is alive"* ]]
	kill -KILL "$isopid"
	wait "$isopid" || true
	pids_gone "$init"
	[ "$(stat -c %a "$tree")" = 100 ]
	run "${AS[@]}" "$ISORUN" ls --root "$R"
	[[ "$output" == *"$tree "*" orphaned "* ]]
	run "${AS[@]}" "$ISORUN" gc --root "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == "removed $tree: "* ]]
	[ -z "$(ls -A "$U")" ]
}

@test "a tree kept on purpose opens at its own path, as it was inside" {
	start_gated --keep=always
	"${AS[@]}" touch "$W/go"
	wait "$isopid"
	[ "$(cat "$home/data")" = data ]
	[ "$(stat -c %a "$tree")" = 700 ]
	[ -f "$tree/owner" ]
	[ ! -e "$tree/.t" ]
	[ "$(ls -A "$U")" = "$(basename "$tree")" ]
}

@test "an ordinary user's run whose holder scan was the expensive step says once what lets the kernel prove it; not under --pidns, not with -q" {
	run --separate-stderr "${AS[@]}" env ISORUN_TEST_FAULT=scan-hint "$ISORUN" --no-config --root "$R" -- true
	[ "$status" -eq 0 ]
	[ "$(grep -c "processes read" <<<"$stderr")" -eq 1 ]
	[[ "$stderr" =~ "isorun: holders: "[0-9]+" processes read ("[0-9]+" ms) to prove the tree unheld; under --pidns (or pidns = try in isorun.conf) the kernel proves it, no process read" ]]
	run --separate-stderr "${AS[@]}" env ISORUN_TEST_FAULT=scan-hint "$ISORUN" --no-config --root "$R" --pidns -- true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	run --separate-stderr "${AS[@]}" env ISORUN_TEST_FAULT=scan-hint "$ISORUN" --no-config --root "$R" -q -- true
	[ -z "$stderr" ]
}

@test "a tree caught on its way out of its gate (isorun killed between the two renames) is put back by gc's sweep, then collected" {
	start_gated --keep=always
	"${AS[@]}" touch "$W/go"
	wait "$isopid"
	# the state that window leaves: the tree at .<id>.g, the emptied gate at <id>
	id=$(basename "$tree")
	"${AS[@]}" mv "$tree" "$U/.$id.g"
	"${AS[@]}" mkdir -p "$tree/.w/work" "$tree/.l"
	run "${AS[@]}" "$ISORUN" gc --root "$R" --kept
	[ "$(cat "$home/data")" = data ]
	[ ! -e "$U/.$id.g" ]
	run "${AS[@]}" "$ISORUN" gc --root "$R" --kept
	[ "$status" -eq 0 ]
	[[ "$output" == "removed $tree: "* ]]
	[ -z "$(ls -A "$U")" ]
}

@test "the release proof's watch is taken when the gate closes, not at the end (when every watch left could be taken)" {
	start_gated
	ino=$(printf '%x' "$("${AS[@]}" stat -c %i "/proc/$init/root$tree")")
	# on the tree on disk (the file system's device, in the kernel's encoding),
	# not on the overlay, which shows the same inode number
	dev=$(stat -c %d "$U")
	sdev=$(printf '%x' $(((((dev >> 8) & 0xfff) << 20) | (dev & 0xff) | ((dev >> 12) & 0xfff00))))
	found=
	for f in /proc/"$isopid"/fdinfo/*; do
		grep -q "^inotify wd:.* ino:$ino sdev:$sdev " "$f" 2>/dev/null && found=$f
	done
	[ -n "$found" ]
	"${AS[@]}" touch "$W/go"
	wait "$isopid"
}

@test "what a command puts at its gate's hidden name (a file, a directory with something in it) does not strand its tree" {
	local kind
	for kind in file dir; do
		run "${AS[@]}" "$ISORUN" --no-config --root "$R" --pidns -- sh -c '
			g="$(dirname "$ISORUN_NAMESPACE")/.$(basename "$ISORUN_NAMESPACE").g"
			echo data > "$HOME/data"
			if [ "$1" = file ]; then : > "$g"; else mkdir -p "$g/x"; fi' sh "$kind"
		echo "$output"
		[ "$status" -eq 0 ]
		# no tree is left: what the command made aside is its own
		[ -z "$(find "$U" -mindepth 1 -maxdepth 1 -name '2*')" ]
		[ -z "$(find "$U" -mindepth 1 -maxdepth 1 -name '*.g')" ]
	done
}

@test "a gate an isorun killed on its way left at 0700 is still known: ls reads it, gc takes the tree out and removes it" {
	start_gated --keep=always
	"${AS[@]}" touch "$W/go"
	wait "$isopid"
	"${AS[@]}" sh -c 'mv "$1" "$2/x" && mkdir "$1" && mv "$2/x" "$1/.t" && mkdir "$1/.w" "$1/.l"' sh "$tree" "$U"
	run "${AS[@]}" "$ISORUN" ls --root "$R"
	[[ "$output" == *"$tree "* ]]
	[[ "$output" != *"unreadable"* ]]
	run "${AS[@]}" "$ISORUN" gc --root "$R" --kept
	[ "$status" -eq 0 ]
	[[ "$output" == "removed $tree: "* ]]
	[ -z "$(ls -A "$U")" ]
}

@test "gc's sweep of a leftover that looks like a gate's follows no link a command planted in it" {
	V="$W/victim"
	"${AS[@]}" mkdir -p "$V/work/incompat/volatile" "$V/work/work" "$U"
	echo keep | "${AS[@]}" tee "$V/work/incompat/volatile/dirty" >/dev/null
	"${AS[@]}" mkdir "$U/.zzzz.g" "$U/.yyyy.w"
	"${AS[@]}" ln -s "$V" "$U/.zzzz.g/.w"
	"${AS[@]}" ln -s "$V/work" "$U/.yyyy.w/work"
	run "${AS[@]}" "$ISORUN" gc --root "$R"
	[ "$(cat "$V/work/incompat/volatile/dirty")" = keep ]
	[ -d "$V/work/work" ]
	[ "$(stat -c %a "$V/work")" != 700 ] || [ "$(stat -c %a "$V/work")" = "$(stat -c %a "$V")" ]
}

@test "a command that keeps CAP_SYS_ADMIN could unmount its overlay: no gate, the scan, and -v says why" {
	run --separate-stderr "${AS[@]}" "$ISORUN" -v --no-config --root "$R" --pidns --map-root --cap-keep sys_admin -- true
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"holders: every process read: no gate: the command keeps CAP_SYS_ADMIN, which could unmount its overlay"* ]]
	[ -z "$(ls -A "$U")" ]
}

@test "isorun's own descriptors of the gate and the tree are out of its table while the run lives (no way past the gate through /proc/ISORUN/fd)" {
	start_gated
	links=$(for f in /proc/"$isopid"/fd/*; do readlink "$f"; done)
	echo "$links"
	run grep -x -e "$tree" -e "$tree/.t" <<<"$links"
	[ "$status" -eq 1 ]
	"${AS[@]}" touch "$W/go"
	wait "$isopid"
	[ -z "$(ls -A "$U")" ]
}
