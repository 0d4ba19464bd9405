#!/usr/bin/env bats
# isorun's own start: hostile standard descriptors, a parent that refuses the
# calls isorun needs before the exec, output that cannot be written, and option
# values that would point into isorun's own records.

load helpers

userns_ok() {
	unshare -Urpf --mount-proc true
}

# A step before the exec refused: exit 125 with a message naming the step, never
# the command's 126 nor an empty message.  $1: the words the message must hold.
assert_setup_step() {
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"$1"*"Operation not permitted"* ]]
	[[ "$stderr" != *"cannot run the command"* ]]
	[[ "$stderr" != *"isorun: : "* ]]
	[[ "$stderr" == *"FAILED (exit 125): setup failed before the command ran"* ]]
	[ ! -e "$U" ] || assert_no_tree
}

@test "a refused seccomp(2) is a setup failure (125) naming the filter, in both modes" {
	run --separate-stderr "$H/denycall" seccomp "$ISORUN" --root "$R" --no-config -- true
	assert_setup_step "install the command's seccomp filter"
	run --separate-stderr "$H/denycall" seccomp "$ISORUN" --root "$R" --no-config \
		--report "$W/r.json" -- true
	assert_setup_step "seccomp filter"
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["exit"]==125 and not r["result"]["exec_failed"], r' "$W/r.json"
	require "user and PID namespaces" userns_ok
	run --separate-stderr "$H/denycall" seccomp "$ISORUN" --root "$R" --no-config --pidns -- true
	assert_setup_step "install the command's seccomp filter"
}

@test "each refused step before the exec is named, with 125, in both modes" {
	local call step
	# the steps every user goes through, root or not
	for call in setpgid dup2 close_range; do
		case $call in
		setpgid) step="process group of its own (setpgid)" ;;
		dup2) step="put the stdout pipe on fd 1 (dup2)" ;;
		close_range) step="close isorun's own descriptors (close_range)" ;;
		esac
		run --separate-stderr "$H/denycall" "$call" "$ISORUN" --root "$R" --no-config \
			-- true </dev/null >"$W/out"
		assert_setup_step "$step"
		if userns_ok >/dev/null 2>&1; then
			run --separate-stderr "$H/denycall" "$call" "$ISORUN" --root "$R" \
				--no-config --pidns -- true </dev/null >"$W/out"
			assert_setup_step "$step"
		fi
	done
	# --chdir: checked first, then entered by the child
	run --separate-stderr "$H/denycall" chdir "$ISORUN" --root "$R" --no-config \
		--chdir "$W" -- true
	assert_setup_step "--chdir '$W'"
}

@test "refused capability calls are a setup failure naming the privilege step" {
	# root drops its dangerous bounding-set bits (prctl); a user clears ambient (prctl)
	run --separate-stderr "$H/denycall" prctl "$ISORUN" --root "$R" --no-config -- true
	assert_setup_step "drop the command's privileges: "
	require "user and PID namespaces" userns_ok
	# inside the namespace the command's set is emptied: capset
	run --separate-stderr "$H/denycall" capset "$ISORUN" --root "$R" --no-config --pidns -- true
	assert_setup_step "drop the command's privileges: "
}

@test "a command that cannot be executed is still 126/127, in both modes" {
	run --separate-stderr iso -- "$W"
	[ "$status" -eq 126 ]
	run -127 --separate-stderr iso -- /nonexistent/cmd
	[ "$status" -eq 127 ]
	require "user and PID namespaces" userns_ok
	run --separate-stderr iso --pidns -- "$W"
	[ "$status" -eq 126 ]
	[[ "$stderr" == *"cannot run the command"* ]]
	assert_no_tree
}
