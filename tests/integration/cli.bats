#!/usr/bin/env bats
# Bad input: one clear line naming the option, exit 125, nothing left behind.

load helpers

bad() {
	local expect=$1
	shift
	run --separate-stderr iso "$@"
	if [ "$status" -ne 125 ] || [ "${stderr_lines[0]}" != "$expect" ]; then
		echo "for '$*': status $status, stderr: $stderr" >&2
		return 1
	fi
	[ ! -e "$U" ] || assert_no_tree
}

@test "each bad option is named in a one-line error with exit 125" {
	bad "isorun: --bogus: unknown option" --bogus -- true
	bad "isorun: --timeout: missing argument" --timeout
	bad "isorun: --grace: invalid duration '5 s' (examples: 90s, 5m, 1h30m)" --grace "5 s" -- true
	bad "isorun: --stop-signal: unknown signal 'SIGNOPE' (examples: TERM, SIGINT, 9)" --stop-signal SIGNOPE -- true
	# a number or real-time offset that names no signal (issue 26)
	local range="out of range: 1..64 (real-time: SIGRTMIN..SIGRTMAX, 34..64)"
	for v in 65 0 RTMIN+31 SIGRTMAX+1 RTMIN-3 99999999999999999999; do
		bad "isorun: --stop-signal: signal '$v' $range" --stop-signal "$v" -- true
	done
	bad "isorun: --stop-signal: unknown signal 'RTMIN+' (examples: TERM, SIGINT, 9)" --stop-signal RTMIN+ -- true
	bad "isorun: --leaks: expected fail, warn or ignore, got 'maybe'" --leaks=maybe -- true
	bad "isorun: --residue: expected fail or warn, got 'ignore'" --residue=ignore -- true
	bad "isorun: --setenv: expected VAR=VALUE, got 'NOVALUE'" --setenv NOVALUE -- true
	bad "isorun: --unsetenv: invalid variable name 'A-B'" --unsetenv A-B -- true
	bad "isorun: --pass-fd: expected a descriptor number >= 3, got '1'" --pass-fd 1 -- true
	bad "isorun: --finding-exit-code: '0' is out of range (expected 1..255)" --finding-exit-code 0 -- true
	bad "isorun: --watch: open '$W/nope': No such file or directory" --watch "$W/nope" -- true
	bad "isorun: no command given (usage: isorun [OPTION]... -- COMMAND)"
}

@test "--config of a file that is not there is named, exit 125" {
	bad "isorun: --config: open '$W/nope.conf': No such file or directory" --config "$W/nope.conf" -- true
	bad "isorun: --config: empty path" --config "" -- true
}

@test "durations and signals accept the usual spellings" {
	run iso --timeout 1h30m --grace 1.5 --settle 250ms --stop-signal sigint -- true
	[ "$status" -eq 0 ]
	run iso --stop-signal 9 --timeout 90s -- true
	[ "$status" -eq 0 ]
}

@test "--help and --version exit 0; the command's own options are its own" {
	run "$ISORUN" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"Usage: isorun [OPTION]... [--] COMMAND [ARG]..."* ]]
	run "$ISORUN" --version
	[[ "$output" == "isorun "* ]]
	run iso echo --keep -n
	[ "$output" = "--keep -n" ]
	assert_no_tree
}

