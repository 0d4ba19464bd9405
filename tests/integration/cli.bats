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
	bad "isorun: --timeout: must be more than 0, got '0'" --timeout 0 -- true
	bad "isorun: --stop-signal: unknown signal 'SIGNOPE' (examples: TERM, SIGINT, 9)" --stop-signal SIGNOPE -- true
	bad "isorun: --leaks: expected fail, warn or ignore, got 'maybe'" --leaks=maybe -- true
	bad "isorun: --residue: expected fail or warn, got 'ignore'" --residue=ignore -- true
	bad "isorun: --setenv: expected VAR=VALUE, got 'NOVALUE'" --setenv NOVALUE -- true
	bad "isorun: --unsetenv: invalid variable name 'A-B'" --unsetenv A-B -- true
	bad "isorun: --pass-fd: expected a descriptor number >= 3, got '1'" --pass-fd 1 -- true
	bad "isorun: --finding-exit-code: expected 1..255, got '0'" --finding-exit-code 0 -- true
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
