#!/usr/bin/env bats
# `isorun shell` and job control, in a real pseudo-terminal driven by
# tests/helpers/ptydrive.py (an interactive bash, keys sent, output awaited).

load helpers

userns_ok() {
	unshare -Urpf --mount-proc --propagation slave true
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

# A home of the caller's with a start-up file, an alias and a history: under the
# real (passwd) home, so that --protect-home=ro covers it.
fake_home() { # shell: bash or zsh
	D=$(home_scratch)
	if [ "$1" = bash ]; then
		printf '%s\n' "alias hi='echo HELLO-''ALIAS'" "PS1='BASHRC\\\$ '" >"$D/.bashrc"
		printf '%s\n' 'echo from-real-history' >"$D/.bash_history"
	else
		printf '%s\n' "alias hi='echo HELLO-''ZSH'" "PS1='ZSHRC%# '" 'HISTFILE=$HOME/.zsh_history' \
			'SAVEHIST=100' 'HISTSIZE=100' >"$D/.zshrc"
		printf '%s\n' 'echo from-zsh-history' >"$D/.zsh_history"
	fi
}

@test "isorun shell (bash): the real ~/.bashrc, its aliases and history are read, the prompt is marked, debian_chroot=isorun; its own history stays in the tree (pty; plain and --protect-home=ro)" {
	require "python3 for the pty driver" python3 -c 'import pty'
	fake_home bash
	for opts in "" "--protect-home=ro"; do
		[ -z "$opts" ] || userns_ok || [ "$(id -u)" -eq 0 ] || continue
		cat >"$W/script" <<EOS
expect PROMPT> 
send HOME=$D SHELL=/bin/bash @ISORUN@ shell --no-config --root @R@ $opts\\n
expect isorun: shell in @U@/
expect \\(isorun\\) BASHRC[\$#] \$
send hi\\n
expect HELLO-ALIAS
send history | grep from-real\\n
expect [0-9]+  echo from-real-history
send echo "[\$debian_chroot][\$HOME]"\\n
expect \\[isorun\\]\\[@U@/[^/]+/home\\]
send echo new-in-the-tree\\n
send exit\\n
expect tree kept at
expect PROMPT> 
send echo status=\$?\\n
expect status=0
EOS
		drive
		tree=$(the_tree)
		grep -qx 'echo new-in-the-tree' "$tree/home/.bash_history"
		[ "$(cat "$D/.bash_history")" = "echo from-real-history" ]
		[ -f "$tree/run/isorun-shell/bashrc" ]
		force_remove "$tree"
	done
}

@test "isorun shell (bash): a prompt that shows \$debian_chroot (Debian's) is marked once; no ~/.bashrc at all still starts" {
	require "python3 for the pty driver" python3 -c 'import pty'
	D=$(home_scratch)
	printf '%s\n' 'PS1='\''${debian_chroot:+($debian_chroot)}DEB\$ '\' >"$D/.bashrc"
	cat >"$W/script" <<EOS
expect PROMPT> 
send HOME=$D SHELL=/bin/bash @ISORUN@ shell --no-config --root @R@\\n
expect \\(isorun\\)DEB[\$#] \$
refute \\(isorun\\) ?\\(isorun\\)
send exit\\n
expect PROMPT> 
send rm $D/.bashrc; HOME=$D SHELL=/bin/bash @ISORUN@ shell --no-config --root @R@\\n
expect is set
send echo "[\$debian_chroot]"\\n
expect \\[isorun\\]
send exit 0\\n
expect PROMPT> 
send echo status=\$?\\n
expect status=0
EOS
	drive
	for t in "$U"/*/; do force_remove "$t"; done
}

@test "isorun shell (zsh): the real .zshrc (ZDOTDIR), its aliases and history, the marked prompt; ZDOTDIR is the caller's again inside (pty)" {
	require "python3 for the pty driver" python3 -c 'import pty'
	require "zsh" command -v zsh
	fake_home zsh
	cat >"$W/script" <<EOS
expect PROMPT> 
send HOME=$D SHELL=$(command -v zsh) @ISORUN@ shell --no-config --root @R@\\n
expect \\(isorun\\) ZSHRC[%#] 
send hi\\n
expect HELLO-ZSH
send fc -l 1 | grep from-zsh\\n
expect [0-9]+ +echo from-zsh-history
send echo "[\$debian_chroot][\${ZDOTDIR-unset}]"\\n
expect \\[isorun\\]\\[unset\\]
send exit 4\\n
expect tree kept at
expect PROMPT> 
send echo status=\$?\\n
expect status=4
EOS
	drive
	tree=$(the_tree)
	[ -f "$tree/run/isorun-shell/.zshrc" ]
	force_remove "$tree"
}

@test "isorun shell: SHELL unset starts the passwd shell; its own exit status passes through without a FAILED line" {
	mkdir "$W/home"
	pw=$(getent passwd "$(id -un)" | cut -d: -f7)
	run --separate-stderr env -u SHELL HOME="$W/home" "$ISORUN" shell --no-config --root "$R" \
		<<<'readlink /proc/$$/exe; exit 3'
	[ "$status" -eq 3 ]
	[ "${lines[0]}" = "$(readlink -f "$pw")" ]
	[[ "$stderr" == *"tree kept at"* ]]
	[[ "$stderr" != *FAILED* ]]
	force_remove "$(the_tree)"
}

@test "isorun shell: findings are still red: a leak the shell left (exit 0 and 3), a killed shell, a command given with --" {
	mkdir "$W/home"
	run --separate-stderr env HOME="$W/home" SHELL=/bin/bash "$ISORUN" shell --no-config --root "$R" \
		--settle 0 <<<'sleep 600 & exit 0'
	[ "$status" -eq 122 ]
	[[ "${stderr_lines[-1]}" == "isorun: FAILED (exit 122): 1 process outlived the command" ]]
	force_remove "$(the_tree)"
	run --separate-stderr env HOME="$W/home" SHELL=/bin/bash "$ISORUN" shell --no-config --root "$R" \
		--settle 0 <<<'sleep 600 & exit 3'
	[ "$status" -eq 3 ]
	[[ "${stderr_lines[-1]}" == "isorun: FAILED (exit 3): command exited 3, 1 process outlived the command" ]]
	force_remove "$(the_tree)"
	run --separate-stderr env HOME="$W/home" SHELL=/bin/bash "$ISORUN" shell --no-config --root "$R" \
		<<<'kill -KILL $$'
	[ "$status" -eq 137 ]
	[[ "${stderr_lines[-1]}" == "isorun: FAILED (exit 137): command killed by SIGKILL" ]]
	force_remove "$(the_tree)"
	run --separate-stderr "$ISORUN" shell --no-config --root "$R" -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	[[ "${stderr_lines[-1]}" == "isorun: FAILED (exit 3): command exited 3" ]]
	force_remove "$(the_tree)"
}

@test "ci-shell.md: its prompt recipe in ~/.bashrc works in isorun shell, and the prompt is marked once (pty)" {
	require "python3 for the pty driver" python3 -c 'import pty'
	D=$(home_scratch)
	printf '%s\n' "PS1='RECIPE\\\$ '" >"$D/.bashrc"
	sed -n '/^```sh$/,/^```$/p' "$BATS_TEST_DIRNAME/../../docs/use/ci-shell.md" | sed '1d;$d' >>"$D/.bashrc"
	grep -q ISORUN_SHELL "$D/.bashrc"
	cat >"$W/script" <<EOS
expect PROMPT> 
send HOME=$D SHELL=/bin/bash @ISORUN@ shell --no-config --root @R@\\n
expect \\(isorun\\) RECIPE[\$#] \$
refute \\(isorun\\) \\(isorun\\)
send exit\\n
expect PROMPT> 
EOS
	drive
	force_remove "$(the_tree)"
}

@test "isorun shell under an isorun.conf: still the shell's own (its exit without FAILED, its rc file)" {
	mkdir "$W/home" "$W/proj"
	printf '%s\n' 'settle = 1s' >"$W/proj/isorun.conf"
	cd "$W/proj"
	run --separate-stderr env HOME="$W/home" SHELL=/bin/bash "$ISORUN" shell --root "$R" <<<'exit 5'
	[ "$status" -eq 5 ]
	[[ "$stderr" != *FAILED* ]]
	[ -f "$(the_tree)/run/isorun-shell/bashrc" ]
	force_remove "$(the_tree)"
}