@test "isorun's options after the command: named in one line when the command failed, never on a pass" {
	local hint='isorun: `--keep`, `--pidns=try` after the command went to sh; put isorun'"'"'s options before it'
	# the issue's `isorun pytest -q --keep`: the command got them and failed on them
	run --separate-stderr iso sh -c 'exit 4' sh -q --keep --pidns=try
	[ "$status" -eq 4 ]
	[ "${stderr_lines[0]}" = "$hint" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	# the same after --, which puts them after the command no less
	run --separate-stderr iso -- sh -c 'exit 4' sh --keep --pidns=try
	[ "${stderr_lines[0]}" = "$hint" ]
	# a pass: no line; the command may have meant them
	run --separate-stderr iso sh -c 'exit 0' sh --keep
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# past the command's own "--" the words are its operands (npm test -- --watch)
	run --separate-stderr iso -- sh -c 'exit 3' sh -- --keep --watch=.
	[ "$status" -eq 3 ]
	[[ "$stderr" != *"after the command"* ]]
	# --help and --version are every program's; a word that only looks like one
	run --separate-stderr iso -- sh -c 'exit 3' sh --help --version --keeps -k
	[[ "$stderr" != *"after the command"* ]]
	# a command that never ran (127), a timeout, or -q: not the command's own failure
	run --separate-stderr iso -- no-such-command-i39 --keep
	[ "$status" -eq 127 ]
	[[ "$stderr" != *"after the command"* ]]
	run --separate-stderr iso --timeout 100ms --grace 100ms -- sh -c 'exec sleep 5' sh --keep
	[ "$status" -eq 124 ]
	[[ "$stderr" != *"after the command"* ]]
	run --separate-stderr iso -q -- sh -c 'exit 4' sh --keep
	[ "$status" -eq 4 ]
	[ -z "$stderr" ]
	# a nested isorun: the options after its name are its own, by any path
	mkdir "$W/bin" && ln -s "$ISORUN" "$W/bin/isorun"
	run --separate-stderr iso -- "$W/bin/isorun" --no-config --keep=on-failure -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	[[ "$stderr" != *"after the command"* ]]
	assert_no_tree
}

@test "a subcommand given a command's words says how to run that command, exit 125" {
	run --separate-stderr "$ISORUN" ls -la
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: 'ls' is a subcommand here; to run the command: isorun -- ls -la" ]
	run --separate-stderr "$ISORUN" ls /tmp
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: 'ls' is a subcommand here; to run the command: isorun -- ls /tmp" ]
	# no program of that name: the word that was wrong is named (not the subcommand)
	run --separate-stderr env PATH="$W" "$ISORUN" gc -lx
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: gc: unknown option '-l' (see isorun gc --help)" ]
	run --separate-stderr env PATH="$W" "$ISORUN" ls -la
	[ "$stderr" = "isorun: ls: unknown option '-l' (see isorun ls --help)" ]
	# a near option of its own is a typo, whatever PATH holds
	run --separate-stderr "$ISORUN" ls --hepl
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: ls: --hepl: unknown option; did you mean --help?" ]
	# a value given to an option that takes none is named as such
	run --separate-stderr "$ISORUN" gc --root "$R" --dry-run=x
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: gc: --dry-run: takes no value, got 'x'" ]
	bad "isorun: --help: takes no value, got '1'" --help=1 -- true
}

@test "options before a subcommand: the subcommand is named and put first, 125, no tree; after -- it is the command" {
	local sub
	for sub in shell config selftest ls gc policy; do
		bad "isorun: '$sub' is a subcommand: isorun $sub --no-config --root $R --keep (a command named $sub: -- $sub)" --keep "$sub"
	done
	# the words after it follow it, quoted as a shell reads them
	bad "isorun: 'shell' is a subcommand: isorun shell --no-config --root $R -v -- sh -c 'echo a b' (a command named shell: -- shell)" -v shell -- sh -c 'echo a b'
	# after "--" a subcommand's name is the command: not found here (127), no suggestion
	run -127 --separate-stderr iso --settle 0 -- shell
	[ "$status" -eq 127 ]
	[[ "$stderr" != *"subcommand"* ]]
	# a program of that name is run after "--"
	mkdir "$W/bin"
	printf '#!/bin/sh\necho ran gc\n' >"$W/bin/gc"
	chmod +x "$W/bin/gc"
	run --separate-stderr env PATH="$W/bin:$PATH" "$ISORUN" --no-config --root "$R" --settle 0 -- gc
	[ "$status" -eq 0 ]
	[ "$output" = "ran gc" ]
	assert_no_tree
}

@test "a command within two edits of a subcommand and not on PATH: did you mean the subcommand, 125, no tree" {
	bad "isorun: shel: no such command on PATH; did you mean isorun shell --no-config --root $R? (to run it anyway: -- shel)" shel
	bad "isorun: selftes: no such command on PATH; did you mean isorun selftest --no-config --root $R --pidns? (to run it anyway: -- selftes)" --pidns selftes
	bad "isorun: polcy: no such command on PATH; did you mean isorun policy --no-config --root $R show? (to run it anyway: -- polcy)" polcy show
	# three edits away, or after "--": the run's own 127
	run -127 --separate-stderr iso --settle 0 shelxyz
	[ "$status" -eq 127 ]
	run -127 --separate-stderr iso --settle 0 -- shel
	[ "$status" -eq 127 ]
	[[ "$stderr" != *"did you mean"* ]]
	# a program of that name on PATH is what was meant
	mkdir "$W/bin"
	printf '#!/bin/sh\necho ran shel\n' >"$W/bin/shel"
	chmod +x "$W/bin/shel"
	run --separate-stderr env PATH="$W/bin:$PATH" "$ISORUN" --no-config --root "$R" --settle 0 shel
	[ "$status" -eq 0 ]
	[ "$output" = "ran shel" ]
	assert_no_tree
}

@test "an option whose value is -- or another option: '--root needs a value', 125, no tree; '=' takes it as it is" {
	bad "isorun: --root needs a value, got '--' (a value that begins with '-': --root=--)" --root -- true
	bad "isorun: --chdir needs a value, got the option '--keep' (a value that begins with '-': --chdir=--keep)" --chdir --keep true
	bad "isorun: --timeout needs a value, got the option '-v' (a value that begins with '-': --timeout=-v)" --timeout -v true
	bad "isorun: --report needs a value, got the option '--junit' (a value that begins with '-': --report=--junit)" --report --junit "$W/j.xml" true
	bad "isorun: --config needs a value, got '--' (a value that begins with '-': --config=--)" --config -- true
	bad "isorun: --setenv needs a value, got the option '--pidns' (a value that begins with '-': --setenv=--pidns)" --setenv --pidns -- true
	# with '=', the word is the value: here a directory that does exist
	mkdir "$W/--odd"
	run --separate-stderr iso --settle 0 --chdir="$W/--odd" -- pwd
	[ "$status" -eq 0 ]
	[ "$output" = "$W/--odd" ]
	assert_no_tree
}

@test "two options in one word (-v--pidns) are named with the fix, not as an unknown option '--'" {
	bad "isorun: -v--pidns: two options in one word; write them apart: -v --pidns" -v--pidns true
	bad "isorun: -q-v: two options in one word; write them apart: -q -v" -q-v true
	bad "isorun: -vq--keep: two options in one word; write them apart: -vq --keep" -vq--keep true
	# a letter that is no option stays what it was
	bad "isorun: -x: unknown option" -vx true
}

@test "a value that is no word of its option: did you mean, from the key table's words, on the command line and in isorun.conf" {
	bad "isorun: --net: expected host or isolated, got 'none'; did you mean --net=isolated?" --net=none -- true
	bad "isorun: --leaks: expected fail, warn or ignore, got 'warning'; did you mean --leaks=warn?" --leaks=warning -- true
	bad "isorun: --residue: expected fail or warn, got 'warning'; did you mean --residue=warn?" --residue=warning -- true
	bad "isorun: --protect-home: expected off, ro (read-only) or hide, got 'readonly'; did you mean --protect-home=read-only?" --protect-home=readonly -- true
	bad "isorun: --policy-mode: expected enforce or log, got 'audit'; did you mean --policy-mode=log?" --policy-mode=audit -- true
	bad "isorun: --color: expected auto, always or never, got 'nevr'; did you mean --color=never?" --color=nevr -- true
	bad "isorun: --pidns: expected nothing or =try, got 'tyr'; did you mean --pidns=try?" --pidns=tyr -- true
	bad "isorun: --private-tmp: expected nothing, =true or =false, got 'ture'; did you mean --private-tmp=true?" --private-tmp=ture -- true
	bad "isorun: --keep: expected never, always or on-failure, got 'on-falure'; did you mean --keep=on-failure?" --keep=on-falure -- true
	# nothing near: no guess
	bad "isorun: --net: expected host or isolated, got 'xyz'" --net=xyz -- true
	# isorun.conf: the file's spelling of the fix
	mkdir "$W/p"
	printf 'leaks = warning\n' >"$W/p/isorun.conf"
	run --separate-stderr "$ISORUN" --config "$W/p/isorun.conf" --root "$R" -- true
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == *"leaks: expected fail, warn or ignore, got 'warning'; did you mean warn?" ]]
	assert_no_tree
}

