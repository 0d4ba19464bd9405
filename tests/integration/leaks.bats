#!/usr/bin/env bats
# The leak gate: whatever outlives the command is named, killed, and fails the run.

load helpers

@test "a setsid double-forked daemon is named (pid, command line, cwd), killed, and fails the run" {
	run --separate-stderr iso --settle 0 --chdir "$W" -- "$H/daemonize" -n "$W/pid" "$H/termignore"
	[ "$status" -eq 122 ]
	pid=$(cat "$W/pid")
	[[ "$stderr" == *"isorun: leaked: pid $pid \`$H/termignore\` (cwd $W, session "*", alive "*" after the command); killed"* ]]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 122): 1 process outlived the command" ]
	assert_dead "$pid"
	assert_no_tree
}

@test "a background process that ignores SIGTERM is named and killed" {
	run iso --settle 0 -- sh -c "$H/termignore $W/pid >/dev/null & $H/waitfor $W/pid"
	[ "$status" -eq 122 ]
	pid=$(cat "$W/pid")
	[[ "$output" == *"leaked: pid $pid"* ]]
	assert_dead "$pid"
}

@test "a process that keeps forking cannot outrun the kill" {
	run iso --settle 0 -- sh -c "$H/forkloop $W/pid 100000 >/dev/null 2>&1 &"
	[ "$status" -eq 122 ]
	[[ "$output" == *"leaked: pid"* ]]
	# nothing whose command line carries this test's path survives
	run pgrep -f "$W/pid"
	[ "$status" -eq 1 ]
}

@test "a wide fork tree in its own session is killed whole" {
	run iso --settle 0 -- "$H/daemonize" -n "$W/pid" "$H/forkloop" -w 2 "$W/pid2" 64
	[ "$status" -eq 122 ]
	run pgrep -f "$W/pid2"
	[ "$status" -eq 1 ]
}

@test "a survivor that exits inside the settle window is not reported as a leak; the wait's one line names it" {
	run --separate-stderr iso --settle 30s -- "$H/outlive" "$W/marker"
	[ "$status" -eq 0 ]
	# the survivor leaves right after the command: the wait's line is there only
	# when isorun saw it before it left, and nothing else ever is
	[ "${#stderr_lines[@]}" -le 1 ]
	[ -z "$stderr" ] ||
		[[ "${stderr_lines[0]}" == "isorun: command exited 0; 1 process still running (pid "*" \`outlive\`); waiting up to 30s (--settle)" ]]
	assert_no_tree
}

@test "control: the same kind of survivor that does not exit is reported" {
	run iso --settle 0 -- "$H/daemonize" -n "$W/pid"
	[ "$status" -eq 122 ]
	[[ "$output" == *"leaked: pid $(cat "$W/pid")"* ]]
}

@test "--leaks=warn still kills but does not fail; --leaks=ignore is silent" {
	run iso --settle 0 --leaks=warn -- "$H/daemonize" -n "$W/pid"
	[ "$status" -eq 0 ]
	[[ "$output" == *"leaked (warning): pid $(cat "$W/pid")"* ]]
	assert_dead "$(cat "$W/pid")"
	run --separate-stderr iso --settle 0 --leaks=ignore --report "$W/r.json" -- "$H/daemonize" -n "$W/pid2"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	assert_dead "$(cat "$W/pid2")"
	grep -q "\"pid\": $(cat "$W/pid2")" "$W/r.json"
}

@test "without a subreaper the leak check says not measurable, never that it passed" {
	require "seccomp filters" "$H/nosubreaper" true
	run --separate-stderr "$H/nosubreaper" "$ISORUN" --root "$R" --settle 0 -- true
	[[ "$stderr" == *"isorun: leak check: not measurable (prctl(PR_SET_CHILD_SUBREAPER): Invalid argument)"* ]]
	[[ "$stderr" != *passed* ]]
	# no join can be proven, so the tree is kept and the run fails
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"tree retained at $U/"* ]]
	force_remove "$(the_tree)"
}
