#!/usr/bin/env bats
# Under --protect-home, a working directory, --chdir or --watch directory inside
# the covered home and not kept by --writable gets one line before the command
# starts, naming the option that fixes it.  Controls: outside the home, or kept
# by --writable, nothing is said.

load helpers

# A ~/bin in the caller's PATH would be named under --protect-home=hide.  Set
# in setup, where a home that cannot be found fails the test: set at the file's
# top, a failed lookup left PATH empty and each probe's command "not found", a
# green skip (issue 39 item 10).
setup() {
	setup_dirs
	PATH=$(path_outside_home) || return 1
}

userns_ok() {
	unshare -Urpf --mount-proc --propagation slave true
}

hints() {
	grep -cE "^isorun: the .* (lies under|is) the (protected|hidden) home" <<<"$stderr" || true
}

@test "--protect-home=ro, the working directory in the home: one hint, before the command's own EROFS" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	cd "$D"
	run --separate-stderr iso --protect-home=ro -- sh -c 'touch x'
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = "isorun: the working directory $D lies under the protected home; writes there will fail with \"Read-only file system\"; add --writable $D (or --writable .)" ]
	[[ "${stderr_lines[1]}" == *"Read-only file system"* ]]
	[ "$(hints)" -eq 1 ]
	# the fix it names works, and then nothing is said
	run --separate-stderr iso --protect-home=ro --writable . -- sh -c 'touch x'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ -e "$D/x" ]
	# --writable of a parent covers it too
	mkdir "$D/sub"
	cd "$D/sub"
	run --separate-stderr iso --protect-home=ro --writable "$D" -- true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# -q: no hint
	run --separate-stderr iso -q --protect-home=ro -- true
	[ "$(hints)" -eq 0 ]
	assert_no_tree
}

@test "control: the working directory outside the home gets no hint" {
	require "user and PID namespaces" userns_ok
	cd "$W"
	run --separate-stderr iso --protect-home=ro -- touch "$W/x"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	run --separate-stderr iso --protect-home=hide -- true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "--chdir and --watch in the home: the hint names them; said once" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	mkdir "$D/w"
	cd "$W"
	run --separate-stderr iso --protect-home=ro --chdir "$D" -- true
	[ "$status" -eq 0 ]
	[ "$stderr" = "isorun: the --chdir directory $D lies under the protected home; writes there will fail with \"Read-only file system\"; add --writable $D" ]
	run --separate-stderr iso --protect-home=ro --watch "$D/w" -- true
	[ "$status" -eq 0 ]
	[ "$stderr" = "isorun: the --watch directory $D/w lies under the protected home; writes there will fail with \"Read-only file system\"; add --writable $D/w" ]
	# both in the home: one line, for the first
	run --separate-stderr iso --protect-home=ro --chdir "$D" --watch "$D/w" -- true
	[ "$(hints)" -eq 1 ]
	# hide: it says what hide does
	run --separate-stderr iso --protect-home=hide --watch "$D/w" -- true
	[ "$status" -eq 0 ]
	[ "$stderr" = "isorun: the --watch directory $D/w lies under the hidden home; the command can neither see nor write it; add --writable $D/w" ]
	# control: kept by --writable
	run --separate-stderr iso --protect-home=ro --chdir "$D" --watch "$D/w" --writable "$D" -- true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	assert_no_tree
}

# The options a hint line on stderr tells the user to add, one alternative a
# line: "add --writable D (or --writable .)" gives two; a placeholder (DIR) is
# no runnable alternative.
hinted_fixes() {
	sed -n 's/^isorun: .*[;:] add \(.*\)$/\1/p' <<<"$stderr" |
		grep -oE -- '--[a-z-]+(=[^ ,()]+| [^ ,()]+)' | grep -v ' DIR$'
}

# follow_hints FILE REL OPTION...: `sh -c 'touch REL'` under OPTION... fails
# with exactly one hint; then each option line the hint names, added literally
# to the same command line, makes the same write work, with no hint.
follow_hints() {
	local file=$1 rel=$2 fix n=0 fixes
	shift 2
	run --separate-stderr iso "$@" -- sh -c 'touch "$0"' "$rel"
	[ "$status" -ne 0 ]
	[ "$(hints)" -eq 1 ]
	[ ! -e "$file" ]
	mapfile -t fixes < <(hinted_fixes)
	for fix in "${fixes[@]}"; do
		n=$((n + 1))
		# shellcheck disable=SC2086 # the hint's words, split as a shell would
		run --separate-stderr iso "$@" $fix -- sh -c 'touch "$0"' "$rel"
		[ "$status" -eq 0 ] || { echo "hint '$fix' did not work" >&2; return 1; }
		[ "$(hints)" -eq 0 ]
		[ -e "$file" ]
		rm -f "$file"
	done
	[ "$n" -ge 1 ]
}

@test "the working directory is the home itself: the hint names a fix that works when followed (ro, hide)" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	H=$(real_home)
	cd "$H"
	for m in ro hide; do
		follow_hints "$D/x" "./${D##*/}/x" --protect-home=$m
		run --separate-stderr iso --protect-home=$m -- true
		[[ "${stderr_lines[0]}" == "isorun: the working directory $H is the "*"; --writable cannot keep the whole home: add --protect-home=off, or use a directory below the home with --writable DIR" ]]
		[[ "$stderr" != *"--writable $H"* ]]
	done
	# --chdir to the home itself, from elsewhere
	cd "$W"
	for m in ro hide; do
		follow_hints "$D/x" "./${D##*/}/x" --protect-home=$m --chdir "$H"
		[[ "$stderr" != *"--writable $H"* ]]
	done
	assert_no_tree
}

