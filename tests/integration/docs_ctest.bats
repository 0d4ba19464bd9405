#!/usr/bin/env bats
# docs/use/ctest.md, every example as the page shows it (docs_use.bash), and the
# hook's promises on examples/use/ctest: CTest's conventions survive isorun, a
# clean test is quiet, and ctest -j never makes two runs share a report.

# it compiles (tests/run-all.sh starts it first)
# bats file_tags=slow

load helpers
load docs_use

cmake_ok() {
	debian_tool cmake && debian_tool ctest && debian_tool cc
}

# One build directory for the tests below the page's: configured once, with the
# emulator the page shows; the trees go where each test's ISORUN_ROOT says.
setup_file() {
	B=$BATS_FILE_TMPDIR/ctest
	export B
	cmake_ok || return 0
	cp -r "$BATS_TEST_DIRNAME/../../examples/use/ctest" "$B"
	PATH=/usr/bin:/bin cmake -S "$B" -B "$B/build" \
		-DCMAKE_CROSSCOMPILING_EMULATOR="$ISORUN;--settle;1s;--report;$B/reports/;--" >/dev/null
	PATH=/usr/bin:/bin cmake --build "$B/build" >/dev/null
}

# ctest ARGS...: the file's build directory's tests, trees under $R, fresh reports.
ctest_wrapped() {
	rm -rf "$B/reports"
	run env -C "$B/build" PATH=/usr/bin:/bin ISORUN_ROOT="$R" ctest "$@"
}

# --- ctest.md ---------------------------------------------------------------

@test "ctest.md: bare, the leaking test passes and its helper outlives ctest" {
	require "cmake (cmake)" cmake_ok
	run_page ctest.md ctest-bare
	assert_page_ok
	[[ "$output" != *"isorun:"* ]]
	assert_no_tree
}

@test "ctest.md: the emulator fails exactly the leaking test, keeps the skip, and isorun report names it, exit 122" {
	require "cmake (cmake)" cmake_ok
	run_page ctest.md ctest
	assert_page_ok
	assert_leaks_dead 1
	# CTest's words: the skip and the failure are its own, the leak is the test's
	[[ "$output" == *"Test #3: skips "*"***Skipped"* ]]
	[[ "$output" == *"Test #4: fails "*"***Failed"* ]]
	[[ "$output" == *"Test #1: passes "*"   Passed"* ]]
	# one report per test, named by its executable, each saying ctest ran it
	local d=$W/examples/use/ctest/reports f
	[ "$(find "$d" -name '*.json' | wc -l)" -eq 4 ]
	for f in passes leaks skips fails; do
		f=$(echo "$d/$f"-*.json)
		[ -f "$f" ]
		grep -q '"runner": *"ctest"' "$f"
	done
	assert_checkout ctest build reports
	assert_no_tree
}

# --- the hook's promises ----------------------------------------------------

@test "ctest: a clean test under isorun is silent in ctest -V and in ctest's log" {
	require "cmake (cmake)" cmake_ok
	ctest_wrapped -V -R '^passes$'
	[ "$status" -eq 0 ]
	[[ "$output" == *"Test command: $ISORUN"* ]]
	[[ "$output" == *"passes: ok"* ]]
	[[ "$output" != *"isorun:"* ]]
	! grep -q 'isorun:' "$B/build/Testing/Temporary/LastTest.log"
	[ "$(find "$B/reports" -name 'passes-*.json' | wc -l)" -eq 1 ]
	assert_no_tree
}

@test "ctest: SKIP_RETURN_CODE stays a skip and a failure a failure under the emulator" {
	require "cmake (cmake)" cmake_ok
	ctest_wrapped -R 'skips|fails'
	[ "$status" -eq 8 ]
	[[ "$output" == *"skips "*"***Skipped"* ]]
	[[ "$output" == *"fails "*"***Failed"* ]]
	[[ "$output" == *"1 tests failed out of 2"* ]]
	[[ "$output" == *"3 - skips (Skipped)"* ]]
	assert_no_tree
}

@test "ctest: two ctest -j2 at once write one report per run, none shared; isorun report merges them" {
	require "cmake (cmake)" cmake_ok
	rm -rf "$B/reports"
	(cd "$B/build" && PATH=/usr/bin:/bin ISORUN_ROOT="$R" ctest -j2 >"$W/a.out" 2>&1) 3>&- &
	(cd "$B/build" && PATH=/usr/bin:/bin ISORUN_ROOT="$R" ctest -j2 >"$W/b.out" 2>&1) 3>&- &
	wait
	local t
	[ "$(find "$B/reports" -name '*.json' | wc -l)" -eq 8 ]
	for t in passes leaks skips fails; do
		[ "$(find "$B/reports" -name "$t-*.json" | wc -l)" -eq 2 ]
	done
	run "$ISORUN" report "$B/reports/"
	[ "$status" -eq 122 ]
	[[ "$output" == *"isorun report: 8 runs: 2 passed, 6 failed, 0 unfinished; 2 leaked, 0 retained"* ]]
	[ "$(grep -c 'leaked: pid [0-9]* `sleep 300` in test leaks$' <<<"$output")" -eq 2 ]
	assert_leaks_dead 0
	assert_no_tree
}