@test "every subcommand has its own --help, exit 0" {
	for sub in ls gc policy config shell selftest; do
		run --separate-stderr "$ISORUN" $sub --help
		echo "$sub: $status ${lines[0]}" >&2
		[ "$status" -eq 0 ]
		[[ "${lines[0],,}" == "usage: isorun $sub"* ]]
	done
	run "$ISORUN" policy show --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "Usage: isorun policy"* ]]
}

@test "did you mean: options, signals, policy names, policy verbs, isorun.conf keys" {
	bad "isorun: --tmieout: unknown option; did you mean --timeout?" --tmieout 5m -- true
	bad "isorun: --tmieout: unknown option; did you mean --timeout?" --tmieout=5m -- true
	bad "isorun: --stop-signal: unknown signal 'TREM'; did you mean TERM?" --stop-signal TREM -- true
	bad "isorun: --stop-signal: unknown signal 'SIGINTT'; did you mean SIGINT?" --stop-signal SIGINTT -- true
	cd "$W"
	bad "isorun: --policy: 'stric' is no shipped policy and no file; did you mean --policy=strict?" --policy=stric -- true
	# a file of that name is a file
	printf 'deny ptrace\n' >stric
	run --separate-stderr iso --policy=stric -- true
	[[ "$stderr" != *"did you mean"* ]]
	run --separate-stderr "$ISORUN" policy shw
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: policy: unknown verb 'shw'; did you mean show?" ]
	run --separate-stderr "$ISORUN" selftest --jsn
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: selftest: --jsn: unknown option; did you mean --json? (see isorun selftest --help)" ]
	printf 'tmieout = 5m\n' >"$W/typo.conf"
	run --separate-stderr "$ISORUN" --config "$W/typo.conf" --root "$R" -- true
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: $W/typo.conf:1: tmieout: unknown setting; did you mean timeout?" ]
	assert_no_tree
}

