#!/usr/bin/env bats
# docs/use/*.md: every example a page shows is run here as the page shows it
# (examples/use/run-page extracts the commands and checks exit codes and output,
# see docs/use/README.md), in a copy of examples/use under the test's own
# directory, with Debian's tools and no network.  Each leaking example is a
# control: its leak must be named and the run must exit 122.

# the longest files, started first (tests/run-all.sh)
# bats file_tags=slow

load helpers

TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
PAGES=$TOP/docs/use
RUN_PAGE=$TOP/examples/use/run-page

# The tools as Debian packages them; run-page runs the pages with
# PATH=/usr/bin:/bin, so a rustup or pyenv earlier in the caller's PATH is not
# what is tested.
debian_tool() {
	PATH=/usr/bin:/bin command -v "$1"
}

xdist_ok() {
	/usr/bin/python3 -c 'import pytest, xdist'
}

userns_ok() {
	unshare -Urpf --mount-proc true
}

# run_page PAGE ID: run scenario ID of docs/use/PAGE in $W, trees under $R.
run_page() {
	run --separate-stderr env RUN_PAGE_WORK="$W" ISORUN="$ISORUN" ISORUN_ROOT="$R" \
		HELPERS="$H" "$RUN_PAGE" "$PAGES/$1" "$2"
}

# The page's scenario passed: every command's exit code and shown output matched.
assert_page_ok() {
	if [ "$status" -ne 0 ]; then
		echo "run-page failed (status $status): $stderr" >&2
		return 1
	fi
}

# Every process named as leaked is gone.
assert_leaks_dead() {
	local pid n=0
	for pid in $(grep -o 'isorun: leaked: pid [0-9]*' <<<"$output" | grep -o '[0-9]*$'); do
		assert_dead "$pid"
		n=$((n + 1))
	done
	[ "$n" -ge "${1:-1}" ]
}

# The copy of examples/use/DIR holds what the checkout holds, plus the names
# given (files the page wrote or residue it shows on purpose), and nothing else.
assert_checkout() {
	local dir=$1 want got
	shift
	want=$( (
		cd "$TOP/examples/use/$dir" && find . -mindepth 1 -maxdepth 1
		for f in "$@"; do echo "./$f"; done
	) | sort -u)
	got=$(cd "$W/examples/use/$dir" && find . -mindepth 1 -maxdepth 1 | sort)
	if [ "$want" != "$got" ]; then
		printf 'examples/use/%s after the run:\n%s\nexpected:\n%s\n' "$dir" "$got" "$want" >&2
		return 1
	fi
}

# guard-home's settings test writes here unless isorun stops it.
real_home_file() {
	echo "$(getent passwd "$(id -u)" | cut -d: -f6)/.isorun-guard-home-demo"
}

# Before a page runs the example that writes into the real home: isorun's MODE
# must make that home unwritable, else the example is not run at all.
assert_home_guarded() {
	local home
	home=$(getent passwd "$(id -u)" | cut -d: -f6)
	if "$ISORUN" --root "$R" --protect-home="$1" -- test -w "$home"; then
		echo "--protect-home=$1 leaves $home writable: not running the example" >&2
		return 1
	fi
}

assert_real_home_untouched() {
	local f
	f=$(real_home_file)
	if [ -e "$f" ]; then
		rm -f "$f"
		echo "the guard-home example wrote $f (removed)" >&2
		return 1
	fi
}

