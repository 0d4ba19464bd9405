#!/usr/bin/env bats
# isorun's own start: hostile standard descriptors, a parent that refuses the
# calls isorun needs before the exec, output that cannot be written, and option
# values that would point into isorun's own records.

load helpers

userns_ok() {
	unshare -Urpf --mount-proc --propagation slave true
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
			# init closes the outer's descriptors before the command's own close
			[ "$call" != close_range ] ||
				step="close the outer's descriptors in init (close_range)"
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
	# root's --pidns drops bits with prctl as above (and init needs prctl itself)
	if [ "$(id -u)" -eq 0 ]; then
		return 0
	fi
	require "user and PID namespaces" userns_ok
	# inside an ordinary user's namespace the command's set is emptied: capset
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

# A refused option value: 125, the one line given, nothing created.
refused() {
	local expect=$1
	shift
	run --separate-stderr iso "$@"
	if [ "$status" -ne 125 ] || [ "${stderr_lines[0]}" != "$expect" ]; then
		echo "for '$*': status $status, stderr: $stderr" >&2
		return 1
	fi
	[ ! -e "$U" ] || assert_no_tree
}

@test "--env-dir never points at isorun's own records in the tree" {
	local sub
	# every record of the tree (tree/tree.h tree_records), the run's cgroup's too
	for sub in cgroup cgroup/x lock owner outcome outcome.tmp empty lock/x owner/sub/dir; do
		refused "isorun: --env-dir: 'V=$sub' would point V at isorun's own '${sub%%/*}' in the tree; choose another SUBDIR" \
			--env-dir "V=$sub" -- true
	done
	# the other spellings of a way out or back in stay refused
	for sub in .. ../x /abs home/../lock ./lock lock/ "" ; do
		refused "isorun: --env-dir: expected VAR=SUBDIR with a relative SUBDIR inside the tree, got 'V=$sub'" \
			--env-dir "V=$sub" -- true
	done
	# the same from isorun.conf, named by file and line
	printf '[isorun]\nenv-dir = V=cgroup\n' >"$W/isorun.conf"
	run --separate-stderr "$ISORUN" --root "$R" --config "$W/isorun.conf" -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"isorun.conf:2"*"would point V at isorun's own 'cgroup'"* ]]
	# a name that only starts like one, or sits below the command's own directory, is its own
	run iso --env-dir V=locks --env-dir W=home/lock --env-dir X=cgroups --env-dir Y=tmp/cgroup \
		-- sh -c 'test -d "$V" && test -d "$W" && test -d "$X" && test -d "$Y"'
	[ "$status" -eq 0 ]
	assert_no_tree
}

@test "directories the command makes under the names of isorun's records are its own: removed with the tree" {
	# --cgroup=off: with a cgroup, isorun's own record holds the name `cgroup`
	run --separate-stderr iso --cgroup=off -- sh -c \
		'cd "$HOME/.." && mkdir -p cgroup/a outcome.tmp lock/b && echo x >lock/b/f'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	assert_no_tree
}

@test "--pass-fd: at most 64 descriptors, said at parse time; bad numbers refused" {
	local args=() i
	for i in $(seq 10 74); do args+=(--pass-fd "$i"); done
	refused "isorun: --pass-fd: at most 64 descriptors, got one more ('74')" "${args[@]}" -- true
	for i in 0 1 2 -1 -5 x 5x "" " 5" +5 99999999999; do
		refused "isorun: --pass-fd: expected a descriptor number >= 3, got '$i'" --pass-fd "$i" -- true
	done
	# 64 distinct descriptors, one of them given twice, all reach the command
	run bash -c '
		args=()
		for i in $(seq 10 73); do eval "exec $i</dev/null"; args+=(--pass-fd "$i"); done
		exec "$0" --no-config --root "$1" "${args[@]}" --pass-fd 10 -- "$2/fdlist"' \
		"$ISORUN" "$R" "$H"
	[ "$status" -eq 0 ]
	[[ "$output" == "fds: 0 1 2 $(seq -s ' ' 10 73)"* ]]
	assert_no_tree
}

# isorun with its standard descriptors redirected (or closed): $1 the redirections.
iso_redir() {
	local redir=$1
	shift
	eval '"$ISORUN" --no-config --root "$R" "$@" '"$redir"
}

@test "with fd 0, 1 or 2 closed, the output goes nowhere of isorun's own and the report stays JSON" {
	local redir tree
	for redir in '<&-' '>&-' '2>&-' '<&- >&-' '<&- 2>&-' '>&- 2>&-' '<&- >&- 2>&-'; do
		rm -f "$W/r.json"
		run iso_redir "$redir" --keep --report "$W/r.json" -- \
			sh -c 'readlink /proc/self/fd/0; echo out; echo err >&2; exit 3'
		if [ "$status" -ne 3 ]; then
			echo "with $redir: status $status" >&2
			return 1
		fi
		python3 -m json.tool "$W/r.json" >/dev/null
		python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["result"]["exit_code"] == 3 and r["exit"] == 3, r["result"]
t = r["output_tail"]
# fds 1 and 2 still open are the one pipe of the bats run: one stream, in order
if t.get("merged"):
    out, err = t["stdout"], None
    assert t["stderr"] is None and out.endswith("\nout\nerr\n"), t
else:
    out, err = t["stdout"], t["stderr"]
    assert out.endswith("\nout\n") and err == "err\n", t
# a closed stdin is the null device for the command too
if "<&-" in sys.argv[2]:
    assert out.startswith("/dev/null\nout\n"), t
' "$W/r.json" "$redir"
		tree=$(the_tree)
		[ -n "$tree" ]
		# no file of the tree, isorun's records included, took the output
		if grep -rlE '^(out|err)$' "$tree"; then
			echo "with $redir: the output went into the tree" >&2
			return 1
		fi
		force_remove "$tree"
		# a finding: isorun's own lines go to the null device, not into a file
		rm -f "$W/r.json"
		run iso_redir "$redir" --settle 0 --report "$W/r.json" -- \
			sh -c "$H/daemonize -n $W/pid"
		[ "$status" -eq 122 ]
		assert_dead "$(cat "$W/pid")"
		python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["exit"] == 122 and len(r["leaks"]) == 1, r
' "$W/r.json"
		assert_no_tree
	done
}