@test "an ambiguous abbreviation lists the options it could be" {
	local p="isorun: --p: ambiguous option: could be --pass-fd, --pidns, --private-tmp, --protect-home, --policy, --policy-mode, --pids-max"
	bad "$p" --p -- true
	run --separate-stderr "$ISORUN" config --no-config --p
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "$p" ]
}

@test "--pidns try -- CMD: the word meant as a value gets the = form suggested" {
	bad "isorun: --pidns try: the value of --pidns goes after '=': did you mean --pidns=try? (a command named try: --pidns -- try)" --pidns try -- true
	bad "isorun: --pidns on: the value of --pidns goes after '=': did you mean --pidns=on? (a command named on: --pidns -- on)" --pidns on true
}

@test "an option with no effect alone is warned about, naming the one it needs; -q silences it" {
	run --separate-stderr iso --map-root -- true
	[ "$status" -eq 0 ]
	[ "$stderr" = "isorun: warning: --map-root has no effect without --pidns" ]
	run --separate-stderr iso --residue=fail -- true
	[ "$stderr" = "isorun: warning: --residue=fail has no effect without --watch" ]
	run --separate-stderr iso --writable "$W" -- true
	[ "$stderr" = "isorun: warning: --writable has no effect without --protect-home=ro|hide" ]
	run --separate-stderr iso --keep-env PATH -- true
	[ "$stderr" = "isorun: warning: --keep-env has no effect without --clearenv" ]
	run --separate-stderr iso -q --map-root --residue=fail --writable "$W" -- true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# with what they need, no warning
	run --separate-stderr iso --watch "$W" --residue=fail --clearenv --keep-env PATH -- true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# isorun config says it too, without running anything
	run --separate-stderr "$ISORUN" config --no-config --map-root
	[ "$status" -eq 0 ]
	[ "$stderr" = "isorun: warning: --map-root has no effect without --pidns" ]
	assert_no_tree
}

@test "--timeout 0 is no limit, as timeout(1) reads it; --protect-home=read-only is ro" {
	run --separate-stderr iso --timeout 0 -- true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	run --separate-stderr "$ISORUN" config --no-config --timeout 5m --timeout 0 --protect-home=read-only
	[ "$status" -eq 0 ]
	grep -qx "timeout = none    (command line)" <<<"$output"
	grep -qx "protect-home = ro    (command line)" <<<"$output"
	bad "isorun: --protect-home: expected off, ro (read-only) or hide, got 'readonly'; did you mean --protect-home=read-only?" --protect-home=readonly -- true
}

