#!/usr/bin/env bats
# docs/use/cargo-test.md, every example as the page shows it, and its rustup
# recipe shared with ci-shell.md (docs_use.bash).

# the longest files, started first (tests/run-all.sh)
# bats file_tags=slow

load helpers
load docs_use

# --- cargo-test.md ----------------------------------------------------------

@test "cargo-test.md: bare, the helper outlives cargo test; target/ and ~/.cargo are written" {
	require "cargo" debian_tool cargo
	run_page cargo-test.md cargo-bare
	assert_page_ok
	[ -d "$W/examples/use/cargo-leak/target" ]
	[ -e "$W/home/.cargo/.package-cache" ]
	assert_no_tree
}

@test "cargo-test.md: --watch . catches target/; --env-dir CARGO_TARGET_DIR=target keeps it in the tree" {
	require "cargo" debian_tool cargo
	run_page cargo-test.md cargo-target
	assert_page_ok
	# the second run (after `rm -r target`) left nothing
	assert_checkout cargo
	assert_no_tree
}

@test "cargo-test.md: under isorun the spawned helper is named and killed, exit 122" {
	require "cargo" debian_tool cargo
	run_page cargo-test.md cargo-leak
	assert_page_ok
	[[ "$output" == *'`sleep 300`'* ]]
	assert_leaks_dead 1
	assert_checkout cargo-leak
	assert_no_tree
}

@test "cargo-test.md: isorun.conf (needs isorun.conf support)" {
	require "cargo" debian_tool cargo
	run_page cargo-test.md cargo-conf
	assert_page_ok
	assert_checkout cargo isorun.conf build
	assert_no_tree
}


@test "cargo-test.md, ci-shell.md: rustup's cargo proxy finds its toolchains through setenv = RUSTUP_HOME=\${HOME}/.rustup in isorun.conf" {
	require "cargo" debian_tool cargo
	# a rustup layout in a home of its own: the proxy in ~/.cargo/bin execs the
	# toolchain's cargo from RUSTUP_HOME (default ~/.rustup), as rustup's does
	local home="$W/rustup-home" crate="$W/crate"
	mkdir -p "$home/.cargo/bin" "$home/.rustup/toolchains/stable/bin"
	ln -s "$(debian_tool cargo)" "$home/.rustup/toolchains/stable/bin/cargo"
	cat >"$home/.cargo/bin/cargo" <<'EOS'
#!/bin/sh
t="${RUSTUP_HOME:-$HOME/.rustup}/toolchains/stable/bin/cargo"
[ -x "$t" ] || { echo "error: rustup could not choose a version of cargo to run" >&2; exit 1; }
exec "$t" "$@"
EOS
	chmod +x "$home/.cargo/bin/cargo"
	cp -r "$TOP/examples/use/cargo" "$crate"
	cd "$crate"
	printf '[isorun]\nenv-dir = CARGO_TARGET_DIR=target\nenv-dir = CARGO_HOME=cargo\n' >isorun.conf
	# control: without the setting, the proxy looks in the tree's empty home
	# Debian's rustc behind it: no other rustup proxy on PATH
	run --separate-stderr env HOME="$home" PATH="$home/.cargo/bin:/usr/bin:/bin" \
		"$ISORUN" --root "$R" -- cargo test -q --offline
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"rustup could not choose a version of cargo to run"* ]]
	# the page's line: ${HOME} is the caller's home, read before the tree's replaces it
	printf 'setenv = RUSTUP_HOME=${HOME}/.rustup\n' >>isorun.conf
	run --separate-stderr env HOME="$home" PATH="$home/.cargo/bin:/usr/bin:/bin" \
		"$ISORUN" --root "$R" -- cargo test -q --offline
	[ "$status" -eq 0 ]
	[[ "$output" == *"test result: ok. 1 passed"* ]]
	run env HOME="$home" "$ISORUN" config
	grep -qx "setenv = RUSTUP_HOME=$home/.rustup    ($crate/isorun.conf:4)" <<<"$output"
	assert_no_tree
}