@test "relayed output that cannot be written fails the run: 122, or the command's own failure" {
	run --separate-stderr iso_redir '>/dev/full' -- echo hi
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"isorun: stdout: write failed: No space left on device (3 bytes lost)"* ]]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 122): stdout lost" ]
	# stderr itself is the lost one: the code is the only evidence left
	run iso_redir '2>/dev/full' -- sh -c 'echo hi >&2'
	[ "$status" -eq 122 ]
	[ -z "$output" ]
	# both
	run iso_redir '>/dev/full 2>&1' -- sh -c 'echo hi; echo ho >&2'
	[ "$status" -eq 122 ]
	# a failing command keeps its own code; the loss is named beside it
	run --separate-stderr iso_redir '>/dev/full' --report "$W/r.json" -- sh -c 'echo hi; exit 3'
	[ "$status" -eq 3 ]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 3): command exited 3, stdout lost" ]
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["output_lost"] == {"stdout": {"error": "No space left on device", "bytes": 3}, "stderr": None}, r["output_lost"]
assert r["exit"] == 3, r["exit"]
' "$W/r.json"
	# --finding-exit-code is the code of a lost output too
	run iso_redir '>/dev/full' --finding-exit-code 99 -- echo hi
	[ "$status" -eq 99 ]
	# under --pidns the same
	if userns_ok >/dev/null 2>&1; then
		run iso_redir '>/dev/full' --pidns -- echo hi
		[ "$status" -eq 122 ]
	fi
	assert_no_tree
}

@test "a report that cannot be written fails the run and names the report" {
	run --separate-stderr iso --report /dev/full -- echo hi
	[ "$status" -eq 122 ]
	[ "$output" = hi ]
	[[ "$stderr" == *"isorun: --report: write '/dev/full': No space left on device"* ]]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 122): report not written" ]
	run --separate-stderr iso --report /dev/full -- sh -c 'exit 4'
	[ "$status" -eq 4 ]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 4): command exited 4, report not written" ]
	assert_no_tree
	# a full file system: nothing half-written is left to be taken for a report
	require "user and mount namespaces" unshare -rm --propagation slave true
	mkdir "$W/full"
	run --separate-stderr unshare -rm --propagation slave sh -c '
		mount -t tmpfs -o size=8k none "$1" && head -c 8192 /dev/zero >"$1/fill"
		"$2" --no-config --root "$3" --report "$1/r.json" -- echo hi; echo "rc=$?"
		wc -c <"$1/r.json"' _ "$W/full" "$ISORUN" "$R"
	[ "${lines[1]}" = "rc=122" ]
	[ "${lines[2]}" = 0 ]
	[[ "$stderr" == *"isorun: --report: write '$W/full/r.json': No space left on device"* ]]
	assert_no_tree
}

@test "isorun -- yes | head -1: the reader leaving is not a failure; yes runs on until --timeout" {
	# as documented: isorun drains and drops what nobody reads, and says nothing of it
	run --separate-stderr bash -c 'set -o pipefail
		"$0" --no-config --root "$1" --timeout 1s -- yes | head -1' "$ISORUN" "$R"
	[ "$status" -eq 124 ]
	[ "$output" = y ]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 124): timed out" ]
	[[ "$stderr" != *"write failed"* ]]
	# a command that ends by itself keeps its own code: more than the pipes hold, unread
	run --separate-stderr bash -c 'set -o pipefail
		"$0" --no-config --root "$1" -- seq 1 1000000 | head -1' "$ISORUN" "$R"
	[ "$status" -eq 0 ]
	[ "$output" = 1 ]
	[ -z "$stderr" ]
	assert_no_tree
}

# A step of isorun's that fails after the command started (ISORUN_TEST_FAULT stands in
# for a failure to watch the seccomp listener): what runs is stopped and reaped before
# anything is removed, the tree goes by the usual rules, and the run is a 125.
after_start_failure() {
	ISORUN_TEST_FAULT=after-start run --separate-stderr "$ISORUN" --root "$R" --no-config \
		--report "$W/r.json" "$@" -- sh -c "$H/termignore $W/pid & exec $H/waitfor -t 600 $W/never"
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"supervise the command (ISORUN_TEST_FAULT)"* ]]
	[[ "$stderr" == *"FAILED (exit 125): setup failed after the command started; it was stopped"* ]]
	run pgrep -f "$W/never"
	[ "$status" -eq 1 ]
	run pgrep -f "$H/termignore $W/pid"
	[ "$status" -eq 1 ]
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["exit"] == 125, r
assert "ISORUN_TEST_FAULT" in r["result"]["setup_error"], r["result"]
assert r["tree"]["state"] == sys.argv[2], r["tree"]' "$W/r.json" "$TREE_STATE"
}

@test "a failure after the command started stops and reaps it before the tree goes (125)" {
	TREE_STATE=removed after_start_failure
	assert_no_tree
	TREE_STATE=kept after_start_failure --keep
	[ -n "$(ls -A "$U")" ]
}

@test "--pidns: a failure after the command started stops and reaps it before the tree goes (125)" {
	require "user and PID namespaces" userns_ok
	TREE_STATE=removed after_start_failure --pidns
	assert_no_tree
}
