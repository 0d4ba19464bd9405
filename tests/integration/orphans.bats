#!/usr/bin/env bats
# kill -9 of an isorun without --pidns (and without a cgroup): what its command
# started keeps running.  Every such process carries ISORUN_NAMESPACE=<tree>,
# so `isorun ls` lists them under the orphaned tree and `isorun gc` stops them
# (SIGSTOP until no new one appears, then SIGKILL through pidfds) before it
# removes the tree.  Never a process whose environment does not name the tree.

load helpers

teardown() {
	show_last_run
	for f in "$W"/*.kill; do
		[ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	return 0
}

isols() {
	"$ISORUN" ls --root "$R" "$@"
}

isogc() {
	"$ISORUN" gc --root "$R" "$@"
}

# A default-mode run whose sh waits on a background sleep, plus a process of the
# run that cleared its environment ("env -i") and any extra command in $1;
# SIGKILLs its isorun once everything is started.  Sets isopid, shpid, kidpid,
# clearedpid, tree.
start_and_kill() {
	local extra=${1:-true}
	# --cgroup=off: with a cgroup of its own (root here) gc finds the run by that
	# instead, the stronger evidence (ceilings.bats); these tests are about the rest
	"$ISORUN" --no-config --root "$R" --cgroup=off -- sh -c '
		w=$1
		sleep 300 & echo $! >"$w/kid.kill"
		env -i sleep 300 & echo $! >"$w/cleared.kill"
		'"$extra"'
		echo $$ >"$w/sh.kill"
		echo "$ISORUN_NAMESPACE" >"$w/tree.tmp" && mv "$w/tree.tmp" "$w/ready"
		wait' sh "$W" >"$W/run.out" 2>&1 3>&- &
	isopid=$!
	echo "$isopid" >"$W/iso.kill"
	"$H/waitfor" -t 60 "$W/ready"
	tree=$(cat "$W/ready")
	shpid=$(cat "$W/sh.kill")
	kidpid=$(cat "$W/kid.kill")
	clearedpid=$(cat "$W/cleared.kill")
	kill -KILL "$isopid"
	wait "$isopid" || true
}

# Processes outside the run whose ISORUN_NAMESPACE is close to the tree's, not it.
start_controls() {
	ISORUN_NAMESPACE="${tree}x" sleep 300 >/dev/null 2>&1 3>&- &
	echo $! >"$W/c1.kill"
	ISORUN_NAMESPACE="$tree/home" sleep 300 >/dev/null 2>&1 3>&- &
	echo $! >"$W/c2.kill"
	ISORUN_NAMESPACE="${tree%?}" sleep 300 >/dev/null 2>&1 3>&- &
	echo $! >"$W/c3.kill"
}

@test "kill -9 of isorun without --pidns: ls lists the run's live processes, gc stops them; controls survive" {
	start_and_kill
	start_controls
	run isols
	[ "$status" -eq 0 ]
	[[ "$output" == *"$tree  "*" orphaned "*"owner pid $isopid is gone without recording an outcome (crashed or killed); 2 of its processes still run (found by ISORUN_NAMESPACE in their environment: weaker evidence than --pidns or a cgroup, a process that cleared its environment is not found; isorun gc kills them)"* ]]
	[[ "$output" == *$'\n'"    pid $shpid \`sh -c "* ]]
	[[ "$output" == *$'\n'"    pid $kidpid \`sleep 300\`"* ]]
	for c in c1 c2 c3; do
		[[ "$output" != *"pid $(cat "$W/$c.kill") "* ]]
	done
	[[ "$output" != *"pid $clearedpid "* ]]
	run isols --json
	[ "$(printf '%s' "$output" | jq -c '[.[0].processes[].pid] | sort')" = "$(printf '%s\n' "$shpid" "$kidpid" | sort -n | jq -sc .)" ]
	run isogc --dry-run
	[ "$status" -eq 0 ]
	[[ "$output" == *"would kill pid $kidpid \`sleep 300\`: its environment names $tree"* ]]
	# a gc started from inside that run (a shell it left) would stop its own caller
	run env ISORUN_NAMESPACE="$tree" "$ISORUN" gc --root "$R"
	[ "$status" -eq 0 ]
	[ "$output" = "kept $tree: this isorun gc runs inside that run (its own ISORUN_NAMESPACE names the tree): run gc from outside it" ]
	kill -0 "$shpid"
	kill -0 "$kidpid"
	run isogc
	[ "$status" -eq 0 ]
	[[ "$output" == *"killed pid $shpid \`sh -c "*"\`: its environment names $tree"* ]]
	[[ "$output" == *"killed pid $kidpid \`sleep 300\`: its environment names $tree"* ]]
	[[ "$output" == *"removed $tree: owner pid $isopid is gone; its lock is free; no process has a file, cwd or root in it"*"; killed 2 of its processes (found by ISORUN_NAMESPACE in their environment: weaker evidence than --pidns or a cgroup, a process that cleared its environment is not found)"* ]]
	assert_dead "$shpid"
	assert_dead "$kidpid"
	assert_no_tree
	# the bound: what cleared its environment is not found, nor what is not the run's
	kill -0 "$clearedpid"
	for c in c1 c2 c3; do
		kill -0 "$(cat "$W/$c.kill")"
	done
}

@test "kill -9 of isorun: a loop of the run that restarts its child when it dies is stopped with it" {
	# a loop that starts a new sleep each time one is killed
	start_and_kill 'while :; do sleep 300; done & echo $! >"$w/loop.kill"'
	loop=$(cat "$W/loop.kill")
	run isogc
	[ "$status" -eq 0 ]
	[[ "$output" == *"killed pid $loop "* ]]
	[[ "$output" == *"removed $tree: "* ]]
	assert_dead "$loop"
	assert_dead "$shpid"
	assert_dead "$kidpid"
	# nothing whose environment names the tree is left
	for p in /proc/[0-9]*; do
		! grep -qzx "ISORUN_NAMESPACE=$tree" "$p/environ" 2>/dev/null || {
			echo "left: $p $(tr '\0' ' ' <"$p/cmdline")"
			false
		}
	done
}

@test "kill -9 of isorun: a process whose main thread exited (a zombie leader, threads alive) is found and stopped" {
	# its /proc/PID/environ reads empty and its state is Z; a thread still runs
	start_and_kill "$H/leaderexit \"\$w/le.pid\" && $H/waitfor -t 60 \"\$w/le.pid\" && cp \"\$w/le.pid\" \"\$w/le.kill\""
	le=$(cat "$W/le.pid")
	[ "$(awk '{print $3}' "/proc/$le/stat")" = Z ]
	run isols
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\n'"    pid $le \`$H/leaderexit "* ]]
	run isogc
	[ "$status" -eq 0 ]
	[[ "$output" == *"killed pid $le \`$H/leaderexit "* ]]
	[[ "$output" == *"removed $tree: "* ]]
	assert_dead "$le"
	assert_dead "$kidpid"
}

@test "kill -9 of isorun: a process whose environment cannot be read is not touched, and ls and gc say so" {
	start_and_kill "$H/nodump \"\$w/nodump.ready\" & echo \$! >\"\$w/nodump.kill\""
	nodump=$(cat "$W/nodump.kill")
	run isols
	if [ "$(id -u)" -eq 0 ]; then
		# root reads every environment: the non-dumpable one is found like the others
		[[ "$output" == *"3 of its processes still run"* ]]
		[[ "$output" == *$'\n'"    pid $nodump \`"*"nodump "* ]]
		run isogc
		[[ "$output" == *"killed pid $nodump "* ]]
		assert_dead "$nodump"
	else
		[[ "$output" == *"2 of its processes still run"*"process"*" of this user could not be examined (environment unreadable, e.g. not dumpable): some may be the run's"* ]]
		run isogc
		# not touched; and its fds cannot be read either, so the holder rule keeps the tree
		[[ "$output" == *"kept $tree: holders not measurable: pid $nodump (nodump) "*"; killed 2 of its processes "*"could not be examined (environment unreadable, e.g. not dumpable): some may be the run's"* ]]
		kill -0 "$nodump"
		kill -KILL "$nodump"
		# gone (reaped) before gc looks again: tail returns once kill -0 fails
		timeout 60 tail --pid="$nodump" -f /dev/null
		run isogc
		[[ "$output" == *"removed $tree: "* ]]
	fi
	assert_no_tree
	assert_dead "$shpid"
	assert_dead "$kidpid"
}
