#!/usr/bin/env bats
# Reports many runs share (--report DIR/, --junit DIR/) and `isorun report`, which
# merges them into one verdict (issue 38).

load helpers

# The files of DIR whose names end in EXT, one a line.
files() {
	find "$1" -maxdepth 1 -type f -name "*$2" -printf '%f\n' | sort
}

@test "8 runs in parallel into one --report DIR/ and --junit DIR/ write 8 files each, named by the test binary, then the tree's name" {
	local pids=() i f id
	cp /bin/true "$W/pkg.test"
	for i in 1 2 3 4 5 6 7 8; do
		iso --report "$W/out/" --junit "$W/out/" -- "$W/pkg.test" -test.paniconexit0 \
			-test.timeout=10m0s 3>&- &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i"
	done
	[ "$(files "$W/out" .json | wc -l)" -eq 8 ]
	[ "$(files "$W/out" .xml | wc -l)" -eq 8 ]
	# the name a person knows first, then the tree's name: no two runs share one
	for f in $(files "$W/out" .json); do
		[[ "$f" =~ ^pkg\.test-[0-9]{8}T[0-9]{6}Z-[a-z2-7]{20}\.json$ ]]
		[ -f "$W/out/${f%.json}.xml" ]
		grep -qF '<property name="isorun.invocation" value="pkg.test"/>' "$W/out/${f%.json}.xml"
		grep -qF '<property name="isorun.runner" value="go test"/>' "$W/out/${f%.json}.xml"
		id=$(python3 -c 'import json, os, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "passed", r["verdict"]
assert r["invocation"] == {"runner": "go test", "binary": sys.argv[2], "test": "pkg.test",
                           "name": "pkg.test"}, r["invocation"]
print(os.path.basename(r["tree"]["path"]))' "$W/out/$f" "$W/pkg.test")
		[ "$f" = "pkg.test-$id.json" ]
	done
	assert_report_valid "$W"/out/*.json
	assert_junit_valid "$W"/out/*.xml
	assert_no_tree
}

@test "an existing directory without its slash gets a file per run too; the runner's own test name comes first" {
	mkdir "$W/out" "$W/t"
	printf 'echo ok 1\n' >"$W/t/basic.t"
	run env TEST_TARGET=//pkg:unit "$ISORUN" --no-config --root "$R" --report "$W/out" -- /bin/true
	[ "$status" -eq 0 ]
	[[ "$(files "$W/out" .json)" =~ ^__pkg_unit-[0-9]{8}T[0-9]{6}Z-[a-z2-7]{20}\.json$ ]]
	cd "$W"
	run env HARNESS_ACTIVE=1 "$ISORUN" --no-config --root "$R" --report out/ -- sh t/basic.t
	[ "$status" -eq 0 ]
	python3 - "$W/out" <<'PY'
import json, os, sys
got = {}
for f in os.listdir(sys.argv[1]):
    got[f.split("-")[0]] = json.load(open(os.path.join(sys.argv[1], f)))["invocation"]
assert got["__pkg_unit"] == {"runner": "bazel", "binary": "/bin/true", "test": "//pkg:unit",
                             "name": "//pkg:unit"}, got
assert got["t_basic.t"] == {"runner": "prove", "binary": "sh", "test": "t/basic.t",
                            "name": "t/basic.t"}, got
PY
	# the provisional report names its invocation too: a killed run is still known by it
	run env MESON_TEST_ITERATION=1 "$ISORUN" --no-config --root "$R" --report "$W/m/" -- \
		sh -c 'grep -q "\"runner\": \"meson test\"" "$1"/*.json' sh "$W/m"
	[ "$status" -eq 0 ]
}

# Runs of every kind into DIR: clean, leaking, retained, and one whose isorun is
# killed (its provisional report stays); plus, in a directory the teardown's
# validation passes over, a report cut short.
make_runs() {
	local d=$1 odd=$2 owner
	iso --report "$d/" -- /bin/true
	run iso --settle 0 --report "$d/" -- sh -c "$H/daemonize -n $W/pid"
	[ "$status" -eq 122 ]
	ISORUN_TEST_FAULT=no-shield run iso --report "$d/" -- sh -c "mv \"\$ISORUN_NAMESPACE\" $W/moved"
	[ "$status" -eq 122 ]
	force_remove "$W/moved"
	TEST_TARGET=//killed:test "$ISORUN" --no-config --root "$R" --report "$d/" -- \
		sh -c 'echo $$ >"$1.tmp"; mv "$1.tmp" "$1"; exec "$2" -t 600 "$1.never"' sh \
		"$W/kpid" "$H/waitfor" 3>&- &
	owner=$!
	"$H/waitfor" -t 60 "$W/kpid"
	kill -9 "$owner"
	wait "$owner" || true
	kill -9 "$(cat "$W/kpid")" 2>/dev/null || true
	"$ISORUN" gc --root "$R" >/dev/null 2>&1 || true
	head -c 300 "$(ls "$d"/true-*.json)" >"$odd/cut.json"
}

@test "isorun report: clean, leaking, retained, killed and truncated runs give one summary, exit 122 and one valid JUnit file" {
	local odd
	odd=$(invalid_dir)
	make_runs "$W/out" "$odd"
	run --separate-stderr "$ISORUN" report --junit "$W/merged.xml" "$W/out" "$odd"
	[ "$status" -eq 122 ]
	[ -z "$stderr" ]
	[[ "${lines[0]}" == "isorun report: 5 runs: 1 passed, 2 failed, 2 unfinished; 1 leaked, 1 retained" ]]
	[[ "$output" == *"FAILED sh (exit 122): 1 process outlived the command"* ]]
	[[ "$output" == *"  leaked: pid $(cat "$W/pid") \`"*"daemonize"*"\` in test sh"* ]]
	[[ "$output" == *$'\n  retained: '"$U/"* ]]
	[[ "$output" == *"UNFINISHED cut.json: truncated: the report is cut short"* ]]
	[[ "$output" == *"UNFINISHED //killed:test: isorun did not finish (provisional report)"* ]]
	[ "${lines[-1]}" = "isorun report: FAILED (exit 122): 4 of 5 runs did not pass" ]
	assert_junit_valid "$W/merged.xml"
	python3 - "$W/merged.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites" and root.get("tests") == "5", root.attrib
suites = root.findall("testsuite")
assert len(suites) == 5, [s.get("name") for s in suites]
bad = [s for s in suites if s.get("failures") != "0" or s.get("errors") != "0"]
assert sorted(s.get("name") for s in bad) == ["//killed:test", "cut.json", "sh", "sh"], bad
killed = [s for s in bad if s.get("name") == "//killed:test"][0]
assert killed.find("testcase/error").get("type") == "unfinished"
PY
	# under GitHub Actions the same runs are annotations on stderr
	GITHUB_ACTIONS=true run --separate-stderr "$ISORUN" report "$W/out"
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"::error title=isorun%3A sh::1 process outlived the command"* ]]
	[[ "$stderr" == *"::error title=isorun%3A tree retained::$U/"* ]]
}

@test "isorun report: a file that is not a report is one line naming it, exit 125; none at all is 125 too" {
	iso --report "$W/out/" -- /bin/true
	printf '{"a": 1}\n' >"$W/other.json"
	printf 'plain text\n' >"$W/notes.txt"
	mkfifo "$W/fifo"
	for f in "$W/other.json" "$W/notes.txt" "$W/fifo"; do
		run --separate-stderr timeout 20 "$ISORUN" report "$W/out" "$f"
		[ "$status" -eq 125 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "isorun: report: '$f': not "* ]]
		[ -z "$output" ]
	done
	mkdir "$W/empty"
	run --separate-stderr "$ISORUN" report "$W/empty"
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"no report (*.json) found"* ]]
	run --separate-stderr "$ISORUN" report
	[ "$status" -eq 125 ]
	run --separate-stderr "$ISORUN" report --jnuit x "$W/out"
	[ "$status" -eq 125 ]
	[[ "$stderr" == "isorun: report: --jnuit: unknown option (isorun report --help)" ]]
}

@test "isorun report: exit 0 when every run passed, else the highest code of a run that did not" {
	iso --report "$W/out/" -- /bin/true
	iso --report "$W/out/" -- /bin/true
	run "$ISORUN" report "$W/out"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "isorun report: passed" ]
	run iso --report "$W/out/" -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	run "$ISORUN" report "$W/out"
	[ "$status" -eq 3 ]
	run iso --settle 0 --report "$W/out/" -- sh -c "$H/daemonize -n $W/pid"
	[ "$status" -eq 122 ]
	run "$ISORUN" report "$W/out"
	[ "$status" -eq 122 ]
	[ "${lines[-1]}" = "isorun report: FAILED (exit 122): 2 of 4 runs did not pass" ]
}

@test "isorun report merges shards run on two roots, as a CI matrix's artifacts, one directory each" {
	local r1="$BATS_TEST_TMPDIR/root1" r2="$BATS_TEST_TMPDIR/root2"
	mkdir -p "$r1" "$r2" "$W/artifacts"
	"$ISORUN" --no-config --root "$r1" --report "$W/artifacts/shard-1/" -- /bin/true
	run "$ISORUN" --no-config --root "$r2" --settle 0 --report "$W/artifacts/shard-2/" --junit \
		"$W/artifacts/shard-2/" -- sh -c "$H/daemonize -n $W/pid"
	[ "$status" -eq 122 ]
	run "$ISORUN" report --junit "$W/all.xml" "$W/artifacts"
	[ "$status" -eq 122 ]
	[ "${lines[0]}" = "isorun report: 2 runs: 1 passed, 1 failed, 0 unfinished; 1 leaked, 0 retained" ]
	[[ "$output" == *"  report: $W/artifacts/shard-2/sh-"* ]]
	assert_junit_valid "$W/all.xml"
	[ "$(grep -c '<testsuite ' "$W/all.xml")" -eq 2 ]
	[ -z "$(ls -A "$r1/isorun-$(id -u)" "$r2/isorun-$(id -u)" | grep -v '^\.empty$\|:$\|^$')" ]
}

@test "isorun report: a report is input: its strings are escaped, and a verdict its own findings contradict is not taken" {
	local odd
	odd=$(invalid_dir)
	iso --report "$W/out/" -- /bin/true
	python3 - "$(ls "$W"/out/*.json)" "$odd/forged.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["invocation"]["name"] = "x\n::error::forged\x1b[31m"
r["exit"] = 122
json.dump(r, open(sys.argv[2], "w"), indent=2)
PY
	GITHUB_ACTIONS=true run --separate-stderr "$ISORUN" report "$odd/forged.json"
	[ "$status" -eq 122 ]
	[[ "$output" == *'UNFINISHED x\x0a::error::forged\x1b[31m: not a valid report: its verdict and its exit code disagree'* ]]
	[[ "$stderr" != *$'\n::error::forged'* ]]
	[[ "$output" != *$'\e'* && "$stderr" != *$'\e'* ]]
}

@test "isorun report: runs of one program are told apart by their command line (meson's runtest.sh, CTest's json_process)" {
	# a runner that exports no test name (meson test, ctest): every run of a
	# shared driver has the driver's name, and only its arguments say which test
	"$ISORUN" --root "$R" --report "$W/r/" -- sh -c 'exit 3' baseline_heap.txt || true
	"$ISORUN" --root "$R" --report "$W/r/" -- sh -c 'exit 4' 'a b' || true
	"$ISORUN" --root "$R" --report "$W/r/" -- sh -c 'exit 0' passes
	run --separate-stderr "$ISORUN" report "$W/r/"
	[ "$status" -eq 4 ]
	[[ "$output" == *$'FAILED sh (exit 3): command exited 3\n  command: sh -c \'exit 3\' baseline_heap.txt\n'* ]]
	[[ "$output" == *$'FAILED sh (exit 4): command exited 4\n  command: sh -c \'exit 4\' \'a b\'\n'* ]]
	# a run that passed is not listed, its command neither
	[[ "$output" != *"passes"* ]]
	# a command line longer than 512 bytes is cut there
	"$ISORUN" --root "$R" --report "$W/r2/" -- sh -c 'exit 5' "$(printf 'x%.0s' {1..600})" || true
	run --separate-stderr "$ISORUN" report "$W/r2/"
	[ "$status" -eq 5 ]
	local line
	line=$(grep '^  command: ' <<<"$output")
	[[ "$line" == "  command: sh -c 'exit 5' xxx"* ]]
	[ "${#line}" -eq $((11 + 512)) ]
	assert_no_tree
}

@test "isorun report --skip-exit-code 77: a run failed by its command's 77 alone is a skip, not a failure; one with a finding is not" {
	iso --report "$W/out/" -- /bin/true
	run iso --report "$W/out/" -- sh -c 'exit 77'
	[ "$status" -eq 77 ]
	# control: without the option a skip is a run that did not pass
	run "$ISORUN" report "$W/out"
	[ "$status" -eq 77 ]
	run --separate-stderr "$ISORUN" report --skip-exit-code 77 --junit "$W/all.xml" "$W/out"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "isorun report: 2 runs: 1 passed, 1 skipped, 0 failed, 0 unfinished; 0 leaked, 0 retained" ]
	[ "${lines[-1]}" = "isorun report: passed" ]
	grep -q '<skipped message="command exited 77"' "$W/all.xml"
	assert_junit_valid "$W/all.xml"
	# a 77 with a leak, even one only warned about, is no plain skip; another code neither
	run iso --leaks=warn --settle 0 --report "$W/out/" -- sh -c "$H/daemonize -n $W/pid; exit 77"
	[ "$status" -eq 77 ]
	run "$ISORUN" report --skip-exit-code=77 "$W/out"
	[ "$status" -eq 77 ]
	[ "${lines[-1]}" = "isorun report: FAILED (exit 77): 1 of 3 runs did not pass" ]
	run iso --report "$W/out/" -- sh -c 'exit 1'
	run "$ISORUN" report --skip-exit-code 77 "$W/out"
	[ "$status" -eq 77 ]
	[ "${lines[-1]}" = "isorun report: FAILED (exit 77): 2 of 4 runs did not pass" ]
	[ -f "$W/pid" ] && kill "$(cat "$W/pid")" 2>/dev/null || true
}

@test "isorun report --skip-exit-code: isorun's own codes, no number or a ninth code are one line, exit 125" {
	iso --report "$W/out/" -- /bin/true
	for v in 0 122 125 127 128 255 x 7x; do
		run --separate-stderr "$ISORUN" report --skip-exit-code "$v" "$W/out"
		[ "$status" -eq 125 ]
		[ "$stderr" = "isorun: report: --skip-exit-code: '$v' is not a command's exit code: give 1 to 121, 123 or 124 (77 for meson's and CTest's skip)" ]
	done
	run --separate-stderr "$ISORUN" report --skip-exit-code
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: report: --skip-exit-code: needs a number (isorun report --help)" ]
	run --separate-stderr "$ISORUN" report $(printf -- '--skip-exit-code %s ' 1 2 3 4 5 6 7 8 9) "$W/out"
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: report: --skip-exit-code: '9' is one code too many (8 at most)" ]
	# control: a good one passes
	run "$ISORUN" report --skip-exit-code 124 "$W/out"
	[ "$status" -eq 0 ]
}