@test "--color=always|never|auto: always colours even with NO_COLOR; auto does not colour a pipe" {
	local esc=$'\033['
	run --separate-stderr env NO_COLOR=1 "$ISORUN" --no-config --root "$R" --color=always -- false
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"${esc}1;31misorun: FAILED (exit 1)"* ]]
	run --separate-stderr "$ISORUN" --no-config --root "$R" --color -- false
	[[ "$stderr" == *"$esc"* ]]
	for mode in never auto; do
		run --separate-stderr iso --color=$mode -- false
		[ "$status" -eq 1 ]
		[ "$stderr" = "isorun: FAILED (exit 1): command exited 1" ]
	done
	bad "isorun: --color: expected auto, always or never, got 'blue'" --color=blue -- true
	bad "isorun: --color never: the value of --color goes after '=': did you mean --color=never? (a command named never: --color -- never)" --color never -- true
	assert_no_tree
}

@test "--color=auto follows the conventions: FORCE_COLOR / CLICOLOR_FORCE colour a pipe, NO_COLOR beats them, --color=never beats all" {
	local esc=$'\033['
	for v in FORCE_COLOR=1 FORCE_COLOR=3 CLICOLOR_FORCE=1; do
		run --separate-stderr env -u NO_COLOR "$v" "$ISORUN" --no-config --root "$R" -- false
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"${esc}1;31misorun: FAILED (exit 1)"* ]]
	done
	# "0", "false" and empty do not force; NO_COLOR (not empty) wins; the option wins over all
	for v in FORCE_COLOR=0 FORCE_COLOR=false FORCE_COLOR= CLICOLOR_FORCE=0; do
		run --separate-stderr env -u NO_COLOR "$v" "$ISORUN" --no-config --root "$R" -- false
		[ "$stderr" = "isorun: FAILED (exit 1): command exited 1" ]
	done
	run --separate-stderr env NO_COLOR=1 FORCE_COLOR=1 CLICOLOR_FORCE=1 "$ISORUN" --no-config --root "$R" -- false
	[ "$stderr" = "isorun: FAILED (exit 1): command exited 1" ]
	run --separate-stderr env FORCE_COLOR=1 "$ISORUN" --no-config --root "$R" --color=never -- false
	[ "$stderr" = "isorun: FAILED (exit 1): command exited 1" ]
	assert_no_tree
}

@test "--color=auto on a terminal: coloured, but not under TERM=dumb or a non-empty NO_COLOR (a real pty)" {
	require "script (util-linux)" command -v script
	local esc=$'\033['
	# script(1) gives isorun a pty for stderr; its output is the terminal's
	run script -qec "env -u NO_COLOR -u FORCE_COLOR -u CLICOLOR_FORCE TERM=xterm $ISORUN --no-config --root $R -- false" /dev/null
	[[ "$output" == *"${esc}1;31misorun: FAILED (exit 1)"* ]]
	run script -qec "env -u NO_COLOR -u FORCE_COLOR -u CLICOLOR_FORCE TERM=dumb $ISORUN --no-config --root $R -- false" /dev/null
	[[ "$output" == *"isorun: FAILED (exit 1)"* && "$output" != *"$esc"* ]]
	run script -qec "env -u FORCE_COLOR -u CLICOLOR_FORCE NO_COLOR=1 TERM=xterm $ISORUN --no-config --root $R -- false" /dev/null
	[[ "$output" == *"isorun: FAILED (exit 1)"* && "$output" != *"$esc"* ]]
	# an empty NO_COLOR is unset (no-color.org)
	run script -qec "env -u FORCE_COLOR -u CLICOLOR_FORCE NO_COLOR= TERM=xterm $ISORUN --no-config --root $R -- false" /dev/null
	[[ "$output" == *"${esc}1;31misorun: FAILED (exit 1)"* ]]
	# FORCE_COLOR beats TERM=dumb; --color=always beats NO_COLOR there too
	run script -qec "env -u NO_COLOR FORCE_COLOR=1 TERM=dumb $ISORUN --no-config --root $R -- false" /dev/null
	[[ "$output" == *"${esc}1;31misorun: FAILED (exit 1)"* ]]
	assert_no_tree
}