@test "docs/use: every console and ini block is run or says why not, and every scenario is run here" {
	local page id n=0
	for page in "$PAGES"/*.md; do
		run --separate-stderr "$RUN_PAGE" --list "$page"
		[ "$status" -eq 0 ]
		for id in $output; do
			grep -q "run_page $(basename "$page") $id\$" "$BATS_TEST_FILENAME" ||
				{ echo "$(basename "$page"): scenario $id is run by no test" >&2 && return 1; }
			n=$((n + 1))
		done
	done
	[ "$n" -ge 15 ]
	# the control: an unmarked block is refused
	printf '# x\n\n```console\n$ true\n```\n' >"$W/unmarked.md"
	run --separate-stderr "$RUN_PAGE" --list "$W/unmarked.md"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"unmarked.md:3: console or ini block without a run/file/not run marker"* ]]
}

@test "docs/use: run-page fails a page whose output or exit code drifted" {
	# the control for every test below: a wrong line or code must turn run-page red
	mkdir -p "$W/docs/use"
	cp -r "$TOP/examples" "$W/"
	printf '<!-- run: a exit=0,3 -->\n```console\n$ echo 12 apples\n1 apple\n$ sh -c "exit 3"\n```\n' >"$W/docs/use/p.md"
	run --separate-stderr env RUN_PAGE_WORK="$W/w1" ISORUN="$ISORUN" ISORUN_ROOT="$R" "$RUN_PAGE" "$W/docs/use/p.md" a
	[ "$status" -eq 1 ]
	[[ "$output" == *'run-page: a: `echo 12 apples` did not print (in this order): 1 apple'* ]]
	sed -i 's/^1 apple$/1 apples/; s/exit=0,3/exit=0,4/' "$W/docs/use/p.md"
	run --separate-stderr env RUN_PAGE_WORK="$W/w2" ISORUN="$ISORUN" ISORUN_ROOT="$R" "$RUN_PAGE" "$W/docs/use/p.md" a
	[ "$status" -eq 1 ]
	[[ "$output" != *"did not print"* ]]
	[[ "$output" == *'run-page: a: `sh -c "exit 3"` exited 3, the page says 4'* ]]
	sed -i 's/exit=0,4/exit=0,3/' "$W/docs/use/p.md"
	run --separate-stderr env RUN_PAGE_WORK="$W/w3" ISORUN="$ISORUN" ISORUN_ROOT="$R" "$RUN_PAGE" "$W/docs/use/p.md" a
	[ "$status" -eq 0 ]
}

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

# --- ci-shell.md ------------------------------------------------------------

@test "ci-shell.md: isorun config shows the committed settings; a run and isorun shell, also interactive, use them (needs isorun.conf support)" {
	require "cargo" debian_tool cargo
	require "user and PID namespaces" userns_ok
	run_page ci-shell.md ci-conf
	assert_page_ok
	# what an interactive `isorun shell` in the crate does with a typed command
	run --separate-stderr bash -c "cd '$W/examples/use/cargo' &&
		printf '%s\n' 'echo \"target=\$CARGO_TARGET_DIR\"' exit |
		env ISORUN_ROOT='$R' SHELL=/bin/sh '$ISORUN' shell"
	[ "$status" -eq 0 ]
	[[ "$output" == *"target=$U/"*"/target"* ]]
	[[ "$stderr" == *"isorun: tree kept at $U/"* ]]
	# the two shells kept their trees, as isorun shell does; the runs did not
	[ "$(find "$U" -mindepth 1 -maxdepth 1 ! -name '.*' | wc -l)" -eq 2 ]
	local t
	for t in "$U"/*; do force_remove "$t"; done
	assert_checkout cargo isorun.conf
}

# --- guard-home.md ----------------------------------------------------------

@test "guard-home.md: --protect-home=ro turns a write to the real home into EROFS" {
	require "user and PID namespaces" userns_ok
	require "make" debian_tool make
	assert_real_home_untouched
	assert_home_guarded ro
	run_page guard-home.md guard-ro
	assert_page_ok
	assert_real_home_untouched
	assert_no_tree
}

@test "guard-home.md: the write reaches the home's directory when it is not guarded (control, by access(2))" {
	require "user and PID namespaces" userns_ok
	local home
	home=$(getent passwd "$(id -u)" | cut -d: -f6)
	# without the guard the directory the example writes to is writable, so the
	# EROFS above is isorun's doing; access(2) asks without writing
	run iso -- test -w "$home"
	[ "$status" -eq 0 ]
	run iso --protect-home=ro -- test -w "$home"
	[ "$status" -eq 1 ]
	assert_no_tree
}

@test "guard-home.md: --protect-home=hide puts an empty unwritable directory over it" {
	require "user and PID namespaces" userns_ok
	require "make" debian_tool make
	assert_home_guarded hide
	run_page guard-home.md guard-hide
	assert_page_ok
	assert_real_home_untouched
	assert_no_tree
}

@test "guard-home.md: --watch . --residue=fail names what the suite left in the checkout" {
	require "user and PID namespaces" userns_ok
	require "make" debian_tool make
	run_page guard-home.md guard-watch
	assert_page_ok
	assert_checkout guard-home results.txt
	assert_no_tree
}

@test "guard-home.md: --watch-home names what the suite wrote in its private home" {
	run_page guard-home.md guard-home-writes
	assert_page_ok
	assert_no_tree
}

@test "guard-home.md: isorun.conf (needs isorun.conf support)" {
	require "user and PID namespaces" userns_ok
	require "make" debian_tool make
	assert_home_guarded ro
	# the page checks `isorun config` first; run-page stops there if the file's
	# protect-home is not in effect, before make check can write anything
	run_page guard-home.md guard-conf
	assert_page_ok
	assert_real_home_untouched
	assert_checkout guard-home isorun.conf results.txt
	assert_no_tree
}

@test "guard-home.md: where namespaces are refused, --pidns=try falls back and --protect-home fails with 125" {
	require "user and PID namespaces" userns_ok
	require "make" debian_tool make
	[ -x "$H/denyns" ]
	run_page guard-home.md guard-denyns
	assert_page_ok
	assert_real_home_untouched
	assert_no_tree
}

@test "guard-home.md: --ro-bind of the checkout turns the suite's write there into EROFS" {
	require "user and PID namespaces" userns_ok
	require "make" debian_tool make
	run_page guard-home.md guard-robind
	assert_page_ok
	assert_checkout guard-home
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

@test "ci-reports.md: under GITHUB_ACTIONS=true a leak is also an ::error annotation and a failed JUnit case" {
	run_page ci-reports.md annotate
	assert_page_ok
	assert_leaks_dead
	assert_junit_valid "$W/isorun.xml"
}

@test "ci-reports.md: the full example report validates against the shipped schema" {
	sed -n '/^```json$/,/^```$/p' "$PAGES/ci-reports.md" | sed '1d;$d' >"$W/example.json"
	[ -s "$W/example.json" ]
	assert_report_valid "$W/example.json"
}

# --- git.md -----------------------------------------------------------------

# git makes up an identity (user@host.domain) where the host's name has a domain:
# the failure the page shows needs a host where it cannot.
git_cannot_guess() {
	! env -i PATH=/usr/bin:/bin HOME=/nonexistent git var GIT_COMMITTER_IDENT >/dev/null 2>&1
}

@test "git.md: under isorun the global identity is not read: git commit fails with git's words, exit 128" {
	require "git" debian_tool git
	git_cannot_guess || skip "this host's name has a domain: git makes up an identity instead of failing"
	run_page git.md git-fail
	assert_page_ok
	assert_no_tree
}

@test "git.md: GIT_CONFIG_GLOBAL on the command line and in isorun.conf, or git's identity variables: the commit is the page's" {
	require "git" debian_tool git
	local top=$W
	W=$top/fix
	run_page git.md git-fix
	assert_page_ok
	W=$top/env
	run_page git.md git-env
	assert_page_ok
	W=$top/conf
	run_page git.md git-conf
	assert_page_ok
	# control: the page's command line without the setting fails as git-fail does
	W=$top/control
	mkdir -p "$W/docs/use"
	sed 's/ --setenv GIT_CONFIG_GLOBAL="$HOME\/.gitconfig"//' "$PAGES/git.md" >"$W/docs/use/git.md"
	! grep -q 'GIT_CONFIG_GLOBAL="' "$W/docs/use/git.md"
	cp -r "$TOP/examples" "$W/"
	run --separate-stderr env RUN_PAGE_WORK="$W/w" ISORUN="$ISORUN" ISORUN_ROOT="$R" \
		"$RUN_PAGE" "$W/docs/use/git.md" git-fix
	[ "$status" -eq 1 ]
	[[ "$output" == *"run-page: git-fix: \`isorun -- git commit -q --allow-empty -m 'from the suite'\` exited 128, the page says 0"* ]]
	assert_no_tree
}
