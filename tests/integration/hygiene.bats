#!/usr/bin/env bats
# What the command receives: fds 0-2 (+ --pass-fd), a clean signal state, no internals.

load helpers

@test "stray fds are not inherited; only 0, 1 and 2 arrive" {
	exec 7>"$W/seven" 8<"$W/seven"
	run --separate-stderr iso -- "$H/fdlist"
	exec 7>&- 8<&-
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "fds: 0 1 2" ]
}

@test "--pass-fd N lets exactly that fd through" {
	exec 7>"$W/seven" 9>"$W/nine"
	run --separate-stderr iso --pass-fd 9 -- "$H/fdlist"
	exec 7>&- 9>&-
	[ "${lines[0]}" = "fds: 0 1 2 9" ]
	run --separate-stderr iso --pass-fd 9 -- true
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: --pass-fd 9: Bad file descriptor" ]
	assert_no_tree
}

@test "the command gets an empty signal mask and default dispositions, SIGPIPE included" {
	# the caller ignores SIGPIPE and SIGINT; the command must not inherit that
	run --separate-stderr sh -c "trap '' PIPE INT; exec \"$ISORUN\" --root \"$R\" -- \"$H/fdlist\""
	printf "%s\n" "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "sigblk: 0000000000000000" ]
	[ "${lines[2]}" = "sigign: 0000000000000000" ]
	[ "${lines[3]}" = "sigpipe: default" ]
}

@test "the command runs in a process group of its own" {
	run iso -- sh -c 'ps -o pid=,pgid= -p $$'
	set -- $output
	[ "$1" = "$2" ]
}
