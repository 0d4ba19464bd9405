#!/usr/bin/env bats
# Real test suites that nobody here wrote keep every verdict under isorun: Go's
# standard library (os/exec, os/signal, syscall, net), bare and wrapped, compared
# test by test.  As root it exercises uid drops from $TMPDIR (TestDeathSignal), raw
# sockets (TestIPConn) and setgroups (TestGroupCleanup).

# the longest files, started first (tests/run-all.sh)
# bats file_tags=slow

load helpers

GO_PKGS=(os/exec os/signal syscall net)

setup_file() {
	# one build cache for every variant: it compiles once, and the tree stays small
	export GOCACHE="$BATS_FILE_TMPDIR/gocache" GOPATH="$BATS_FILE_TMPDIR/gopath"
	# A short root, as /tmp is: net's tests bind unix sockets at $TMPDIR/NNNN/sock,
	# and a tree below bats' own directories would exceed sun_path (108 bytes).
	# 0711 like /tmp's parents: root's tests reach $TMPDIR after a uid drop.
	SUITES_ROOT=$(mktemp -d /tmp/isorun-suites.XXXXXX)
	chmod 0711 "$SUITES_ROOT"
	mkdir -m 1777 "$SUITES_ROOT/bare"
	export SUITES_ROOT
}

teardown_file() {
	rm -rf "$SUITES_ROOT"
}

# Per-test verdicts of a `go test -json` stream: "package test pass|fail|skip", sorted.
verdicts() {
	python3 -c '
import json, sys
out = set()
for line in open(sys.argv[1], errors="replace"):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("Test") and e.get("Action") in ("pass", "fail", "skip"):
        out.add((e["Package"], e["Test"], e["Action"]))
for t in sorted(out):
    print(*t)
' "$1"
}

# The verdicts of two runs agree: no test with another verdict, no top-level test
# in one run only.  A subtest missing from one stream while its parent kept its
# verdict is test2json losing a line of interleaved subprocess output (seen once
# for os/signal TestNohup/nohup-2 on a loaded machine), said but not counted.
verdicts_agree() {
	python3 -c '
import sys
def load(path):
    v = {}
    for line in open(path):
        pkg, test, action = line.split()
        v[(pkg, test)] = action
    return v
a, b = load(sys.argv[1]), load(sys.argv[2])
bad = 0
for k in sorted(set(a) | set(b)):
    va, vb = a.get(k), b.get(k)
    if va == vb:
        continue
    parent = (k[0], k[1].split("/")[0])
    if None in (va, vb) and "/" in k[1] and a.get(parent) == b.get(parent):
        print("note: %s %s only in one stream (%s / %s)" % (k[0], k[1], va, vb))
        continue
    print("DIFFERS: %s %s: %s / %s" % (k[0], k[1], va, vb))
    bad += 1
sys.exit(1 if bad else 0)
' "$1" "$2" >&2
}

# go test, its exit status ignored (the verdicts are compared, not the total).
# isorun hands the command fds 0-2 only; the bare run gets the same, or bats' own
# open fds make TestExtraFiles skip ("test was run with FDs open").  -vet=off: vet
# reads the packages' sources, never runs a test, and was a third of the CPU.
go_test() {
	python3 -c 'import os, sys; os.closerange(3, 65536); os.execvp(sys.argv[1], sys.argv[1:])' \
		"$@" go test -vet=off -count=1 -short -json "${GO_PKGS[@]}" || true
}

@test "go test ${GO_PKGS[*]}: every test's verdict is the same bare, under isorun and under isorun --pidns" {
	require "go (golang-go, make deps)" command -v go
	TMPDIR=$SUITES_ROOT/bare go_test env >"$W/bare.json"
	verdicts "$W/bare.json" >"$W/bare.v"
	# a run that did not test is no comparison
	[ "$(grep -c ' pass$' "$W/bare.v")" -gt 100 ]
	go_test "$ISORUN" --no-config --root "$SUITES_ROOT" -- >"$W/iso.json"
	verdicts "$W/iso.json" >"$W/iso.v"
	verdicts_agree "$W/bare.v" "$W/iso.v"
	require "PID namespaces" iso --pidns -- true
	go_test "$ISORUN" --no-config --root "$SUITES_ROOT" --pidns -- >"$W/pidns.json"
	verdicts "$W/pidns.json" >"$W/pidns.v"
	verdicts_agree "$W/bare.v" "$W/pidns.v"
	# nothing of either run is left
	[ -z "$(ls -A "$SUITES_ROOT/isorun-$(id -u)" | grep -vx .empty)" ]
}

# --- attribution in real runners (issue 14): how far each one tells its children ---

