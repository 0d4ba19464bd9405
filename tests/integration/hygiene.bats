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

@test "the command gets the caller's ignores and mask, not isorun's (SIGPIPE, 32, SIGCHLD)" {
	# isorun ignores SIGPIPE and blocks every signal for itself: none of it leaks
	run --separate-stderr "$H/sigexec" "$ISORUN" --root "$R" -- "$H/fdlist"
	printf "%s\n" "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "sigblk: 0000000000000000" ]
	[ "${lines[2]}" = "sigign: 0000000000000000" ]
	[ "${lines[3]}" = "sigpipe: default" ]
}

# SigIgn and SigBlk of the command, bare and under isorun with $@, from one caller state
sigstate_same() {
	local bare under
	bare=$("$H/sigexec" $CALLER grep -E '^Sig(Ign|Blk)' /proc/self/status)
	under=$("$H/sigexec" $CALLER "$ISORUN" --no-config --root "$R" "$@" -- \
		grep -E '^Sig(Ign|Blk)' /proc/self/status)
	echo "caller $CALLER $*: bare '$bare', isorun '$under'"
	[ -n "$bare" ] && [ "$bare" = "$under" ]
}

@test "an ignore or a block the caller handed on reaches the command as exec(2) keeps it" {
	local mode modes=("" --policy=off)
	"$ISORUN" --no-config --root "$R" --pidns -- true 2>/dev/null && modes+=(--pidns)
	for mode in "${modes[@]}"; do
		# nohup; a background job's SIGINT and SIGQUIT; SIGPIPE, which isorun ignores
		# itself; SIGCHLD, ignored (auto-reap) and blocked; glibc's 32 and 33
		for CALLER in "-i 1" "-i 2 -i 3" "-i 13" "-i 17" "-b 17" "-i 32 -b 33" \
			"-i 1 -i 2 -b 10 -b 15 -b 17"; do
			sigstate_same $mode
		done
	done
	# the shell's own spelling, as the issue has it
	run sh -c "trap '' HUP INT; grep SigIgn /proc/self/status; \"$ISORUN\" --no-config \
		--root \"$R\" -- grep SigIgn /proc/self/status"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "${lines[1]}" ]
	[ "${lines[0]}" != "SigIgn:	0000000000000000" ]
}

@test "the command runs in a process group of its own" {
	run iso -- sh -c 'ps -o pid=,pgid= -p $$'
	set -- $output
	[ "$1" = "$2" ]
}
