#!/usr/bin/env bats
# --rlimit-nofile, --rlimit-core, --rlimit-fsize: the command's soft and hard
# limits, set just before it is exec'd (with or without --pidns), from the
# command line or isorun.conf; a bad value is one line naming the option, 125;
# the report lists them under resources.limits.

load helpers

userns_ok() {
	unshare -Urpf --mount-proc --propagation slave true
}

# opens fds 3 and 4, says so, then fd 5
OPEN5='exec 3</dev/null 4</dev/null && echo "3 and 4 open"; exec 5</dev/null; echo "5 open"'

@test "--rlimit-nofile 5: the command gets fds 3 and 4, not 5; soft and hard; control: without it, 5 opens" {
	run --separate-stderr iso --rlimit-nofile 5 -- sh -c "$OPEN5"
	[ "$status" -eq 2 ]
	[ "$output" = "3 and 4 open" ]
	[[ "$stderr" == *"Too many open files"* ]]
	run --separate-stderr iso --rlimit-nofile 5 -- grep "^Max open files" /proc/self/limits
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^Max\ open\ files\ +5\ +5\ +files ]]
	# control
	run --separate-stderr iso -- sh -c "$OPEN5"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "5 open" ]
	assert_no_tree
}

@test "--rlimit-nofile under --pidns: the command has it, isorun's init does not need to" {
	require "user and PID namespaces" userns_ok
	run --separate-stderr iso --pidns --rlimit-nofile 5 -- sh -c "$OPEN5"
	[ "$status" -eq 2 ]
	[ "$output" = "3 and 4 open" ]
	assert_no_tree
}

@test "--rlimit-fsize 1K: a larger write is cut at 1024 bytes and the writer gets SIGXFSZ; control: 4096" {
	run --separate-stderr iso --rlimit-fsize 1K -- sh -c 'head -c 4096 /dev/zero >"$0/f"' "$W"
	# SIGXFSZ is 25: the command (sh, whose child head was killed) or isorun says 128+25
	[ "$status" -ne 0 ]
	[ "$(stat -c %s "$W/f")" -eq 1024 ]
	run --separate-stderr iso -- sh -c 'head -c 4096 /dev/zero >"$0/g"' "$W"
	[ "$status" -eq 0 ]
	[ "$(stat -c %s "$W/g")" -eq 4096 ]
}

@test "--rlimit-core 0 and sizes with suffixes, as /proc/self/limits shows them; the report lists them" {
	run --separate-stderr iso --rlimit-core 0 --rlimit-fsize 2M --report "$W/r.json" -- \
		grep -E "^Max (core )?file size" /proc/self/limits
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^Max\ file\ size\ +2097152\ +2097152\ +bytes ]]
	[[ "${lines[1]}" =~ ^Max\ core\ file\ size\ +0\ +0\ +bytes ]]
	run jq -c '.resources.limits' "$W/r.json"
	[ "$output" = '[{"name":"core","value":0,"try":false,"enforced_by":"rlimit","note":"soft and hard; bytes of each core dump, per process"},{"name":"fsize","value":2097152,"try":false,"enforced_by":"rlimit","note":"soft and hard; bytes per file a process writes; a write past it gets SIGXFSZ (EFBIG when that is ignored)"}]' ]
	# none asked: an empty list
	run --separate-stderr iso --report "$W/r2.json" -- true
	[ "$(jq -c '.resources.limits' "$W/r2.json")" = "[]" ]
}

@test "bad rlimit values: one line naming the option and the value, 125, nothing run" {
	for bad in "nofile abc" "nofile -1" "nofile unlimited" "nofile 5K" "core 1X" "fsize ''" "fsize 99999999999T" "core 1.5M"; do
		set -- $bad
		eval "val=$2"
		run --separate-stderr iso "--rlimit-$1" "$val" -- touch "$W/ran"
		[ "$status" -eq 125 ]
		# a value past the range says so, with what was expected
		[[ "${stderr_lines[0]}" == "isorun: --rlimit-$1: expected "*", got '$val'" ]] ||
			[[ "${stderr_lines[0]}" == "isorun: --rlimit-$1: '$val' is out of range (expected "*")" ]]
		[ "${#stderr_lines[@]}" -eq 2 ]
	done
	[ ! -e "$W/ran" ]
	# not even the user directory: nothing was set up
	[ ! -e "$U" ]
}

@test "isorun.conf: rlimit keys, shown by isorun config; a bad one is file:line, 125" {
	mkdir -p "$W/p"
	printf 'rlimit-nofile = 7\nrlimit-core = unlimited\n' >"$W/p/isorun.conf"
	cd "$W/p"
	run --separate-stderr "$ISORUN" config --root "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == *"rlimit-nofile = 7    ($W/p/isorun.conf:1)"* ]]
	[[ "$output" == *"rlimit-core = unlimited    ($W/p/isorun.conf:2)"* ]]
	[[ "$output" == *"rlimit-fsize = inherited    (default)"* ]]
	run --separate-stderr "$ISORUN" --root "$R" -- grep "^Max open files" /proc/self/limits
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^Max\ open\ files\ +7\ +7 ]]
	# the command line wins
	run --separate-stderr "$ISORUN" --root "$R" --rlimit-nofile 9 -- grep "^Max open files" /proc/self/limits
	[[ "$output" =~ ^Max\ open\ files\ +9\ +9 ]]
	printf 'rlimit-fsize = big\n' >"$W/p/isorun.conf"
	run --separate-stderr "$ISORUN" --root "$R" -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: $W/p/isorun.conf:1:16: rlimit-fsize: expected a size in bytes (K, M, G, T suffixes) or unlimited, got 'big'" ]
	[ ! -e "$W/ran" ]
}

@test "a hard limit above what this user may raise to: 125 naming the limit and the kernel's refusal" {
	hard=$(ulimit -Hn)
	# root may raise it (CAP_SYS_RESOURCE) up to fs.nr_open; above that nobody can
	over=$(($(cat /proc/sys/fs/nr_open) + 1))
	run --separate-stderr iso --rlimit-nofile "$over" -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: prepare the command: set its nofile limit to $over (setrlimit): "* ]]
	[ ! -e "$W/ran" ]
	if [ "$(id -u)" -ne 0 ]; then
		run --separate-stderr iso --rlimit-nofile "$((hard + 1))" -- touch "$W/ran"
		[ "$status" -eq 125 ]
		[[ "${stderr_lines[0]}" == *"set its nofile limit to $((hard + 1)) (setrlimit): Operation not permitted" ]]
	fi
	[ ! -e "$U" ] || assert_no_tree
}
