#!/usr/bin/env bats
# Under --protect-home, a working directory, --chdir or --watch directory inside
# the covered home and not kept by --writable gets one line before the command
# starts, naming the option that fixes it.  Controls: outside the home, or kept
# by --writable, nothing is said.

load helpers

userns_ok() {
	unshare -Urpf --mount-proc true
}

hints() {
	grep -c "lies under the" <<<"$stderr" || true
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
