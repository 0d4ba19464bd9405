#!/usr/bin/env bats
# A root run inside another root run's shield (issue 35 item 2): its tree lies on
# the outer run's overlay, whose upper layer cannot be an overlay, so its own
# shield is an overlay of the disk below (tree/under.h): the kernel proves it
# unheld, no process read, and every way in is still heard, through the outer
# overlay and through the disk below it.

load helpers

# Serial: a namespace made by another file's run meanwhile shows the tree bare.
# bats file_tags=serial

setup() {
	setup_dirs
	[ "$(id -u)" -eq 0 ] || skip "only root's tree wears a shield"
}

teardown() {
	show_last_run
	for f in "$W"/*.kill; do
		[ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	[ -f "$W/out" ] && cat "$W/out"
	validate_outputs
}

# An outer run whose command runs an inner isorun (its trees in the outer's tree)
# with INNER_ARGS..., whose command says its home on $W/path and waits for $W/go.
# The outer's output, and "inner=RC", go to $W/out.
start_nested() { # INNER_ARGS...
	mkfifo "$W/path"
	iso -- sh -c '"$0" --no-config "$@" -- sh -c "echo \$HOME >$W_/path; exec $H_/waitfor -t 600 $W_/go"
		echo "inner=$?"' "$ISORUN" "$@" >"$W/out" 2>&1 3>&- &
	isopid=$!
	home=$(cat "$W/path")
}

holder_in() { # [nsenter ARGS...]: a holder with its cwd in $home
	"$@" "$H/holdcwd" "$home" "$W/holder.pid" <&- 3>&- &
	"$H/waitfor" -t 60 "$W/holder.pid"
	holder=$(cat "$W/holder.pid")
	echo "$holder" >"$W/holder.kill"
	: >"$W/go"
	wait "$isopid" || true
}

@test "as root, a run inside another root run's shield is proven by the kernel, no process read; two levels down too" {
	run --separate-stderr iso -- sh -c '"$0" -v --no-config -- true 2>&1; echo "inner=$?"' "$ISORUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"holders: proven by the kernel, no process read: the tree's shield ended with its unmount"*"inner=0" ]]
	run --separate-stderr iso -- sh -c '"$0" --no-config -- sh -c "\"$0\" -v --no-config -- true 2>&1; echo inner=\$?" "$0"' "$ISORUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"holders: proven by the kernel, no process read"*"inner=0" ]]
	assert_no_tree
}

@test "control: without its shield the run inside reads every process" {
	ISORUN_TEST_FAULT=no-under run --separate-stderr iso -- sh -c '"$0" -v --no-config -- true 2>&1; echo "inner=$?"' "$ISORUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"holders: every process read: the tree is on an overlay: turned off (ISORUN_TEST_FAULT)"*"inner=0" ]]
}

@test "as root, a holder of the inner tree through the outer run's path keeps it: 122, both trees kept" {
	export W_=$W H_=$H
	start_nested
	holder_in
	grep -F "inner=122" "$W/out"
	# named where the outer run's Landlock domain lets the inner one read it
	grep -e "pid $holder \`.* has its cwd in it ($home)" -e "a process outside isorun's reach could" "$W/out"
}

@test "as root, a holder in a mount namespace made before the outer run reaches the inner tree through the disk: 122" {
	export W_=$W H_=$H
	unshare -m --propagation private sh -c 'echo $$ >"$1/ns.tmp" && mv "$1/ns.tmp" "$1/ns.pid" &&
		exec "$2/waitfor" -t 600 "$1/ns.end"' sh "$W" "$H" <&- 3>&- &
	echo $! >"$W/ns.kill"
	"$H/waitfor" -t 60 "$W/ns.pid"
	start_nested -v
	holder_in nsenter -t "$(cat "$W/ns.pid")" -m
	# the walk of the namespaces finds it through the disk (the outer overlay has no copy there)
	grep -F "holders: the processes of the mount namespaces that show it bare read: mount namespace " "$W/out"
	# and the release proof watches the disk's inode, which the holder pins
	grep -F "inner=122" "$W/out"
	grep -e "pid $holder \`" -e "a process outside isorun's reach could" "$W/out"
}
