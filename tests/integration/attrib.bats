#!/usr/bin/env bats
# Attribution of findings (issue 14): which test was running (what the runner put in the
# environment), what started the process (the exec record), when; a timeout's tree; the
# folding of alike leaks.  Every assertion has its control: no runner, no attribution.

load helpers

# A leak started by a forked shell (its parent lives when it execs), as a test runner's
# child would be: `$1` is PYTEST_CURRENT_TEST, or empty for none.
leak_under_test() {
	local cur=$1
	shift
	if [ -n "$cur" ]; then
		export PYTEST_CURRENT_TEST="$cur"
	else
		unset PYTEST_CURRENT_TEST
	fi
	rm -f "$W/pid" # the shell waits for this run's process, not the last one's file
	run --separate-stderr iso --settle 0 --report "$W/r.json" "$@" -- \
		sh -c "$H/termignore $W/pid & $H/waitfor $W/pid"
	unset PYTEST_CURRENT_TEST
}

# the report's one leak's attribution, as JSON
attribution() {
	python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["leaks"]; assert len(l)==1, l; print(json.dumps(l[0]["attribution"], sort_keys=True))' "$W/r.json"
}

@test "a leak names the test pytest said was running, the chain that started it, and when" {
	leak_under_test 'tests/test_x.py::test_y (call)'
	[ "$status" -eq 122 ]
	pid=$(cat "$W/pid")
	[[ "$stderr" == *"isorun: leaked: pid $pid \`$H/termignore $W/pid\` (cwd "*", started "*" into the run, alive "*"); killed
isorun:   during test: tests/test_x.py::test_y (call)
isorun:   started by: sh -c ..."* ]]
	[ "$(attribution)" = '{"started_by": [["sh", "-c", "'"$H/termignore $W/pid & $H/waitfor $W/pid"'"]], "test": {"id": "tests/test_x.py::test_y", "phase": "call", "runner": "pytest"}, "why_not": null}' ]
	python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["leaks"][0]; assert l["argv"]==[sys.argv[2]+"/termignore", sys.argv[3]+"/pid"] and l["severity"]=="error" and l["exe"].endswith("/termignore") and l["started_ms"]>=0 and l["alive_ms"]>=0 and l["ppid"]>0, l' "$W/r.json" "$H" "$W"
	# control: no runner in the environment, no test named
	leak_under_test ''
	[ "$status" -eq 122 ]
	[[ "$stderr" != *"during test"* ]]
	[[ "$stderr" == *"started by: sh -c ..."* ]]
	[[ "$(attribution)" == *'"test": null'* ]]
}

@test "--pidns: the namespace's survivors are attributed the same way" {
	require "PID namespaces" iso --pidns -- true
	leak_under_test 'tests/test_x.py::test_y (setup)' --pidns
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"(pid "*" in the namespace) \`$H/termignore $W/pid\`"*"
isorun:   during test: tests/test_x.py::test_y (setup)
isorun:   started by: sh -c ..."* ]]
	[[ "$(attribution)" == *'"phase": "setup", "runner": "pytest"'* ]]
}

@test "--pidns: what the command starts before init has read its exec's word is the outer's to answer and record" {
	require "PID namespaces" iso --pidns -- true
	# late-exec-word: init's start loop looks at the exec's word only after a refusal,
	# as a loaded machine may (9 of 30 runs of the test above under two busy loops).
	# The child's exec, and the refused systemctl, come after the command's own exec:
	# init leaves them to the outer, which records the one and names the other's pid
	# as the host sees it.  Answered by init, the leak was "no exec of its own
	# recorded" and the refusal was reported twice, once by init.
	rm -f "$W/pid"
	run --separate-stderr env ISORUN_TEST_FAULT=late-exec-word timeout 60 \
		"$ISORUN" --no-config --root "$R" --pidns --settle 0 -- \
		sh -c "$H/termignore $W/pid & $H/waitfor $W/pid; systemctl restart isorun-test-unit 2>/dev/null; true"
	echo "$stderr"
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"\`$H/termignore $W/pid\`"*"
isorun:   started by: sh -c ..."* ]]
	[[ "$stderr" != *"attribution incomplete"* ]]
	[[ "$stderr" == *"FAILED (exit 122): 1 process outlived the command, 1 call refused" ]]
	assert_no_tree
}

@test "--pidns: the command's own exec is in the record (init answered it), read either way" {
	# the command renames itself before it starts the leak: the chain must show the
	# argv it was started with, which only the record of its exec has (/proc says
	# "renamed").  no-children-file finds init's child by the walk of every process.
	require "PID namespaces" iso --pidns -- true
	for fault in "" no-children-file; do
		rm -f "$W/pid"
		run --separate-stderr env ISORUN_TEST_FAULT="$fault" "$ISORUN" --no-config --root "$R" \
			--settle 0 --pidns -- perl -e '$0 = "renamed"; exec(@ARGV[0, 1]) if !fork; system($ARGV[2], $ARGV[1])' \
			"$H/termignore" "$W/pid" "$H/waitfor"
		[ "$status" -eq 122 ]
		[[ "$stderr" == *"isorun:   started by: perl -e ..."* ]]
	done
	# control: the same script's /proc view is the renamed one
	run perl -e '$0 = "renamed"; print `cat /proc/$$/cmdline`'
	[ "$output" = renamed ]
}

@test "a parent that waits for its child's exec and exits at once is still the one that started it" {
	# posix_spawn (CLONE_VFORK), as Go's cmd.Start() and Python's Popen: the
	# parent lives until the exec is answered, then ends.  The record is made
	# before the answer; slow-exec-record makes it late, as on a loaded machine
	# (made after the answer, it found the parent gone: "its parent had exited").
	# One exec: a PATH search would leave a record of an earlier, failed attempt
	for fault in "" slow-exec-record; do
		run --separate-stderr env ISORUN_TEST_FAULT="$fault" "$ISORUN" --no-config --root "$R" \
			--settle 0 -- "$H/spawnexit" /bin/sleep 300
		[ "$status" -eq 122 ]
		[[ "$stderr" == *"isorun: leaked: pid "*" \`/bin/sleep 300\`"*"
isorun:   started by: spawnexit /bin/sleep 300"* ]]
		[[ "$stderr" != *"attribution incomplete"* ]]
	done
}

@test "with start times for identities (a kernel before 6.13) the chain is the same" {
	# the record names processes by pidfs inode where PIDFD_GET_INFO answers (and
	# the numbers follow creation: 6.13 to 6.19), by /proc start time elsewhere;
	# no-pidfs forces the latter on this kernel
	run --separate-stderr iso -v -- true
	case $(uname -r) in
	6.1[3-9].*) [[ "$stderr" == *"exec record: processes named by pidfs inode number"* ]] ;;
	*) [[ "$stderr" == *"exec record: processes named by start time"* ]] ;;
	esac
	export ISORUN_TEST_FAULT=no-pidfs
	run --separate-stderr iso -v -- true
	[[ "$stderr" == *"exec record: processes named by start time"* ]]
	leak_under_test 'tests/test_x.py::test_y (call)'
	[ "$status" -eq 122 ]
	[ "$(attribution)" = '{"started_by": [["sh", "-c", "'"$H/termignore $W/pid & $H/waitfor $W/pid"'"]], "test": {"id": "tests/test_x.py::test_y", "phase": "call", "runner": "pytest"}, "why_not": null}' ]
	# two shells deep: the chain goes through both shells' records
	rm -f "$W/pid"
	run --separate-stderr iso --settle 0 --report "$W/r.json" -- \
		sh -c "sh -c '$H/termignore $W/pid & $H/waitfor $W/pid'"
	[ "$status" -eq 122 ]
	[[ "$(attribution)" == '{"started_by": [["sh", "-c", "sh -c '* ]]
	[[ "$(attribution)" == *'], ["sh", "-c", "'"$H/termignore $W/pid & $H/waitfor $W/pid"'"]], "test": null, "why_not": null}' ]]
	run --separate-stderr "$ISORUN" --no-config --root "$R" --settle 0 -- "$H/spawnexit" /bin/sleep 300
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"isorun:   started by: spawnexit /bin/sleep 300"* ]]
	unset ISORUN_TEST_FAULT
}

