#!/usr/bin/env bats
# isorun selftest: the probes and the live controls.  Each weakening option
# passed to the selftest must turn exactly its own control red, and no run may
# leave a process, a directory, or a file in the real home behind.  The
# selftest's private directory goes to $TMPDIR, here this test's $W.

# SC2016: the backquotes in the patterns are isorun's own quoting, not expansions.
# SC2119/SC2120: selftest() gets its arguments through bats' `run`.
# shellcheck disable=SC2016,SC2119,SC2120

load helpers

# Serial: "nothing left" looks for any `$ISORUN selftest --internal-` process of
# the user, and man.bats runs isorun(1)'s `isorun selftest` examples with the
# same binary (seen under SANITIZE=1 with the files side by side).
# bats file_tags=serial

CONTROLS="clean daemon holder protect-home service-guard deny-list signals net-isolated pids-ceiling memory-ceiling"

# A ceiling control this host cannot enforce says why: no controller, and for processes
# no user namespace RLIMIT_NPROC would bind in (a kernel rule for root, not a lack)
ceiling_unenforceable() {
	grep -q "^control $1: not measurable (no [a-z]* controller for a run's cgroup" <<<"$output"
}

# Run the selftest with its private directory under $W.
selftest() {
	TMPDIR="$W" "$ISORUN" selftest "$@"
}

# "name=result" for each control line of $output.
results() {
	sed -n 's/^control \([a-z-]*\): \(ok\|not ok\|not measurable\) (.*)$/\1=\2/p' <<<"$output"
}

