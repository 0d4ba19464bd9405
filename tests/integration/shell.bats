#!/usr/bin/env bats
# `isorun shell` and job control, in a real pseudo-terminal driven by
# tests/helpers/ptydrive.py (an interactive bash, keys sent, output awaited).

load helpers

userns_ok() {
	unshare -Urpf --mount-proc true
}

drive() {
	sed -i "s|@ISORUN@|$ISORUN|g; s|@R@|$R|g; s|@U@|$U|g" "$W/script"
	python3 "$BATS_TEST_DIRNAME/../helpers/ptydrive.py" "$W/script"
}

shell_session() { # extra isorun options
	cat >"$W/script" <<EOS
expect PROMPT> 
send SHELL=/bin/bash @ISORUN@ shell --root @R@ $*\\n
expect [\$#] \$
send PS1='INNER''\$ '\\n
expect INNER\\\$ 
send sh -c 'echo sta''rted; exec cat'\\n
expect started
send \\x1a
expect Stopped
expect INNER\\\$ 
send jobs\\n
expect Stopped
expect INNER\\\$ 
send fg\\n
expect exec cat
send hello\\n
expect hello\\r\\nhello
send \\x03
expect INNER\\\$ 
send exit 3\\n
expect namespace kept at @U@/
expect PROMPT> 
send echo status=\$?\\n
expect status=3
EOS
	drive
}

@test "isorun shell: job control inside works (Ctrl-Z, jobs, fg, Ctrl-C), exit code and kept tree" {
	require "python3 for the pty driver" python3 -c 'import pty'
	shell_session
	tree=$(the_tree)
	[ -d "$tree/home" ]
	force_remove "$tree"
}

@test "isorun shell --pidns: the same, with the shell as PID 2 of its own namespace" {
	require "python3 for the pty driver" python3 -c 'import pty'
	require "user and PID namespaces" userns_ok
	shell_session --pidns
	force_remove "$(the_tree)"
}

@test "--pidns in a terminal: Ctrl-Z stops the command and isorun; fg resumes both" {
	require "python3 for the pty driver" python3 -c 'import pty'
	require "user and PID namespaces" userns_ok
	cat >"$W/script" <<'EOS'
expect PROMPT> 
send @ISORUN@ --root @R@ --pidns -- sh -c 'echo rea""dy; read x; echo got-$x'\n
expect ready
send \x1a
expect Stopped
expect PROMPT> 
send fg\n
send hello\n
expect got-hello
expect PROMPT> 
send echo status=$?\n
expect status=0
EOS
	drive
	assert_no_tree
}
