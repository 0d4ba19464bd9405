#!/usr/bin/env bats
# docs/use/pytest.md, every example as the page shows it (docs_use.bash).

# the longest files, started first (tests/run-all.sh)
# bats file_tags=slow

load helpers
load docs_use

# --- pytest.md --------------------------------------------------------------

@test "pytest.md: bare, a fixture's forgotten servers outlive a green pytest -n auto" {
	require "pytest with xdist (python3-pytest-xdist)" xdist_ok
	run_page pytest.md pytest-bare
	assert_page_ok
	# one server per worker, seen by pgrep after pytest returned
	[ "$(grep -c 'serve.py$' <<<"$output")" -ge 1 ]
	assert_no_tree
}

@test "pytest.md: under isorun the forgotten servers are named and killed, exit 122" {
	require "pytest with xdist (python3-pytest-xdist)" xdist_ok
	run_page pytest.md pytest-leak
	assert_page_ok
	[[ "$output" == *"passed in"* ]]
	[[ "$output" == *"isorun: FAILED (exit 122)"* ]]
	assert_leaks_dead 1
	assert_no_tree
}

@test "pytest.md: the clean suite passes quietly; --watch names .pytest_cache and __pycache__ until they go" {
	require "pytest with xdist (python3-pytest-xdist)" xdist_ok
	run_page pytest.md pytest-clean
	assert_page_ok
	[[ "$output" != *"leaked"* ]]
	# what the first run left, and only that: the second run added nothing
	assert_checkout pytest .pytest_cache __pycache__
	assert_no_tree
}

@test "pytest.md: isorun.conf (needs isorun.conf support)" {
	require "pytest with xdist (python3-pytest-xdist)" xdist_ok
	run_page pytest.md pytest-conf
	assert_page_ok
	# the env-dir from the file kept __pycache__ out; residue=fail caught the cache
	assert_checkout pytest isorun.conf .pytest_cache
	assert_no_tree
}
