#!/usr/bin/env bats
# docs/use/go-test-exec.md: `go test -exec isorun` runs each package's test
# binary in a tree of its own, and `isorun report` merges their reports
# (docs_use.bash runs the page; docs_runners.bash reads the reports).

# it compiles: among the longest files, started first (tests/run-all.sh)
# bats file_tags=slow

load helpers
load docs_use
load docs_runners

# go as run-page runs it: Debian's, offline, its caches in the work's home
go_here() {
	env PATH=/usr/bin:/bin HOME="$W/home" GOPROXY=off GOFLAGS=-mod=mod GOTOOLCHAIN=local \
		go "$@"
}

@test "go-test-exec.md: the leaking package fails by its own name, go test exits 1, the merge 122" {
	require "go (golang-go)" debian_tool go
	run_page go-test-exec.md go-exec
	assert_page_ok
	# one leak, in the package that made it, and it is gone
	[ "$(grep -c '^isorun: leaked: ' <<<"$output")" -eq 1 ]
	[[ "$output" == *'`sleep 300` (cwd '*'/go-exec/stock, '* ]]
	assert_leaks_dead 1
	[[ "$output" == *$'ok  \texample.com/shop/cart'* ]]
	[[ "$output" == *$'FAIL\texample.com/shop/stock'* ]]
	# one report per package's binary, each saying which it was
	run reports_in "$W/examples/use/go-exec/reports"
	[ "$status" -eq 0 ]
	[ "$output" = $'cart.test|passed|0|go test|cart.test\nstock.test|failed|122|go test|stock.test' ]
	assert_checkout go-exec reports
	assert_no_tree
}

@test "go-test-exec.md: a clean package is silent; a failing test stays go's failure through isorun" {
	require "go (golang-go)" debian_tool go
	run_page go-test-exec.md go-exec-clean
	assert_page_ok
	# isorun said nothing but the merge's lines
	! grep -v '^isorun report: ' <<<"$output" | grep -q 'isorun'
	# a failing test, in the build cache the page's run filled: bare and
	# wrapped, go test prints the same verdict lines and exits 1
	cd "$W/examples/use/go-exec"
	printf 'package cart\n\nimport "testing"\n\nfunc TestBroken(t *testing.T) { t.Fatal("broken on purpose") }\n' \
		>cart/broken_test.go
	run go_here test -count=1 ./cart
	[ "$status" -eq 1 ]
	[[ "$output" == *"--- FAIL: TestBroken"*"broken on purpose"*$'FAIL\texample.com/shop/cart'* ]]
	run go_here test -count=1 -exec "$ISORUN --root $R --report $W/failed/ --" ./cart
	[ "$status" -eq 1 ]
	[[ "$output" == *"--- FAIL: TestBroken"*"broken on purpose"*$'FAIL\texample.com/shop/cart'* ]]
	[[ "$output" == *"isorun: FAILED (exit 1): command exited 1"* ]]
	[[ "$output" != *"leaked"* ]]
	run reports_in "$W/failed"
	[ "$output" = 'cart.test|failed|1|go test|cart.test' ]
	# the merge's exit code is the run's: 1, not a leak's 122
	run "$ISORUN" report "$W/failed"
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAILED cart.test (exit 1)"* ]]
	assert_no_tree
}
