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
expect isorun: shell in @U@/.*leave with exit or Ctrl-D, the tree is kept; .ISORUN_SHELL is set
expect [\$#] \$
send PS1='\${ISORUN_SHELL:+(isorun) }INNER''\$ '\\n
expect \\(isorun\\) INNER\\\$ 
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
expect tree kept at @U@/.*; remove it with: rm -rf @U@/.* \\(or every kept tree: isorun gc --kept\\)
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

@test "isorun shell -- CMD: one line on entry, ISORUN_SHELL=1 for a prompt, the kept path with how to remove it; -q: no entry line" {
	run --separate-stderr "$ISORUN" shell --no-config --root "$R" --private-tmp -- sh -c 'echo "ISORUN_SHELL=$ISORUN_SHELL"'
	[ "$status" -eq 0 ]
	[ "$output" = "ISORUN_SHELL=1" ]
	tree=$(the_tree)
	[ "${stderr_lines[0]}" = "isorun: shell in $tree (private-tmp, policy=default); the tree is kept; \$ISORUN_SHELL is set" ]
	[ "${stderr_lines[1]}" = "isorun: tree kept at $tree; remove it with: rm -rf $tree (or every kept tree: isorun gc --kept)" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	force_remove "$tree"
	# a plain run does not claim to be a shell
	run --separate-stderr iso -- sh -c 'echo "ISORUN_SHELL=${ISORUN_SHELL-unset}"'
	[ "$output" = "ISORUN_SHELL=unset" ]
	run --separate-stderr "$ISORUN" shell -q --no-config --root "$R" -- true
	[ "$status" -eq 0 ]
	[[ "${stderr_lines[0]}" == "isorun: tree kept at "* ]]
	force_remove "$(the_tree)"
}
