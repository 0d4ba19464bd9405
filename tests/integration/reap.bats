#!/usr/bin/env bats
# Reaping, storms and deadlines: what is alive is named by its own pid, whatever its
# threads or namespaces do, and every phase after the command's exit ends in time.

load helpers

# Start isorun in the background; its pid in $ISOPID, its stderr in $W/err.
start_iso() {
	"$ISORUN" --no-config --policy=off --root "$R" "$@" >"$W/out" 2>"$W/err" 3>&- &
	ISOPID=$!
}

finish_iso() {
	wait "$ISOPID" && rc=0 || rc=$?
	# shown only if the test fails
	echo "isorun exited $rc; its stderr:" >&2
	cat "$W/err" >&2
}

pidns_ok() {
	"$ISORUN" --no-config --policy=off --root "$R" --pidns -- true
}

@test "--pidns: a leak in a nested PID namespace is named by its pid in isorun's namespace" {
	require "PID namespaces" pidns_ok
	require "nested user+PID namespaces" unshare -Upf true
	# the leak's pid as the test (isorun's namespace) sees it is the ground truth
	start_iso --pidns --settle 1s -- sh -c \
		"setsid unshare -Upf $H/termignore $W/nested & $H/waitfor -t 600 $W/go"
	"$H/waitfor" "$W/nested"
	host=$(pgrep -fx "$H/termignore $W/nested")
	[ -n "$host" ]
	touch "$W/go"
	finish_iso
	[ "$rc" -eq 122 ]
	grep -E "leaked: pid $host \(pid [0-9]+ in the namespace\) \`$H/termignore" "$W/err"
	assert_dead "$host"
	assert_no_tree
}

@test "--pidns: init killed from outside fails the run with 137 and says so" {
	require "PID namespaces" pidns_ok
	start_iso --pidns --report "$W/r.json" -- sh -c "touch $W/ready; exec $H/waitfor -t 600 $W/never"
	"$H/waitfor" "$W/ready"
	init=$(pgrep -P "$ISOPID")
	[ -n "$init" ]
	kill -KILL "$init"
	finish_iso
	[ "$rc" -eq 137 ]
	grep -F "the namespace's init (pid $init) was killed by SIGKILL" "$W/err"
	grep -F "FAILED (exit 137): namespace's init killed by SIGKILL" "$W/err"
	python3 - "$W/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["result"]["init_lost"] == {"signal": "SIGKILL"}, r["result"]
assert r["exit"] == 137 and r["isolation"]["leak_check"] == "not-measurable", r
PY
	assert_no_tree
}

# A leader gone by pthread_exit() shows `Z` while its other thread runs on.
leader_leak() {
	# the command ends once the leader is gone, so the gate meets the zombie leader
	run timeout 60 "$ISORUN" --no-config --policy=off --root "$R" --settle 200ms "$@" -- \
		sh -c "$H/leaderexit $W/pid && $H/waitfor $W/pid"
	[ "$status" -eq 122 ]
	pid=$(cat "$W/pid")
	[[ "$output" == *"leaked: pid $pid"*"\`$H/leaderexit $W/pid\`"* ]] ||
		[[ "$output" == *"leaked: pid "*"(pid $pid in the namespace) \`$H/leaderexit $W/pid\`"* ]]
	[[ "$output" == *"FAILED (exit 122): 1 process outlived the command"* ]]
	assert_no_tree
}

@test "a survivor whose main thread has exited is named, killed and fails the run" {
	leader_leak
	assert_dead "$(cat "$W/pid")"
}

@test "--pidns: a survivor whose main thread has exited is named, killed and fails the run" {
	require "PID namespaces" pidns_ok
	leader_leak --pidns
}

# 16 fork-and-exit chains (each step forks, its parent exits, the child calls
# setsid()) that would run for two minutes: the gate must stop them long before they
# end.  The bound is the contract's (settle, then at most 10 s of kill) with a wide
# margin for a loaded machine; before the bounded reap this took 10 s to forever
# (32 chains: 2 s against 53 s at a load average of 49, but beside a second full
# suite their zombies, reparented to isorun faster than one process on two cores
# reaps them, filled the pid space; 16 chains stay a storm without that, and the
# run without the bounded reap is not reliably slower on them: 4 to 50 s).
storm() {
	run timeout 30 "$ISORUN" --no-config --policy=off --root "$R" --settle 1s "$@" -- \
		"$H/forkloop" -s -t 120 -n 16 "$W/pid"
	[ "$status" -eq 122 ]
	# alike leaks fold into one line (more than three) or stay single lines
	[[ "$output" == *"leaked: pid "*"forkloop"* || "$output" == *"leaked: "[0-9]*" processes \`"*"forkloop"* ]]
	[[ "$output" == *"FAILED (exit 122): "*" outlived the command"* ]]
	! pgrep -f "forkloop -s -t 120 -n 16 $W/pid"
}

@test "fork-and-exit chains are stopped, named and killed in bounded time" {
	storm
	assert_no_tree
}

@test "--pidns: fork-and-exit chains are stopped, named and killed in bounded time" {
	require "PID namespaces" pidns_ok
	storm --pidns
	assert_no_tree
}

# --timeout covers the whole run up to the gate: it cuts a long --settle short, and
# the survivors of a command that ended in time are leaks (122), not a timeout (124).
timeout_cuts_settle() {
	run timeout 40 "$ISORUN" --no-config --policy=off --root "$R" --settle 1h --timeout 1s \
		"$@" -- sh -c "setsid $H/termignore $W/pid & $H/waitfor $W/pid"
	[ "$status" -eq 122 ]
	[[ "$output" == *"leaked: pid "*"termignore"* ]]
	[[ "$output" != *"timed out"* ]]
	assert_no_tree
}

@test "--timeout still applies once the command has exited: the settle ends there" {
	timeout_cuts_settle
}

@test "--pidns: --timeout still applies once the command has exited: the settle ends there" {
	require "PID namespaces" pidns_ok
	timeout_cuts_settle --pidns
}
