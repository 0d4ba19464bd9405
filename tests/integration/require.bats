#!/usr/bin/env bats
# The suite's own feature gate, helpers.bash's require: a skip says this
# machine lacks a feature.  A skip the machine does not justify fails instead,
# everywhere, not only under CI=true (issue 39 item 10: homehint.bats' tests
# turned into green skips in a loaded ordinary user's make check, between
# tests whose same probe passed).  Each case runs a small bats file of its own
# that loads the real helpers.

load helpers

# inner FILE...: run bats files as a developer would (no CI=true, no suite-wide
# record of probes unless the case sets TESTS_PROBES_DIR).
inner() {
	run env -u CI ISORUN="$ISORUN" HELPERS="$H" bats --tap "$@"
}

# tfile NAME BODY: a bats file loading the real helpers, in $W.  BODY spells
# its tests "TEST": bats would read a line of this file that starts with the
# real word as a test of its own.
tfile() {
	printf 'load %s/helpers\n%s\n' "$BATS_TEST_DIRNAME" "$2" | sed 's/^TEST /@test /' >"$W/$1.bats"
	printf '%s\n' "$W/$1.bats"
}

@test "control: a probe that fails every time, of what selftest does not probe, is a skip naming what it said" {
	unset TESTS_PROBES_DIR
	f=$(tfile t 'TEST "t" {
	require "the widget" sh -c "echo no widget device >&2; exit 3"
	true
}')
	inner "$f"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "ok 1 t # skip the widget not available here (no widget device)" ]
	# under CI=true every feature is required
	CI=true run bats --tap "$f"
	[ "$status" -ne 0 ]
	[[ "$output" == *"not ok 1 t"* ]]
	[[ "$output" == *"required feature missing under CI: the widget (exit 3: no widget device)"* ]]
}

@test "a probe that fails once and passes at once fails the test: a transient failure is no machine's lack" {
	unset TESTS_PROBES_DIR
	export COUNT=$W/count
	f=$(tfile t 'TEST "t" {
	require "the widget" sh -c "[ -e \"\$COUNT\" ] || { : >\"\$COUNT\"; echo busy >&2; exit 1; }"
	true
}')
	inner "$f"
	[ "$status" -ne 0 ]
	[[ "$output" == *"not ok 1 t"* ]]
	[[ "$output" == *"require: the probe of the widget (sh -c "*") failed (exit 1: busy) and passed at once: a failure this machine does not justify"* ]]
}

@test "a probe that passed earlier in the suite fails the test when it fails later: same file, another file, another bats run" {
	unset TESTS_PROBES_DIR
	export FLAG=$W/flag
	# the same probe in two files' own functions: its body names it, not its name
	f1=$(tfile a 'widget_ok() { [ ! -e "$FLAG" ]; }
TEST "passes" {
	require "the widget" widget_ok
}
TEST "then the widget goes" {
	: >"$FLAG"
	require "the widget" widget_ok
}')
	inner "$f1"
	[ "$status" -ne 0 ]
	[ "${lines[1]}" = "ok 1 passes" ]
	[ "${lines[2]}" = "not ok 2 then the widget goes" ]
	[[ "$output" == *"require: the probe of the widget (widget_ok) failed (exit 1), but passed earlier in this suite"* ]]
	# another file of the same bats run
	rm -f "$FLAG"
	f2=$(tfile b 'ok_widget() { [ ! -e "$FLAG" ]; }
TEST "gone" {
	: >"$FLAG"
	require "the widget" ok_widget
}')
	sed -i '/then the widget goes/,$d' "$f1"
	inner "$f1" "$f2"
	[ "${lines[1]}" = "ok 1 passes" ]
	[ "${lines[2]}" = "not ok 2 gone" ]
	# bats runs of one make check share TESTS_PROBES_DIR (tests/run-all.sh)
	rm -f "$FLAG"
	export TESTS_PROBES_DIR=$W/probes
	inner "$f1"
	[ "$status" -eq 0 ]
	inner "$f2"
	[ "$status" -ne 0 ]
	[[ "$output" == *"but passed earlier in this suite"* ]]
	# control: never seen passing, a fresh record: a skip
	rm -rf "$TESTS_PROBES_DIR"
	inner "$f2"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "ok 1 gone # skip the widget not available here" ]
}

# fake_selftest VERDICT: an isorun whose selftest says VERDICT for every probe.
fake_selftest() {
	mkdir -p "$W/fake"
	printf '#!/bin/sh\necho %s\n' "'{\"probes\": [{\"name\": \"userns\", \"verdict\": \"$1\"}, {\"name\": \"pidns\", \"verdict\": \"$1\"}, {\"name\": \"mountns\", \"verdict\": \"yes\"}]}'" >"$W/fake/isorun"
	chmod +x "$W/fake/isorun"
}

@test "a namespace probe that fails where isorun selftest finds those namespaces fails the test" {
	unset TESTS_PROBES_DIR
	f=$(tfile t 'TEST "t" {
	require "user and PID namespaces" sh -c "echo refused >&2; false"
}')
	fake_selftest yes
	ISORUN=$W/fake/isorun
	inner "$f"
	[ "$status" -ne 0 ]
	[[ "$output" == *"require: the probe of user and PID namespaces (sh -c "*") failed (exit 1: refused), but isorun selftest says this machine has them"* ]]
	# control: selftest says no; a feature it does not probe (network)
	fake_selftest no
	inner "$f"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "ok 1 t # skip user and PID namespaces not available here (refused)" ]
	sed -i 's/user and PID namespaces/user and network namespaces/' "$f"
	fake_selftest yes
	inner "$f"
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" == "ok 1 t # skip user and network namespaces"* ]]
}

@test "the real isorun selftest: a failing user namespace probe on a machine that has them fails the test" {
	require "user and PID namespaces" unshare -Urpf --mount-proc --propagation slave true
	unset TESTS_PROBES_DIR
	f=$(tfile t 'TEST "t" {
	require "user namespaces" false
}')
	inner "$f"
	[ "$status" -ne 0 ]
	[[ "$output" == *"but isorun selftest says this machine has them"* ]]
}

# getent that finds no one: a passwd lookup that fails (a loaded name service)
no_passwd() {
	mkdir -p "$W/nss"
	printf '#!/bin/sh\nexit 2\n' >"$W/nss/getent"
	chmod +x "$W/nss/getent"
	PATH=$W/nss:$PATH
}

@test "no home in passwd: path_outside_home and real_home fail, never an empty PATH or home" {
	no_passwd
	run path_outside_home
	[ "$status" -eq 1 ]
	[ "$output" = "real_home: no home for uid $(id -u) in passwd (getent passwd: '')" ]
	run real_home
	[ "$status" -eq 1 ]
	run home_scratch
	[ "$status" -eq 1 ]
	[ ! -e "$BATS_TEST_TMPDIR/home-scratch" ]
}

@test "homehint.bats with no home in passwd: its tests fail, none is a green skip" {
	require "user and PID namespaces" unshare -Urpf --mount-proc --propagation slave true
	unset TESTS_PROBES_DIR
	no_passwd
	inner -f "control: the working directory outside the home gets no hint" "$BATS_TEST_DIRNAME/homehint.bats"
	[ "$status" -ne 0 ]
	[ "${lines[0]}" = "1..1" ]
	[[ "${lines[1]}" == "not ok 1 control: the working directory outside the home gets no hint"* ]]
	[[ "$output" != *"# skip"* ]]
	[[ "$output" == *"real_home: no home for uid"* ]]
}