# Every control is listed once; the ones named are "not ok", every other one
# passed (or, outside CI, could not be measured on this host).
assert_red() {
	local name res line want
	[ "$(results | wc -l)" -eq 10 ]
	for name in $CONTROLS; do
		line=$(results | grep "^$name=")
		res=${line#*=}
		want=ok
		for red in "$@"; do
			[ "$red" = "$name" ] && want="not ok"
		done
		if [ "$want" = ok ] && [ "$res" = "not measurable" ] && [ "${CI:-}" != true ]; then
			continue
		fi
		if [ "$want" = ok ] && [ "$res" = "not measurable" ] && ceiling_unenforceable "$name"; then
			continue
		fi
		if [ "$res" != "$want" ]; then
			echo "control $name: expected '$want', got '$res'" >&2
			return 1
		fi
	done
}

# A probe said yes (a whole selftest run; its output kept for the test).
probe_yes() {
	selftest >"$W/probe.out" 2>&1
	grep -q "^probe $1: yes" "$W/probe.out"
}

# Nothing of the selftest survives it: no private directory, no probe file in
# the real home, no process running one of its internal commands.
assert_nothing_left() {
	local left f p
	left=$(find "$W" -mindepth 1 -maxdepth 1 -name 'isorun-selftest.*')
	if [ -n "$left" ]; then
		echo "private directory left: $left" >&2
		return 1
	fi
	# .isorun-selftest-PID-...: one whose selftest still runs is that run's (another
	# file's, beside this one under make check's --jobs), not one left behind
	left=
	for f in "$(real_home)"/.isorun-selftest-*; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		p=${f##*/.isorun-selftest-}
		kill -0 "${p%%-*}" 2>/dev/null || left="$left $f"
	done
	if [ -n "$left" ]; then
		echo "left in the real home: $left" >&2
		return 1
	fi
	if pgrep -u "$(id -u)" -f -- "$ISORUN selftest --internal-" >&2; then
		echo "a control's process is still running" >&2
		return 1
	fi
}

@test "selftest: one line per probe, every control ok, exit 0, nothing left behind" {
	run --separate-stderr selftest
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	for p in subreaper userns pidns mountns netns seccomp seccomp-notify pidfd close_range cgroup2; do
		grep -Eq "^probe $p: (yes|no|partial) \(.+\)$" <<<"$output"
	done
	assert_red
	[[ "${lines[-1]}" == "selftest: ok ("* ]]
	if [ "${CI:-}" = true ]; then
		! grep "not measurable" <<<"$output" | grep -v "^control [a-z]*-ceiling: not measurable (no "
	fi
	# each ok names what it saw
	grep -q '^control daemon: ok (exit 122; isorun: leaked: pid [0-9]* `.* selftest --internal-daemon`' <<<"$output"
	grep -q "^control holder: ok (exit 122; isorun: tree retained at $W/isorun-selftest\.[^/]*/root/isorun-$(id -u)/" <<<"$output"
	grep -q '^control service-guard: ok (exit 122; isorun: refused: execve `systemctl restart selftest-unit`' <<<"$output"
	assert_nothing_left
}

@test "selftest runs from any working directory, even an unreadable one" {
	mkdir -p "$W/here/deep"
	cd "$W/here/deep"
	chmod 000 "$W/here"
	run --separate-stderr selftest
	chmod 755 "$W/here"
	[ "$status" -eq 0 ]
	assert_red
	assert_nothing_left
}

@test "selftest with TMPDIR behind a symbolic link: the trees are still recognised" {
	ln -s "$W" "$BATS_TEST_TMPDIR/link"
	run --separate-stderr env TMPDIR="$BATS_TEST_TMPDIR/link" "$ISORUN" selftest
	[ "$status" -eq 0 ]
	assert_red
	assert_nothing_left
}

@test "selftest --json: one valid document with the same verdicts as the lines" {
	run --separate-stderr selftest
	[ "$status" -eq 0 ]
	results | sort >"$W/text"
	run --separate-stderr selftest --json
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	python3 -m json.tool <<<"$output" >/dev/null
	python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert d["ok"] is True and d["exit"] == 0, d
assert d["cleanup"]["removed"] is True and d["cleanup"]["error"] is None, d["cleanup"]
assert len(d["probes"]) == 10 and all(p["verdict"] in ("yes", "no", "partial") and p["reason"] for p in d["probes"])
for c in sorted(d["controls"], key=lambda c: c["name"]):
    assert c["result"] in ("ok", "not ok", "not measurable") and c["detail"] and c["description"], c
    print("%s=%s" % (c["name"], c["result"]))
' <<<"$output" | sort >"$W/json"
	diff "$W/text" "$W/json"
	assert_nothing_left
}

@test "control: --leaks=ignore turns the daemon control red, and only it" {
	require "a subreaper" probe_yes subreaper
	run --separate-stderr selftest --leaks=ignore
	[ "$status" -eq 1 ]
	assert_red daemon
	grep -q '^control daemon: not ok (a setsid daemon (pid [0-9]*) outlived the command and was not named as leaked: exit 0' <<<"$output"
	[ "${lines[-1]}" = "selftest: FAILED (exit 1): not ok: daemon" ]
	assert_nothing_left
}

@test "control: --leaks=warn names the daemon only as a warning: still red" {
	run --separate-stderr selftest --leaks=warn
	[ "$status" -eq 1 ]
	assert_red daemon
	grep -q '^control daemon: not ok (the daemon was named only as a warning' <<<"$output"
	assert_nothing_left
}

@test "control: --policy=off turns the service guard, the deny-list and the signals control red, and only them" {
	run --separate-stderr selftest --policy=off
	[ "$status" -eq 1 ]
	assert_red service-guard deny-list signals
	grep -q '^control service-guard: not ok (`systemctl restart selftest-unit` ran' <<<"$output"
	grep -q '^control deny-list: not ok (let through: adjtimex (EFAULT), clock_settime (EFAULT), clock_adjtime (EFAULT), ioctl TIOCSTI (EBADF)' <<<"$output"
	grep -q '^control signals: not ok (a SIGUSR1 from inside the run reached pid [0-9]* outside it' <<<"$output"
	[ "${lines[-1]}" = "selftest: FAILED (exit 1): not ok: service-guard, deny-list, signals" ]
	assert_nothing_left
}

@test "control: --policy-mode=log lets the calls through: the three policy controls red" {
	run --separate-stderr selftest --policy-mode=log
	[ "$status" -eq 1 ]
	assert_red service-guard deny-list signals
	assert_nothing_left
}

@test "control: --protect-home=off turns the home control red; the file it wrote is removed" {
	home=$(real_home)
	require "a writable real home" test -w "$home"
	run --separate-stderr selftest --protect-home=off
	[ "$status" -eq 1 ]
	assert_red protect-home
	grep -q "^control protect-home: not ok (a write from inside the run reached the real home: $home/\.isorun-selftest-[0-9]*-[0-9a-f]* was created; removed it)" <<<"$output"
	assert_nothing_left
}

@test "selftest --protect-home=hide: the home control still holds (a binary in the home is copied out)" {
	require "user and mount namespaces" probe_yes mountns
	run --separate-stderr selftest --protect-home=hide
	[ "$status" -eq 0 ]
	assert_red
	assert_nothing_left
}

@test "control: --net=host turns the network control red, and only it" {
	run --separate-stderr selftest --net=host
	[ "$status" -eq 1 ]
	assert_red net-isolated
	grep -q "^control net-isolated: not ok (the run reached the host's listener on 127.0.0.1:[0-9]*)" <<<"$output"
	assert_nothing_left
}

@test "selftest --pidns: the controls hold inside a PID namespace too" {
	require "user and PID namespaces" probe_yes pidns
	run --separate-stderr selftest --pidns --json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["options"] == ["--pidns"] and d["ok"], d' <<<"$output"
	assert_nothing_left
}

@test "namespaces refused (a container's seccomp profile): their controls are not measurable, never ok" {
	[ -x "$H/denyns" ]
	run --separate-stderr "$H/denyns" env TMPDIR="$W" "$ISORUN" selftest
	[ "$status" -eq 0 ]
	grep -q "^probe mountns: no (.*Operation not permitted" <<<"$output"
	grep -q "^probe netns: no (.*Operation not permitted" <<<"$output"
	[ "$(results | grep "^protect-home=")" = "protect-home=not measurable" ]
	[ "$(results | grep "^net-isolated=")" = "net-isolated=not measurable" ]
	grep -q "^control protect-home: not measurable (mount namespaces: .*Operation not permitted" <<<"$output"
	[ "$(results | grep -v -- '-ceiling=' | grep -c "=ok$")" -eq 6 ]
	[[ "${lines[-1]}" == "selftest: ok ("*" controls ok, "*" not measurable on this host)" ]]
	# a weakened guard that needs no namespace still goes red there
	run --separate-stderr "$H/denyns" env TMPDIR="$W" "$ISORUN" selftest --net=host
	[ "$status" -eq 1 ]
	[ "$(results | grep "^net-isolated=")" = "net-isolated=not ok" ]
	assert_nothing_left
}

@test "selftest: bad usage is one line, exit 125, and nothing is created" {
	run --separate-stderr selftest --leaks=sometimes
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: selftest: --leaks: expected fail, warn or ignore, got 'sometimes'" ]
	[ -z "$output" ]
	run --separate-stderr selftest --keep
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: selftest: --keep: unknown option (see isorun selftest --help)" ]
	run --separate-stderr selftest --policy="$W/missing.policy"
	[ "$status" -eq 125 ]
	[[ "$stderr" == "isorun: selftest: --policy: $W/missing.policy: "* ]]
	run --separate-stderr selftest extra
	[ "$status" -eq 125 ]
	[ -z "$(ls -A "$W")" ]
}

@test "selftest --help: usage on stdout, exit 0" {
	run --separate-stderr selftest --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "Usage: isorun selftest [--json] [OPTION]..." ]]
}