# A pytest suite of 200 tests; with `leak`, exactly one of them starts a daemon.
pytest_suite() {
	mkdir -p "$W/py/tests"
	cat >"$W/py/tests/test_many.py" <<'PY'
import pytest


@pytest.mark.parametrize("i", range(199))
def test_ok(i):
    assert i >= 0
PY
	if [ "$1" = leak ]; then
		cat >"$W/py/tests/test_daemon.py" <<'PY'
import subprocess


def test_starts_daemon():
    subprocess.Popen(["sleep", "600"], start_new_session=True)
PY
	else
		printf 'def test_starts_nothing():\n    pass\n' >"$W/py/tests/test_daemon.py"
	fi
}

@test "pytest -n 2: the one test of 200 that starts a daemon is named by its node id" {
	require "pytest-xdist (python3-pytest-xdist, make deps)" /usr/bin/python3 -c 'import xdist'
	pytest_suite leak
	cd "$W/py"
	run --separate-stderr iso --settle 1s --report "$W/r.json" -- \
		/usr/bin/python3 -m pytest -q -n 2 -p no:cacheprovider tests
	[ "$status" -eq 122 ]
	[[ "$output" == *"200 passed"* ]]
	[ "$(grep -c '^isorun: leaked' <<<"$stderr")" -eq 1 ]
	[[ "$stderr" == *"isorun: leaked: pid "*" \`sleep 600\` ("*"); killed
isorun:   during test: tests/test_daemon.py::test_starts_daemon (call)
isorun:   started by: python3 -m pytest -q -n 2 -p ... → python3 -u -c ..."* ]]
	python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["leaks"][0]["attribution"]
assert a["test"] == {"runner": "pytest", "id": "tests/test_daemon.py::test_starts_daemon", "phase": "call"}, a
assert a["started_by"][0][:3] == ["/usr/bin/python3", "-m", "pytest"], a
' "$W/r.json"
	# control: the same suite without the daemon passes, and nothing is attributed
	pytest_suite clean
	run --separate-stderr iso --settle 1s -- /usr/bin/python3 -m pytest -q -n 2 -p no:cacheprovider tests
	[ "$status" -eq 0 ]
	[[ "$output" == *"200 passed"* ]]
	[[ "$stderr" != *"during test"* && "$stderr" != *"leaked"* ]]
}

# A Go package whose TestLeak starts a daemon; TestClean does nothing.
go_suite() {
	mkdir -p "$W/go"
	printf 'module leaky\n\ngo 1.19\n' >"$W/go/go.mod"
	cat >"$W/go/leak_test.go" <<'GO'
package leaky

import (
	"os/exec"
	"syscall"
	"testing"
)

func TestClean(t *testing.T) {}

func TestLeak(t *testing.T) {
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
}
GO
}

@test "go test: a leak is attributed to the test binary, and to -run when it was given" {
	require "go (golang-go, make deps)" command -v go
	go_suite
	cd "$W/go"
	run --separate-stderr iso --settle 1s -- go test -count=1 .
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"\`sleep 600\`"*"
isorun:   during go test: leaky.test
isorun:   started by: go test -count=1 . → leaky.test -test.paniconexit0 "* ]]
	run --separate-stderr iso --settle 1s -- go test -count=1 -run 'TestLeak$' .
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"isorun:   during go test: leaky.test -test.run=TestLeak\$"* ]]
	# control: the clean test alone passes, nothing attributed
	run --separate-stderr iso --settle 1s -- go test -count=1 -run 'TestClean$' .
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"during"* && "$stderr" != *"leaked"* ]]
}

@test "node --test: a leak is attributed to the test file that started it" {
	require "node (nodejs, make deps)" command -v node
	mkdir -p "$W/node/test"
	cat >"$W/node/test/leak.test.js" <<'JS'
const test = require('node:test');
const { spawn } = require('node:child_process');
test('starts a daemon', () => {
  spawn('sleep', ['600'], { detached: true, stdio: 'ignore' }).unref();
});
JS
	printf "require('node:test')('clean', () => {});\n" >"$W/node/test/clean.test.js"
	cd "$W/node"
	run --separate-stderr iso --settle 1s --report "$W/r.json" -- node --test
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"\`sleep 600\`"*"
isorun:   during node --test: $W/node/test/leak.test.js
isorun:   started by: node --test → node .../leak.test.js"* ]]
	python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["leaks"][0]["attribution"]["test"]
assert t == {"runner": "node --test", "id": sys.argv[2], "phase": None}, t
' "$W/r.json" "$W/node/test/leak.test.js"
	# control: the clean file alone passes, nothing attributed
	run --separate-stderr iso --settle 1s -- node --test test/clean.test.js
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"during"* && "$stderr" != *"leaked"* ]]
}
