#!/usr/bin/env bats
# docs/use/go-test.md, every example as the page shows it (docs_use.bash).

# the longest files, started first (tests/run-all.sh)
# bats file_tags=slow

load helpers
load docs_use

# --- go-test.md -------------------------------------------------------------

@test "go-test.md: bare, the helper outlives go test and the caches land in HOME" {
	require "go (golang-go)" debian_tool go
	run_page go-test.md go-bare
	assert_page_ok
	[ -d "$W/home/.cache/go-build" ]
	assert_no_tree
}

@test "go-test.md: under isorun GOCACHE and GOPATH are in the tree" {
	require "go (golang-go)" debian_tool go
	run_page go-test.md go-env
	assert_page_ok
	[[ "$output" == *"$U/"*"/home/.cache/go-build"* ]]
	assert_no_tree
}

@test "go-test.md: under isorun the forgotten helper is named and killed, exit 122" {
	require "go (golang-go)" debian_tool go
	run_page go-test.md go-leak
	assert_page_ok
	[[ "$output" == *'`sleep 300`'* ]]
	assert_leaks_dead 1
	assert_checkout go-leak
	assert_no_tree
}

@test "go-test.md: the clean module passes quietly and leaves the module as it was" {
	require "go (golang-go)" debian_tool go
	run_page go-test.md go-clean
	assert_page_ok
	[[ "$output" != *"isorun:"* ]]
	assert_checkout go
	assert_no_tree
}

@test "go-test.md: isorun.conf (needs isorun.conf support)" {
	require "go (golang-go)" debian_tool go
	run_page go-test.md go-conf
	assert_page_ok
	assert_checkout go isorun.conf words.test
	assert_no_tree
}
