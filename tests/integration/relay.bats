#!/usr/bin/env bats
# Output relay: every byte, in order, and a terminal passes through untouched.

load helpers

@test "5 MiB on stdout and 1 MiB on stderr arrive whole and in order" {
	"$H/spew" 5M >"$W/expect.out"
	"$H/spew" 1M 2 2>"$W/expect.err"
	iso -- sh -c "$H/spew 5M; $H/spew 1M 2" >"$W/got.out" 2>"$W/got.err"
	cmp "$W/expect.out" "$W/got.out"
	cmp "$W/expect.err" "$W/got.err"
	assert_no_tree
}

# A reader that stops reading until `$W/go` exists: isorun's output fills up.  The command
# creates go when it is told to stop (SIGTERM, from the timeout or a cancel), so only an
# isorun that still hears its timer and signals while its output is full lets it go on.
# Before, the relay waited for room inside the pump, and the timeout fired when the
# reader gave up (waitfor -t), not on time.
# The process whose pid PIDFILE will hold is gone (a pidfd, no polling); 20 s at most.
# PIDFILE appears whole (renamed into place): waitfor wakes on its name.
wait_gone() {
	"$H/waitfor" -t 20 "$1" && pids_gone "$(cat "$1")"
}

stalled_reader() {
	rm -f "$W/go" "$W/saw-go" "$W/wrote" "$W/fifo" "$W/leak.pid"
	mkfifo "$W/fifo"
	# not a process substitution: that reader would be isorun's child, and in its tree
	# (-t 60, --grace 30s below: safety nets a loaded machine reached at 20 s; the
	# event ends each wait at once)
	{ ${until_go:-"$H/waitfor" -t 60 "$W/go"} && touch "$W/saw-go"; cat >/dev/null; } <"$W/fifo" 3>&- &
	"$ISORUN" --no-config --root "$R" "$@" -- sh -c "${script:-"trap 'touch $W/go' TERM; $H/spew 2M && touch $W/wrote && $H/spew 64M"}" \
		2>"$W/err" >"$W/fifo" 3>&- &
	iso=$!
}

@test "a reader that stopped reading does not stop isorun: its timeout, a signal and the leak gate act" {
	for report in "" "--report=$W/r.json"; do # spliced, and tee'd for the report's tail
		stalled_reader --timeout 1s $report
		wait "$iso" || status=$?
		[ "$status" -eq 124 ]
		[ -e "$W/saw-go" ]
		grep -q "timed out after 1s; stopped the whole tree" "$W/err"
		# cancelled while the output is full: both pipes hold what was written
		stalled_reader --grace 30s $report
		"$H/waitfor" "$W/wrote"
		kill -TERM "$iso"
		status=0
		wait "$iso" || status=$?
		[ "$status" -eq 143 ]
		[ -e "$W/saw-go" ]
		grep -q "cancelled by SIGTERM" "$W/err"
		# after the command, which ends once a leak filled the output: the leak gate
		# still kills the leak (SIGKILL: no trap), and the reader goes on once it is gone
		until_go="wait_gone $W/leak.pid" script="sh -c 'echo \$\$ >$W/leak.new; mv $W/leak.new $W/leak.pid; $H/spew 2M; touch $W/wrote; exec $H/spew 64M' & $H/waitfor $W/wrote" \
			stalled_reader --settle 0 $report
		status=0
		wait "$iso" || status=$?
		[ "$status" -eq 122 ]
		[ -e "$W/saw-go" ]
		grep -q "isorun: leaked: " "$W/err"
	done
	wait # the readers
}

@test "relaying into a file opened for append and into a pipe both work" {
	echo first >"$W/log"
	iso -- "$H/spew" 100k >>"$W/log"
	[ "$(head -1 "$W/log")" = first ]
	[ "$(wc -c <"$W/log")" -eq $((6 + 102400)) ]
	iso -- "$H/spew" 300k | cmp - <("$H/spew" 300k)
}

@test "the report keeps a bounded tail of each stream" {
	iso --report "$W/r.json" -- sh -c "$H/spew 100k; echo last-out; echo last-err >&2" >/dev/null 2>&1
	python3 - "$W/r.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["output_tail"]
assert 0 < len(t["stdout"]) <= 4096 and t["stdout"].endswith("last-out\n"), t["stdout"][-40:]
assert t["stderr"] == "last-err\n", t["stderr"]
PY
}

userns_ok() {
	unshare -Urpf --mount-proc --propagation slave true
}

# 2,000 lines alternating between stdout and stderr, one write each: where both
# are one file, the bare command's lines are in the order it wrote them.
ALT=128000

# One file for both, spelled three ways, and one pipe, spelled two ways: isorun's
# output is the bare command's, byte for byte.  $@: isorun's options.
same_order() {
	"$H/spew" $ALT 12 >"$W/expect" 2>&1
	iso "$@" -- "$H/spew" $ALT 12 >"$W/log" 2>&1
	cmp "$W/expect" "$W/log"
	iso "$@" -- "$H/spew" $ALT 12 2>"$W/log" 1>&2
	cmp "$W/expect" "$W/log"
	# two opens that both append: each write lands at the end, in the order written
	: >"$W/log"
	iso "$@" -- "$H/spew" $ALT 12 >>"$W/log" 2>>"$W/log"
	cmp "$W/expect" "$W/log"
	iso "$@" -- "$H/spew" $ALT 12 2>&1 | cat >"$W/piped"
	cmp "$W/expect" "$W/piped"
	# a FIFO opened twice: two descriptions of one pipe
	rm -f "$W/fifo" && mkfifo "$W/fifo"
	cat "$W/fifo" >"$W/piped" 3>&- &
	iso "$@" -- "$H/spew" $ALT 12 >"$W/fifo" 2>"$W/fifo"
	wait $!
	cmp "$W/expect" "$W/piped"
	assert_no_tree
}

