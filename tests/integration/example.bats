#!/usr/bin/env bats
# What a new user sees first (README.md, "make example"): a quiet build, then
# the example's output as the README shows it.

load helpers

TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
BUILDDIR=$(dirname "$ISORUN")

# make in the source tree without the outer make's jobserver and level
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$TOP" "$@"
}

# The README's lines and the run's, with what differs from run to run made
# equal: durations (4ms on a quiet machine, 1s on a busy one), numbers, the
# example's directory, and the terminal's Ctrl-C words
# (a test has no terminal; a user running make example has one).
normalize() {
	sed -E -e 's,cwd [^,]*/leaky-suite\.[A-Za-z0-9]+,cwd DIR,' \
		-e 's/[0-9]+(\.[0-9]+)?(ms|s|m)\b/DUR/g' -e 's/[0-9]+(\.[0-9]+)?/N/g' \
		-e 's/; Ctrl-C stops them now$//'
}

@test "make example: the isorun lines are the README's sample" {
	local want got
	want=$(sed -n '/^`make example` runs a tiny suite/,/^## Usage/p' "$TOP/README.md" |
		sed -n '/^```$/,/^```$/p' | grep '^isorun:' | normalize)
	[ "$(wc -l <<<"$want")" -ge 4 ]
	run --separate-stderr mk BUILD="$BUILDDIR" -o "$BUILDDIR/isorun" example
	[ "$status" -eq 0 ]
	got=$(printf "%s\n%s\n" "$output" "$stderr" | grep "^isorun:" | normalize)
	diff <(echo "$want") <(echo "$got")
	# the bare run's daemon was stopped by the script, the isorun run's by isorun
	[[ "$output" == *"isorun exited 122"* ]]
}

@test "the build says one line per file; V=1 shows the commands, -s nothing" {
	local B="$BATS_TEST_TMPDIR/b"
	run mk BUILD="$B" "$B/helpers/spew"
	[ "$status" -eq 0 ]
	[ "$output" = "  LD      $B/helpers/spew" ]
	rm "$B/helpers/spew"
	run mk BUILD="$B" V=1 "$B/helpers/spew"
	[ "$status" -eq 0 ]
	[[ "$output" == *" -o $B/helpers/spew tests/helpers/spew.c"* ]]
	[[ "$output" != *"  LD "* ]]
	rm "$B/helpers/spew"
	run mk -s BUILD="$B" "$B/helpers/spew"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -x "$B/helpers/spew" ]
}
