#!/usr/bin/env bats
# docs/use/meson.md, every example as the page shows it (docs_use.bash), and the
# hook's promises on examples/use/meson: meson's 77 and 99 survive isorun, a
# clean test is quiet, and tests in parallel never share a report.

# it configures a build directory per test (tests/run-all.sh starts it first)
# bats file_tags=slow

load helpers
load docs_use

meson_ok() {
	debian_tool meson && debian_tool ninja
}

# One build directory for the tests below the page's, set up once; the trees go
# where each test's ISORUN_ROOT says.
setup_file() {
	B=$BATS_FILE_TMPDIR/meson
	export B
	meson_ok || return 0
	cp -r "$BATS_TEST_DIRNAME/../../examples/use/meson" "$B"
	(cd "$B" && PATH=/usr/bin:/bin meson setup build >/dev/null)
}

# meson_wrapped ARGS...: meson test with the page's wrapper, fresh reports.
meson_wrapped() {
	rm -rf "$B/reports"
	run env -C "$B" PATH=/usr/bin:/bin ISORUN_ROOT="$R" meson test -C build \
		--wrapper "$ISORUN --settle 1s --report $B/reports/ --" "$@"
}

# meson's own log in JSON lines, which the reports' validator (teardown) would
# take for an isorun report.
rm_json_log() {
	rm -f "$1"/meson-logs/testlog*.json
}

# The part of meson's log about test $1 (in build directory $2, else the file's).
test_log() {
	awk -v t="$1" '/^test: /{on = ($2 == t)} on' "${2:-$B/build}/meson-logs/testlog-isorun.txt"
}

# --- meson.md ---------------------------------------------------------------

@test "meson.md: bare, the leaking test passes and its helper outlives meson test" {
	require "meson (meson, ninja-build)" meson_ok
	run_page meson.md meson-bare
	assert_page_ok
	[[ "$output" == *" leaks "*" OK "* ]]
	[[ "$output" != *"isorun:"* ]]
	rm_json_log "$W/examples/use/meson/build"
	assert_no_tree
}

@test "meson.md: --wrapper fails exactly the leaking test, its log alone has the leak, 77 and 99 kept; isorun report names it, exit 122" {
	require "meson (meson, ninja-build)" meson_ok
	run_page meson.md meson
	assert_page_ok
	# the leak is in the leaking test's log, and in no other test's
	local build=$W/examples/use/meson/build
	[ "$(grep -c 'isorun: leaked: pid' "$build/meson-logs/testlog-isorun.txt")" -eq 1 ]
	output=$(test_log leaks "$build") assert_leaks_dead 1
	test_log leaks "$build" | grep -q 'result: *exit status 122'
	# meson's words: the leak is the test's FAIL, the rest is meson's own
	[[ "$output" == *" leaks "*"FAIL "*"exit status 122"* ]]
	[[ "$output" == *" skips "*"SKIP "*"exit status 77"* ]]
	[[ "$output" == *" errors "*"ERROR "*"exit status 99"* ]]
	[[ "$output" == *" fails "*"FAIL "*"exit status 1"* ]]
	[[ "$output" == *" passes "*"OK "* ]]
	# one report per test, named by its program; meson says it ran them only
	# from the version that sets MESON_TEST_ITERATION (Debian 12's 1.0 does not)
	local d=$W/examples/use/meson/reports f
	[ "$(find "$d" -name '*.json' | wc -l)" -eq 5 ]
	for f in passes leaks skips fails errors; do
		f=$(echo "$d/$f".sh-*.json)
		[ -f "$f" ]
		grep -Eq '"runner": *(null|"meson test")' "$f"
	done
	assert_checkout meson build reports
	rm_json_log "$W/examples/use/meson/build"
	assert_no_tree
}

# --- the hook's promises ----------------------------------------------------

@test "meson: a clean test under isorun is silent on the console and in meson's log" {
	require "meson (meson, ninja-build)" meson_ok
	meson_wrapped passes
	[ "$status" -eq 0 ]
	[[ "$output" == *" passes "*"OK "* ]]
	[[ "$output" != *"isorun:"* ]]
	run test_log passes
	[[ "$output" == *"command:"*"$ISORUN --settle 1s"*"passes.sh"* ]]
	[[ "$output" == *"passes: ok"* ]]
	[[ "$output" != *"isorun:"* ]]
	[ "$(find "$B/reports" -name 'passes.sh-*.json' | wc -l)" -eq 1 ]
	assert_no_tree
}

@test "meson: --num-processes 2 --repeat 3 writes one report per run, none shared; isorun report merges them" {
	require "meson (meson, ninja-build)" meson_ok
	# --repeat stops at a failure: a passing and a skipping test, 3 times each
	meson_wrapped --num-processes 2 --repeat 3 passes skips
	[ "$status" -eq 0 ]
	local t
	[ "$(find "$B/reports" -name '*.json' | wc -l)" -eq 6 ]
	for t in passes skips; do
		[ "$(find "$B/reports" -name "$t.sh-*.json" | wc -l)" -eq 3 ]
	done
	run "$ISORUN" report "$B/reports/"
	# a skip's 77 is a run that did not pass for the merge (meson.md, Gotchas)
	[ "$status" -eq 77 ]
	[[ "$output" == *"isorun report: 6 runs: 3 passed, 3 failed, 0 unfinished; 0 leaked, 0 retained"* ]]
	assert_no_tree
}