@test "stdout and stderr into one file or one pipe keep the order the command wrote" {
	same_order
}

@test "stdout and stderr into one file or one pipe keep the order under --pidns too" {
	require "user and PID namespaces" userns_ok
	same_order --pidns
}

@test "one stream for both: its tail is stdout's, merged; apart or on /dev/null, two tails" {
	iso --report "$W/r.json" -- sh -c "$H/spew $ALT 12; echo last-err >&2" >"$W/log" 2>&1
	# `>log 2>>log`: two descriptions, the order is not defined, so two streams
	iso --report "$W/apart.json" -- sh -c "echo out; echo err >&2" >"$W/log" 2>>"$W/log"
	iso --report "$W/null.json" -- sh -c "echo out; echo err >&2" >/dev/null 2>&1
	python3 - "$W" <<'PY'
import json, sys
t = json.load(open(sys.argv[1] + "/r.json"))["output_tail"]
assert t["merged"] is True and t["stderr"] is None, t
assert 4000 < len(t["stdout"]) <= 4096 and t["stdout"].endswith(" 000007cf\nlast-err\n"), t["stdout"][-80:]
# it lost its start, and begins with a whole line: every spew line has one length
lines = t["stdout"].split("\n")[:-2]
assert t["cut"] == {"stdout": True, "stderr": None} and len({len(l) for l in lines}) == 1, lines[:2]
for name in ("apart", "null"):
    t = json.load(open(sys.argv[1] + "/" + name + ".json"))["output_tail"]
    assert t == {"stdout": "out\n", "stderr": "err\n", "merged": False,
                 "cut": {"stdout": False, "stderr": False}}, (name, t)
PY
	assert_no_tree
}

@test "a holder of the one pipe for both is named as holding stdout and stderr" {
	"$H/fdpass" hold "$W/sock" "$W/holder.pid" <&- 3>&- &
	"$H/waitfor" "$W/holder.pid"
	run iso --settle 200ms -- "$H/fdpass" send "$W/sock" 2
	[ "$status" -eq 122 ]
	holder=$(cat "$W/holder.pid")
	tree=$(the_tree)
	[[ "$output" == *"pipe still open (pid $holder "*" holds stdout and stderr)"* ]]
	kill "$holder"
	force_remove "$tree"
}

@test "a terminal is passed through: isatty() holds in the command" {
	require "script(1) for a pseudo-terminal" script -qec true /dev/null
	run script -qec "$ISORUN --root $R -- sh -c 'test -t 0 && test -t 1 && test -t 2 && echo all-tty'" /dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *all-tty* ]]
	assert_no_tree
}

@test "with a terminal, the command is its foreground group and gets it back on exit" {
	require "script(1) for a pseudo-terminal" script -qec true /dev/null
	run script -qec "$ISORUN --root $R -- sh -c 'ps -o pgid=,tpgid= -p \$\$'; ps -o pgid=,tpgid= -p \$\$" /dev/null
	[ "$status" -eq 0 ]
	inner=$(echo "${lines[0]}" | tr -d '\r')
	outer=$(echo "${lines[1]}" | tr -d '\r')
	set -- $inner
	[ "$1" = "$2" ]
	set -- $outer
	[ "$1" = "$2" ]
}

# A real pseudo-terminal with an interactive bash, driven as a person would.
drive() {
	python3 "$BATS_TEST_DIRNAME/../helpers/ptydrive.py" "$W/script"
}

@test "Ctrl-Z stops the command and isorun with it; fg resumes both" {
	require "python3 for the pty driver" python3 -c 'import pty'
	cat >"$W/script" <<EOS
expect PROMPT> 
send $ISORUN --root $R -- sh -c 'echo rea''dy; read x; echo got-\$x'\\n
expect ready
send \\x1a
expect Stopped
expect PROMPT> 
send fg\\n
send hello\\n
expect got-hello
expect PROMPT> 
send echo status=\$?\\n
expect status=0
EOS
	drive
	assert_no_tree
}

@test "Ctrl-C reaches the command in the foreground, once" {
	require "python3 for the pty driver" python3 -c 'import pty'
	# the command counts SIGINTs: a second delivery (from isorun) would show as "xx1"
	cat >"$W/script" <<'EOS'
expect PROMPT> 
send @ISORUN@ --root @R@ -- sh -c 'trap "echo int-\$n; n=x\$n" INT; n=1; echo rea""dy; while read x; do :; done; echo end-$n'\n
expect ready
send \x03
expect int-1
send \x04
expect end-x1
expect PROMPT> 
send echo status=$?\n
expect status=0
EOS
	sed -i "s|@ISORUN@|$ISORUN|; s|@R@|$R|" "$W/script"
	drive
	assert_no_tree
}
