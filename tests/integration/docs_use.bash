# Shared by the docs_*.bats files: each runs the examples of docs/use pages
# (examples/use/run-page extracts the commands and checks exit codes and output,
# see docs/use/README.md), in a copy of examples/use under the test's own
# directory, with Debian's tools and no network.  Each leaking example is a
# control: its leak must be named and the run must exit 122.
# shellcheck shell=bash

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
	unshare -Urpf --mount-proc --propagation slave true
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
	local home
	home=$(real_home) || return 1
	echo "$home/.isorun-guard-home-demo"
}

# Before a page runs the example that writes into the real home: isorun's MODE
# must make that home unwritable, else the example is not run at all.
assert_home_guarded() {
	local home
	home=$(real_home) || return 1
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
