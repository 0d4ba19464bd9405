#!/usr/bin/env bats
# The exit status is a contract (docs/contract.md, "Exit codes").

load helpers

@test "a clean command prints nothing, exits 0 and removes its tree" {
	run --separate-stderr iso -- true
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
	assert_no_tree
}

@test "every exit code 0-255 of the command passes through untouched" {
	for c in $(seq 0 255); do
		run -"$c" iso -q -- sh -c "exit $c"
		if [ "$status" -ne "$c" ]; then
			echo "exit $c came back as $status" >&2
			return 1
		fi
	done
	assert_no_tree
}

@test "under init (--pidns, --protect-home, --net, --private-tmp) the command's code survives however init's end and its last message race" {
	unshare -Urpf --mount-proc --propagation slave true 2>/dev/null || skip "user and PID namespaces not available here"
	# init sends the status, then exits: the supervisor may see the exit first (the
	# SIGCHLD, or the run's cgroup going empty); 20 runs of each lost it ~30% before
	for opt in --pidns --protect-home=ro --net=isolated --private-tmp; do
		for i in $(seq 20); do
			run -3 iso -q "$opt" -- sh -c 'exit 3'
			if [ "$status" -ne 3 ]; then
				echo "$opt, run $i: exit 3 came back as $status" >&2
				return 1
			fi
		done
	done
	assert_no_tree
}

@test "a failing command keeps its own code and ends with the verdict line" {
	run --separate-stderr iso -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 3): command exited 3" ]
}

@test "a command killed by signal N gives 128+N" {
	run iso -- sh -c 'kill -KILL $$'
	[ "$status" -eq 137 ]
	[[ "$output" == *"command killed by SIGKILL"* ]]
}

@test "a command that succeeded but leaked gives 122; --finding-exit-code changes it" {
	run iso --settle 0 -- sh -c "$H/daemonize -n $W/pid"
	[ "$status" -eq 122 ]
	assert_dead "$(cat "$W/pid")"
	run iso --settle 0 --finding-exit-code 99 -- sh -c "$H/daemonize -n $W/pid2"
	[ "$status" -eq 99 ]
	assert_dead "$(cat "$W/pid2")"
}

@test "a failing command that also leaked keeps its own code" {
	run iso --settle 0 -- sh -c "$H/daemonize -n $W/pid; exit 4"
	[ "$status" -eq 4 ]
	[[ "$output" == *"leaked: pid $(cat "$W/pid")"* ]]
	[[ "$output" == *"FAILED (exit 4): command exited 4, 1 process outlived the command"* ]]
}

@test "--timeout gives 124" {
	run iso --timeout 200ms --grace 100ms -- "$H/termignore"
	[ "$status" -eq 124 ]
	[[ "$output" == *"timed out after"* ]]
	assert_no_tree
}

@test "a bad option gives 125 with one line naming it, and leaves nothing" {
	run --separate-stderr iso --timeout soon -- true
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: --timeout: invalid duration 'soon' (examples: 90s, 5m, 1h30m)" ]
	[ ! -e "$U" ]
}

@test "not executable gives 126, not found gives 127, and the report tells them from the command's own" {
	printf 'data\n' >"$W/plain"
	run iso -- "$W/plain"
	[ "$status" -eq 126 ]
	[[ "$output" == *"Permission denied"* ]]
	run -127 iso --report "$W/nf.json" -- no-such-command-anywhere
	[ "$status" -eq 127 ]
	[[ "$output" == *"FAILED (exit 127): command not found"* ]]
	# a PATH directory we may not search does not turn "not found" into 126
	mkdir -m 000 "$W/locked"
	run -127 env PATH="$W/locked:$PATH" "$ISORUN" --root "$R" -- no-such-command-anywhere
	run -127 iso --report "$W/own.json" -- sh -c "exit 127"
	[ "$status" -eq 127 ]
	python3 - "$W/nf.json" "$W/own.json" <<'PY'
import json, sys
nf, own = (json.load(open(p)) for p in sys.argv[1:])
assert nf["result"]["exec_failed"] is True and nf["exit"] == 127, nf["result"]
assert "No such file" in nf["result"]["exec_error"]
assert own["result"]["exec_failed"] is False and own["result"]["exit_code"] == 127, own["result"]
PY
	assert_no_tree
}

@test "a script without #! runs under sh with its arguments, as execvp() does, the guard still on" {
	printf 'echo "ran $0 with $1 $2"\nexit 7\n' >"$W/nobang"
	chmod +x "$W/nobang"
	run iso -- "$W/nobang" one two
	[ "$status" -eq 7 ]
	[ "${lines[0]}" = "ran $W/nobang with one two" ]
	# the fallback's exec of sh is an exec like any other: a guarded verb inside is refused
	mkdir "$W/bin"
	printf '#!/bin/sh\necho "standin ran: $*"\n' >"$W/bin/systemctl"
	chmod +x "$W/bin/systemctl"
	printf 'systemctl restart nginx\n' >"$W/restarts"
	chmod +x "$W/restarts"
	run env PATH="$W/bin:$PATH" "$ISORUN" --no-config --root "$R" -- "$W/restarts"
	[ "$status" -ne 0 ]
	[[ "$output" == *"refused: execve \`systemctl restart nginx\`"* ]]
	[[ "$output" != *"standin ran"* ]]
	assert_no_tree
}