@test "--policy=off keeps no exec record: the leak says so, and still names the test" {
	leak_under_test 'tests/test_x.py::test_y (call)' --policy=off
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"isorun:   during test: tests/test_x.py::test_y (call)
isorun:   attribution incomplete: no exec record: the service guard, which records each exec, is off (--policy=off)"* ]]
	[[ "$stderr" != *"started by:"* ]]
	[[ "$(attribution)" == '{"started_by": null, '* ]]
}

@test "a process whose environment cannot be read says so instead of guessing" {
	# non-dumpable: only a tracer-capable reader (root) may read its environment
	run --separate-stderr env PYTEST_CURRENT_TEST='tests/t.py::test_z (call)' "$ISORUN" --no-config \
		--root "$R" --settle 0 -- /usr/bin/python3 -c '
import ctypes, os, signal, sys
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
if os.fork() == 0:
    os.setsid()
    open(sys.argv[1] + ".tmp", "w").write(str(os.getpid()))
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    signal.pause()
' "$W/pid"
	[ "$status" -eq 122 ]
	if [ "$(id -u)" -eq 0 ]; then
		[[ "$stderr" == *"during test: tests/t.py::test_z (call)"* ]]
	else
		[[ "$stderr" == *"attribution incomplete: "*"environment not readable: Permission denied"* ]]
		[[ "$stderr" != *"during test"* ]]
	fi
}

