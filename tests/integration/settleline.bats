#!/usr/bin/env bats
# The wait is never silent (issue 29): when the command has exited and processes
# of the run remain, one line says so at once (who, how many, how long isorun
# waits); the user's Ctrl-C ends the wait (on a real pty, tests/helpers/ptydrive.py).

load helpers

userns_ok() {
	unshare -Urpf --mount-proc --propagation slave true
}

# Start isorun in the background; its pid in $ISOPID, its stderr in $W/err.  Not
# on bats' fd 3, and cancelled by teardown: a failed test's isorun, settling for
# 10 minutes, would otherwise hold the TAP stream open that long.
start_iso() {
	: >"$W/err"
	# sigexec: no SIGINT ignored, as `&` would leave it (isorun keeps a caller's ignore)
	"$H/sigexec" "$ISORUN" --no-config --root "$R" "$@" >"$W/out" 2>"$W/err" 3>&- &
	ISOPID=$!
}

teardown() {
	[ -z "${ISOPID:-}" ] || ! kill -TERM "$ISOPID" 2>/dev/null || wait "$ISOPID" || true
}

# Wait for a line matching $1 in isorun's stderr (an event, not a delay: tail -f follows the file).
await_err() {
	timeout 30 tail -n +1 -f "$W/err" | grep -m1 -E -- "$1" >/dev/null
}

finish_iso() {
	wait "$ISOPID" && rc=0 || rc=$?
	echo "isorun exited $rc; its stderr:" >&2
	cat "$W/err" >&2
}

settle_line_then_cancel() { # isorun options before --
	start_iso "$@" --settle 10m -- sh -c "$H/waitfor -t 600 $W/never & exit 0"
	await_err '^isorun: command exited 0; 1 process still running \(pid [0-9]+ `(sh|waitfor)`\); waiting up to 10m \(--settle\)$'
	# the settle has 10 minutes to go: SIGINT ends it now, the survivor is a leak
	kill -INT "$ISOPID"
	finish_iso
	[ "$rc" -eq 130 ]
	grep -q 'isorun: leaked: pid [0-9]* .*waitfor -t 600' "$W/err"
	grep -q 'FAILED (exit 130): cancelled by SIGINT, 1 process outlived the command' "$W/err"
	assert_no_tree
}

@test "the command exited, a process remains: one line at once; SIGINT ends the settle" {
	settle_line_then_cancel
}

@test "--pidns: the same line (pids as seen from outside); SIGINT ends init's settle" {
	[ "$(id -u)" -eq 0 ] || require "unprivileged user namespaces" userns_ok
	settle_line_then_cancel --pidns
}

@test "the line names three processes, then ...; a command killed by a signal says so" {
	start_iso --settle 10m -- sh -c "for i in 1 2 3 4 5; do $H/waitfor -t 600 $W/never & done; kill -TERM \$\$"
	await_err '^isorun: command killed by SIGTERM; 5 processes still running \(pid [0-9]+ `[a-z]+`, pid [0-9]+ `[a-z]+`, pid [0-9]+ `[a-z]+`, \.\.\.\); waiting up to 10m \(--settle\)$'
	kill -TERM "$ISOPID"
	finish_iso
	[ "$rc" -eq 143 ]
	[ "$(grep -c 'still running' "$W/err")" -eq 1 ]
}

@test "a survivor that ends within the settle: the line, then a passing run" {
	start_iso --settle 10m -- sh -c "$H/waitfor -t 600 $W/go & exit 0"
	await_err 'still running'
	touch "$W/go"
	finish_iso
	[ "$rc" -eq 0 ]
	[ "$(cat "$W/err" | wc -l)" -eq 1 ]
	assert_no_tree
}

@test "--timeout cuts the settle short: the line says so" {
	# half the settle: with the two equal, a command that ended within the
	# millisecond the timeout was armed in leaves the whole settle (seen under load)
	start_iso --settle 10m --timeout 5m -- sh -c "$H/waitfor -t 600 $W/never & exit 0"
	await_err 'waiting up to [0-9.]+m?s? \(--settle, cut short by --timeout\)$|waiting up to [0-9]+m[0-9]+s \(--settle, cut short by --timeout\)$'
	kill -INT "$ISOPID"
	finish_iso
	[ "$rc" -eq 130 ]
}

@test "nothing left, or -q: no line" {
	run --separate-stderr iso -- true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	run --separate-stderr iso -q --settle 100ms -- sh -c "$H/waitfor -t 600 $W/never & exit 0"
	[ "$status" -eq 122 ]
	[[ "$stderr" != *"still running"* ]]
	[[ "$stderr" == *"leaked: pid"* ]]
}

drive() {
	sed -i "s|@ISORUN@|$ISORUN|g; s|@R@|$R|g; s|@H@|$H|g; s|@W@|$W|g" "$W/script"
	timeout 120 python3 "$BATS_TEST_DIRNAME/../helpers/ptydrive.py" "$W/script"
}

ctrl_c_on_a_pty() { # isorun options
	# the survivor ignores SIGINT: only isorun's own end of the settle stops it.  The
	# command exits once the survivor is past its exec (waitfor -r): before it, its
	# command line can be read empty, and the leak is named [waitfor] (seen once)
	cat >"$W/script" <<EOS
expect PROMPT> 
send @ISORUN@ --no-config --color=never --root @R@ $* --settle 10m -- sh -c '(trap "" INT; exec @H@/waitfor -r @W@/execd -t 600 @W@/never) & @H@/waitfor @W@/execd; exit 0'; echo "rc=\$?"\\n
expect isorun: command exited 0; 1 process still running .*; waiting up to 10m \\(--settle\\); Ctrl-C stops them now
send \\x03
expect isorun: leaked: pid [0-9]+ .*waitfor -r [^ ]+ -t 600
expect FAILED \\(exit 130\\): cancelled by SIGINT
expect rc=130
expect PROMPT> 
EOS
	drive
	assert_no_tree
}

@test "on a terminal: Ctrl-C during the settle ends it at once (the survivor ignores SIGINT)" {
	ctrl_c_on_a_pty
}

@test "on a terminal, --pidns: Ctrl-C during the settle ends it at once" {
	[ "$(id -u)" -eq 0 ] || require "unprivileged user namespaces" userns_ok
	ctrl_c_on_a_pty --pidns
}