@test "every home hint works when followed: the working directory, --chdir and --watch below the home (ro, hide)" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	mkdir "$D/w"
	for m in ro hide; do
		cd "$D"
		follow_hints "$D/x" ./x --protect-home=$m
		cd "$W"
		follow_hints "$D/x" ./x --protect-home=$m --chdir "$D"
		follow_hints "$D/w/x" "$D/w/x" --protect-home=$m --watch "$D/w"
	done
	assert_no_tree
}

@test "control: a working directory above the home gets no hint, and the run works" {
	require "user and PID namespaces" userns_ok
	H=$(real_home)
	cd "${H%/*}/"
	for m in ro hide; do
		run --separate-stderr iso --protect-home=$m -- true
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
	done
}

# Issue 27 item 4: a failing command under a home protection gets one line,
# before the verdict, saying the real home was read-only (or hidden) for it and
# how --writable lets a directory through; an annotation under GitHub Actions.
# Always on such a failure, worded as a possibility: the kernel refuses the
# write before anything isorun watches sees it.

note_ro() {
	printf 'isorun: the real home %s was read-only for the command (--protect-home=ro); if it failed writing there ("Read-only file system"), add --writable DIR for a directory below the home, or --protect-home=off' "$1"
}

note_hide() {
	printf 'isorun: the real home %s was hidden from the command (--protect-home=hide: an empty read-only directory in its place); if it failed reading or writing there, add --writable DIR for a directory below the home, or use --protect-home=ro' "$1"
}

notes() {
	grep -c "^isorun: the real home .* for the command\|^isorun: the real home .* from the command" <<<"$stderr" || true
}

@test "a failing run that writes to the real home under --protect-home=ro: one line ties it to the option" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	H=$(real_home)
	cd "$W"
	run --separate-stderr iso --protect-home=ro -- sh -c 'touch "$1"' sh "$D/x"
	[ "$status" -eq 1 ]
	[[ "${stderr_lines[0]}" == *"Read-only file system"* ]]
	[ "${stderr_lines[1]}" = "$(note_ro "$H")" ]
	[ "${stderr_lines[2]}" = "isorun: FAILED (exit 1): command exited 1" ]
	[ ! -e "$D/x" ]
	# the fix it names works, and a passing run says nothing
	run --separate-stderr iso --protect-home=ro --writable "$D" -- sh -c 'touch "$1"' sh "$D/x"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ -e "$D/x" ]
	# killed by a signal is a failure of the command too
	run --separate-stderr iso --protect-home=ro -- sh -c 'kill -TERM $$'
	[ "$status" -eq 143 ]
	[ "$(notes)" -eq 1 ]
	# -q: a failing command speaks for itself
	run --separate-stderr iso -q --protect-home=ro -- false
	[ "$status" -eq 1 ]
	[ "$(notes)" -eq 0 ]
	assert_no_tree
}

@test "control: no note without a home protection, on a passing run, or when the command never ran or was stopped by isorun" {
	require "user and PID namespaces" userns_ok
	cd "$W"
	run --separate-stderr iso -- false
	[ "$status" -eq 1 ]
	[ "$stderr" = "isorun: FAILED (exit 1): command exited 1" ]
	run --separate-stderr iso --pidns --private-tmp -- false
	[ "$status" -eq 1 ]
	[ "$(notes)" -eq 0 ]
	run --separate-stderr iso --protect-home=ro -- true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# not found: item 3's line says why; a timeout is isorun's own stop
	run -127 --separate-stderr iso --protect-home=ro -- /nonexistent/cmd
	[ "$(notes)" -eq 0 ]
	run --separate-stderr iso --protect-home=ro --timeout 1s -- "$H/waitfor" -t 600 "$W/never"
	[ "$status" -eq 124 ]
	[ "$(notes)" -eq 0 ]
	assert_no_tree
}

@test "--protect-home=hide: the note says hidden; isorun.conf's protect-home gets it too" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	H=$(real_home)
	echo data >"$D/data"
	cd "$W"
	run --separate-stderr iso --protect-home=hide -- cat "$D/data"
	[ "$status" -eq 1 ]
	[ "${stderr_lines[-2]}" = "$(note_hide "$H")" ]
	# the setting from a config file is the same protection
	printf 'protect-home = ro\n' >"$W/isorun.conf"
	run --separate-stderr "$ISORUN" --root "$R" --config "$W/isorun.conf" -- sh -c 'touch "$1"' sh "$D/y"
	[ "$status" -eq 1 ]
	[ "${stderr_lines[-2]}" = "$(note_ro "$H")" ]
	assert_no_tree
}

@test "GITHUB_ACTIONS=true: the note is also a warning annotation (and not on a passing run)" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	H=$(real_home)
	cd "$W"
	export GITHUB_ACTIONS=true
	run --separate-stderr iso --protect-home=ro -- sh -c 'touch "$1"' sh "$D/x"
	[ "$status" -eq 1 ]
	want=$(note_ro "$H")
	grep -qxF -- "::warning title=isorun%3A home protected::${want#isorun: }" <<<"$stderr"
	[ "$(notes)" -eq 1 ]
	run --separate-stderr iso --protect-home=hide -- false
	want=$(note_hide "$H")
	grep -qxF -- "::warning title=isorun%3A home protected::${want#isorun: }" <<<"$stderr"
	# -q silences the line, not the annotation (as for findings)
	run --separate-stderr iso -q --protect-home=ro -- false
	[ "$(notes)" -eq 0 ]
	[ "$(grep -c '^::warning title=isorun%3A home protected::' <<<"$stderr")" -eq 1 ]
	# controls: a passing run, no protection
	run --separate-stderr iso --protect-home=ro -- true
	[ -z "$stderr" ]
	run --separate-stderr iso -- false
	[[ "$stderr" != *"home protected"* ]]
	assert_no_tree
}