@test "a refused call is attributed like a leak" {
	mkdir -p "$W/bin"
	printf '#!/bin/sh\nexit 0\n' >"$W/bin/systemctl"
	chmod +x "$W/bin/systemctl"
	run --separate-stderr env PATH="$W/bin:$PATH" PYTEST_CURRENT_TEST='tests/t.py::test_svc (call)' \
		"$ISORUN" --no-config --root "$R" --report "$W/r.json" -- sh -c 'systemctl restart x; true'
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"isorun: refused: execve \`systemctl restart x\` (pid "*", process started "*" into the run)
isorun:   during test: tests/t.py::test_svc (call)"* ]]
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["policy"]["refused"][0]; assert r["attribution"]["test"]["id"]=="tests/t.py::test_svc" and r["started_ms"]>=0, r' "$W/r.json"
	# control: without the runner's variable the refusal names no test
	run --separate-stderr env PATH="$W/bin:$PATH" "$ISORUN" --no-config --root "$R" -- sh -c 'systemctl restart x; true'
	[ "$status" -eq 122 ]
	[[ "$stderr" != *"during test"* ]]
}

# A command that hangs: a SIGTERM-ignoring child and a sleep, under --timeout.
hang() {
	run --separate-stderr iso --timeout 2s --grace 1s --report "$W/r.json" "$@" -- \
		sh -c "$H/termignore $W/pid & $H/waitfor $W/pid; exec sleep 600"
}

assert_hung_report() {
	local pid=$1
	[ "$status" -eq 124 ]
	[[ "$stderr" == *"isorun: timed out after "*"; the tree then:"* ]]
	grep -qE "^isorun:   pid [0-9]+ \(parent [0-9]+, state S, running [^)]+\) \`sleep 600\`$" <<<"$stderr"
	grep -qE "^isorun:   pid [0-9]+ \(parent [0-9]+, state S, running [^)]+\) \`$H/termignore $W/pid\`$" <<<"$stderr"
	[[ "$stderr" == *"isorun: sent SIGTERM; SIGKILL in 1s
"* ]]
	grep -qE "^isorun: still alive after the 1s grace, killed: pid $pid \`$H/termignore $W/pid\`$" <<<"$stderr"
	# sleep went with SIGTERM: only the one that ignored it is named
	[ "$(grep -c 'still alive after' <<<"$stderr")" -eq 1 ]
	python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["timeout"]
assert t["signal"] == "SIGTERM" and t["grace_ms"] == 1000 and t["after_ms"] >= 2000, t
argvs = sorted(p["argv"][0] for p in t["processes"])
assert argvs == [sys.argv[2] + "/termignore", "sleep"], argvs
assert all(p["alive_ms"] >= 0 and p["state"] and "attribution" in p for p in t["processes"]), t
assert [s["pid"] for s in t["survived_grace"]] == [int(sys.argv[3])], t
' "$W/r.json" "$H" "$pid"
}

@test "a timeout lists the tree it stopped, the stop it sent, and who outlived the grace" {
	hang
	assert_hung_report "$(cat "$W/pid")"
	# control: a run that ends in time has no tree to show
	run --separate-stderr iso --timeout 30s --report "$W/r.json" -- true
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"the tree then"* ]]
	python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["timeout"] is None' "$W/r.json"
}

@test "--pidns: a timeout lists the namespace's tree the same way" {
	require "PID namespaces" iso --pidns -- true
	hang --pidns
	# the pidfile holds the pid inside: the survivor is named by the outer one
	[[ "$stderr" == *"still alive after the 1s grace, killed: pid "*" \`$H/termignore $W/pid\`"* ]]
	pid=$(sed -n "s/^isorun: still alive after the 1s grace, killed: pid \([0-9]*\) .*/\1/p" <<<"$stderr")
	assert_hung_report "$pid"
}

