#!/usr/bin/env bats
# docs/use/cargo-runner.md: Cargo's runner runs each test binary in a tree of
# its own, and `isorun report` merges their reports (docs_use.bash runs the
# page; docs_runners.bash reads the reports).

# it compiles: among the longest files, started first (tests/run-all.sh)
# bats file_tags=slow

load helpers
load docs_use
load docs_runners

# the page's example names the triple of an x86_64 Linux host
x86_64_host() {
	[ "$(/usr/bin/rustc -vV | sed -n 's/^host: //p')" = x86_64-unknown-linux-gnu ]
}

@test "cargo-runner.md: CARGO_TARGET_<TRIPLE>_RUNNER: the leaking binary fails by its own name, --no-fail-fast's 101, the merge 122" {
	require "cargo" debian_tool cargo
	require "an x86_64-unknown-linux-gnu host (the page's triple)" x86_64_host
	run_page cargo-runner.md cargo-runner
	assert_page_ok
	[ "$(grep -c '^isorun: leaked: ' <<<"$output")" -eq 1 ]
	assert_leaks_dead 1
	# the three test binaries all ran (--no-fail-fast), each with its report
	[ "$(grep -c '^test result: ok. 1 passed' <<<"$output")" -eq 3 ]
	run reports_in "$W/examples/use/cargo-runner/reports"
	[ "$status" -eq 0 ]
	[ "$output" = $'cart|passed|0|cargo test|cart\nshop|passed|0|cargo test|shop\nstock|failed|122|cargo test|stock' ]
	assert_checkout cargo-runner reports target
	assert_no_tree
}

@test "cargo-runner.md: runner in .cargo/config.toml: a clean binary is silent, a leak's 122 is cargo's exit, a failed test's 101 stays" {
	require "cargo" debian_tool cargo
	run_page cargo-runner.md cargo-runner-conf
	assert_page_ok
	assert_leaks_dead 1
	# the clean run's transcript: cargo's lines, none of isorun's
	local clean
	clean=$(sed -n '/^\$ cargo test -q --test cart$/,/^# exit /p' <<<"$output")
	[[ "$clean" == *"test result: ok. 1 passed"* ]]
	[[ "$clean" != *"isorun"* ]]
	cd "$W/examples/use/cargo-runner"
	run reports_in reports
	[ "$output" = $'cart|passed|0|cargo test|cart\nstock|failed|122|cargo test|stock' ]
	# a failing test, built beside the page's (its target/ and the runner in
	# .cargo/config.toml): cargo's 101 and its words, through isorun
	rm -r reports
	printf '#[test]\nfn broken() {\n    panic!("broken on purpose");\n}\n' >tests/broken.rs
	run env PATH="$W/bin:/usr/bin:/bin" HOME="$W/home" CARGO_NET_OFFLINE=true ISORUN_ROOT="$R" \
		cargo test -q --test broken
	[ "$status" -eq 101 ]
	[[ "$output" == *"broken on purpose"*"test result: FAILED. 0 passed; 1 failed"* ]]
	[[ "$output" == *"isorun: FAILED (exit 101): command exited 101"* ]]
	[[ "$output" == *'error: test failed, to rerun pass `--test broken`'* ]]
	[[ "$output" != *"leaked"* ]]
	run reports_in reports
	[ "$output" = 'broken|failed|101|cargo test|broken' ]
	run "$ISORUN" report reports
	[ "$status" -eq 101 ]
	assert_no_tree
}