@test "a cancel lists the tree too, with the signal it passed on" {
	"$ISORUN" --no-config --root "$R" --grace 1s -- sh -c "$H/termignore $W/pid & exec sleep 600" \
		2>"$W/err" 3>&- &
	iso_pid=$!
	"$H/waitfor" "$W/pid"
	# and the shell has become `sleep 600` (its exec may come after termignore is ready)
	cmd=$(awk '{ print $4 }' "/proc/$(cat "$W/pid")/stat")
	timeout 60 sh -c 'until [ "$(cat "/proc/$1/comm")" = sleep ]; do :; done' sh "$cmd"
	kill -TERM "$iso_pid"
	status=0
	wait "$iso_pid" || status=$?
	[ "$status" -eq 143 ]
	grep -q "^isorun: cancelled by SIGTERM after .*; the tree then:$" "$W/err"
	grep -q "^isorun:   pid [0-9]* (parent [0-9]*, state S, running .*) \`sleep 600\`$" "$W/err"
	grep -q "^isorun: sent SIGTERM to the command's process group, SIGTERM to the rest; SIGKILL in 1s$" "$W/err"
	grep -q "^isorun: still alive after the 1s grace, killed: pid $(cat "$W/pid") " "$W/err"
}

@test "more than three alike leaks fold into one line; the report keeps them all" {
	# Popen returns once the child exec'd: every leak is `sleep 600` when the gate looks
	run --separate-stderr iso --settle 0 --report "$W/r.json" -- /usr/bin/python3 -c \
		'import subprocess; [subprocess.Popen(["sleep", "600"]) for _ in range(5)]'
	[ "$status" -eq 122 ]
	[ "$(grep -c '^isorun: leaked' <<<"$stderr")" -eq 1 ]
	grep -qE '^isorun: leaked: 5 processes `sleep 600` \(pids [0-9]+, [0-9]+, [0-9]+ and 2 more; the first: cwd' <<<"$stderr"
	[[ "$stderr" == *"; all killed"* ]]
	[[ "${stderr_lines[-1]}" == "isorun: FAILED (exit 122): 5 processes outlived the command" ]]
	python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["leaks"]; assert len(l)==5 and all(x["argv"]==["sleep","600"] for x in l), l' "$W/r.json"
	# control: three alike stay three lines
	run --separate-stderr iso --settle 0 -- /usr/bin/python3 -c \
		'import subprocess; [subprocess.Popen(["sleep", "600"]) for _ in range(3)]'
	[ "$status" -eq 122 ]
	[ "$(grep -c '^isorun: leaked: pid [0-9]* `sleep 600`' <<<"$stderr")" -eq 3 ]
}

@test "a leak nothing closer names is during the test the runner named for the run: prove's script, bazel's target" {
	mkdir -p "$W/t"
	printf '%s\n' "$H/termignore $W/pid & $H/waitfor $W/pid" >"$W/t/x.t"
	cd "$W"
	# prove's child: the script runs as `EXEC t/x.t`, HARNESS_ACTIVE in isorun's environment
	run --separate-stderr env HARNESS_ACTIVE=1 "$ISORUN" --no-config --root "$R" --settle 0 \
		--report "$W/r.json" -- sh t/x.t
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"isorun: leaked: pid $(cat "$W/pid") "*"
isorun:   during prove: t/x.t
isorun:   started by: sh t/x.t"* ]]
	[[ "$(attribution)" == *'"test": {"id": "t/x.t", "phase": null, "runner": "prove"}'* ]]
	# bazel's target, the leak's own environment emptied: the run's target still names it
	rm -f "$W/pid"
	run --separate-stderr env TEST_TARGET=//pkg:unit "$ISORUN" --no-config --root "$R" --settle 0 \
		--report "$W/r.json" -- sh -c "env -i $H/termignore $W/pid & $H/waitfor $W/pid"
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"isorun:   during bazel: //pkg:unit"* ]]
	# what the leak's own environment says is closer: pytest's test wins over prove's script
	rm -f "$W/pid"
	run --separate-stderr env HARNESS_ACTIVE=1 PYTEST_CURRENT_TEST='tests/t.py::test_z (call)' \
		"$ISORUN" --no-config --root "$R" --settle 0 --report "$W/r.json" -- sh t/x.t
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"isorun:   during test: tests/t.py::test_z (call)"* ]]
	[[ "$stderr" != *"during prove"* ]]
	# control: no runner named the run, no test named
	rm -f "$W/pid"
	run --separate-stderr env -u HARNESS_ACTIVE -u TEST_TARGET "$ISORUN" --no-config --root "$R" \
		--settle 0 --report "$W/r.json" -- sh t/x.t
	[ "$status" -eq 122 ]
	[[ "$stderr" != *"during"* ]]
	[[ "$(attribution)" == *'"test": null'* ]]
	assert_no_tree
}
