#!/usr/bin/env bats
# Bad input, round 3 (issue 26): every number through one checked parser, on the
# command line and in isorun.conf; a tree whose creation fails leaves nothing;
# --report and --junit never name one file.  Each: one line, 125, nothing left.

load helpers

# The one error line for `iso ARGS...`; the command must not have run and no tree stays.
refused() {
	local expect=$1
	shift
	rm -f "$W/ran"
	run --separate-stderr iso "$@" -- touch "$W/ran"
	if [ "$status" -ne 125 ] || [ "${stderr_lines[0]}" != "$expect" ]; then
		echo "for '$*': status $status, stderr: $stderr" >&2
		return 1
	fi
	[ ! -e "$W/ran" ]
	[ ! -e "$U" ] || assert_no_tree
}

# The same setting in an isorun.conf of its own: file:line:column of the value.
conf_refused() {
	local line=$1 expect=$2
	mkdir -p "$W/p"
	printf 'keep = false\n%s\n' "$line" >"$W/p/isorun.conf"
	rm -f "$W/ran"
	run --separate-stderr bash -c 'cd "$1" && shift && exec "$@"' _ "$W/p" \
		"$ISORUN" --root "$R" -- touch "$W/ran"
	if [ "$status" -ne 125 ] || [ "${stderr_lines[0]}" != "isorun: $W/p/isorun.conf:2:$expect" ]; then
		echo "for '$line': status $status, stderr: $stderr" >&2
		return 1
	fi
	[ ! -e "$W/ran" ]
	[ ! -e "$U" ] || assert_no_tree
}

PIDS="a number of processes from 1 to 4194304, try:VALUE or none"
CPU="a percentage of one CPU from 1 to 1000000 (50, 150%), try:VALUE or none"

@test "--pids-max and --cpu-max ' -1': refused, not wrapped to 2^64-1 (command line)" {
	refused "isorun: --pids-max: expected $PIDS, got ' -1'" --pids-max ' -1'
	refused "isorun: --cpu-max: expected $CPU, got ' -1'" --cpu-max ' -1'
	refused "isorun: --pids-max: expected $PIDS, got '-1'" --pids-max=-1
	refused "isorun: --pids-max: expected $PIDS, got 'try: -1'" --pids-max 'try: -1'
	refused "isorun: --pids-max: expected $PIDS, got '+5'" --pids-max +5
	refused "isorun: --pids-max: expected $PIDS, got '5 '" --pids-max '5 '
	refused "isorun: --pids-max: expected $PIDS, got '0x10'" --pids-max 0x10
	refused "isorun: --pids-max: '4194305' is out of range (expected $PIDS)" --pids-max 4194305
}

@test "--cpu-max 18446744073709553: out of range, not 1.4% of a CPU; the percentage's bounds" {
	refused "isorun: --cpu-max: '18446744073709553' is out of range (expected $CPU)" \
		--cpu-max 18446744073709553
	refused "isorun: --cpu-max: '18446744073709551616%' is out of range (expected $CPU)" \
		--cpu-max 18446744073709551616%
	refused "isorun: --cpu-max: '1000001' is out of range (expected $CPU)" --cpu-max 1000001
	refused "isorun: --cpu-max: expected $CPU, got '50%%'" --cpu-max 50%%
	refused "isorun: --cpu-max: '0' is out of range (expected $CPU)" --cpu-max 0
}

@test "neighbours on the command line: sizes past 2^63, durations, descriptors, exit codes" {
	refused "isorun: --memory-max: '17179869184T' is out of range (expected a size (512M, 2G), try:VALUE or none)" \
		--memory-max 17179869184T
	refused "isorun: --memory-max: expected a size (512M, 2G), try:VALUE or none, got ' 5M'" \
		--memory-max ' 5M'
	refused "isorun: --rlimit-fsize: '9223372036854775808' is out of range (expected a size in bytes (K, M, G, T suffixes) or unlimited)" \
		--rlimit-fsize 9223372036854775808
	refused "isorun: --rlimit-nofile: expected a number of descriptors, got '+5'" --rlimit-nofile +5
	refused "isorun: --settle: invalid duration '1e3s' (examples: 90s, 5m, 1h30m)" --settle 1e3s
	refused "isorun: --timeout: invalid duration '0x10s' (examples: 90s, 5m, 1h30m)" --timeout 0x10s
	refused "isorun: --timeout: '99999999999999999999s' is out of range (a duration below 31000 years)" \
		--timeout 99999999999999999999s
	refused "isorun: --grace: invalid duration ' 1s' (examples: 90s, 5m, 1h30m)" --grace ' 1s'
	refused "isorun: --pass-fd: expected a descriptor number >= 3, got '4294967299'" --pass-fd 4294967299
	refused "isorun: --finding-exit-code: '99999999999999999999' is out of range (expected 1..255)" \
		--finding-exit-code 99999999999999999999
	refused "isorun: --junit: expected fd:N with a descriptor number, got 'fd:x'" --junit fd:x
	refused "isorun: --report: expected fd:N with a descriptor number, got 'fd: 3'" --report 'fd: 3'
	# control: the spellings that are numbers still are
	run iso --pids-max try:64 --cpu-max try:150% --memory-max try:512MiB --rlimit-nofile 010 \
		--settle .25s --timeout 1.5m -- true
	[ "$status" -eq 0 ]
	assert_no_tree
}

# The one line a size with no unit too small to be meant gets.
bare() { # OPTION VALUE NUMBER
	echo "isorun: $1: '$2' has no unit, so it is $3 bytes; did you mean $2M? (units: B, K, M, G, T; a bare number is at least 1M)"
}

@test "a size with no unit below 1M is refused with the units named, every size option" {
	# the issue's: 512 bytes of memory killed the command (139), or as an ordinary
	# user a word about cgroup delegation and none about the unit
	refused "$(bare --memory-max 512 512)" --memory-max 512
	refused "$(bare --memory-max try:512 512)" --memory-max try:512
	refused "$(bare --memory-max 1048575 1048575)" --memory-max 1048575
	refused "$(bare --rlimit-fsize 512 512)" --rlimit-fsize 512
	refused "$(bare --rlimit-core 4096 4096)" --rlimit-core 4096
	refused "$(bare --rlimit-fsize 1 1)" --rlimit-fsize=1
	conf_refused "memory-max = try:512" "14: $(bare memory-max try:512 512 | sed 's/^isorun: //')"
	conf_refused "rlimit-fsize = 100" "16: $(bare rlimit-fsize 100 100 | sed 's/^isorun: //')"
	conf_refused "rlimit-core = 64" "15: $(bare rlimit-core 64 64 | sed 's/^isorun: //')"
	# control: 0 is 0 in any unit, a unit says what is meant, 1M bare is a size
	run --separate-stderr "$ISORUN" config --no-config --rlimit-core 0 --rlimit-fsize 512B \
		--memory-max try:1048576 --memory-max 512b --memory-max 64M
	[ "$status" -eq 0 ]
	[[ "$output" == *"rlimit-core = 0    (command line)"* ]]
	[[ "$output" == *"rlimit-fsize = 512    (command line)"* ]]
	[[ "$output" == *"memory-max = 64M    (command line)"* ]]
	run "$ISORUN" config --no-config --memory-max try:1048576
	[[ "$output" == *"memory-max = try:1048576    (command line)"* ]]
}

@test "the largest value each option takes is accepted, and the report that holds it validates" {
	run --separate-stderr iso --pids-max try:4194304 --cpu-max try:1000000% \
		--memory-max try:8388607T --rlimit-fsize 9223372036854775807 --rlimit-core 0 \
		--rlimit-nofile 1024 --finding-exit-code 255 --timeout 1000000000000s \
		--report "$W/r.json" -- true
	[ "$status" -eq 0 ]
	assert_report_valid "$W/r.json"
	json_has() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); exec(sys.argv[2])' "$@"; }
	json_has "$W/r.json" 's=r["settings"]; assert s["pids_max"]["value"] == 4194304 and s["cpu_max"]["value"] == 1000000, s'
	assert_no_tree
}

@test "the same numbers in isorun.conf: file:line:column of the value, 125, nothing ran" {
	conf_refused "pids-max = -1" "12: pids-max: expected $PIDS, got '-1'"
	conf_refused "cpu-max = 18446744073709553" "11: cpu-max: '18446744073709553' is out of range (expected $CPU)"
	conf_refused "  memory-max =  17179869184T" "17: memory-max: '17179869184T' is out of range (expected a size (512M, 2G), try:VALUE or none)"
	conf_refused "settle = 1e3s" "10: settle: invalid duration '1e3s' (examples: 90s, 5m, 1h30m)"
	conf_refused "rlimit-nofile = 0x10" "17: rlimit-nofile: expected a number of descriptors, got '0x10'"
	conf_refused "finding-exit-code = 256" "21: finding-exit-code: '256' is out of range (expected 1..255)"
}

# --- a tree whose creation fails leaves nothing ----------------------------

# The tree's parent holds nothing of a failed run (the per-user directory stays, as
# does the shields' shared lower layer .empty, as in assert_no_tree).
nothing_made() {
	local left
	left=$(find "$1" -mindepth 1 -maxdepth 1 -type d ! -name .empty 2>/dev/null || true)
	if [ -n "$left" ]; then
		echo "left behind under $1: $left" >&2
		return 1
	fi
}

@test "each step of making the tree fails in turn: 125, the step named, nothing left" {
	for step in home tmp run owner lock write; do
		rm -f "$W/ran"
		ISORUN_TEST_FAULT=tree:$step run --separate-stderr iso -- touch "$W/ran"
		[ "$status" -eq 125 ]
		[[ "${stderr_lines[0]}" =~ ^isorun:\ [a-z]+\ \'$U/[^/]+/$step ]] ||
			[[ "${stderr_lines[0]}" =~ ^isorun:\ (lock|write)\ \'$U/[^/]+/owner\' ]]
		[[ "${stderr_lines[0]}" == *": Input/output error" ]]
		[ ! -e "$W/ran" ]
		nothing_made "$U"
	done
	# control: without the fault, a tree is made and removed
	run iso -- touch "$W/ran"
	[ "$status" -eq 0 ]
	assert_no_tree
}

cgroup2_dir() {
	local d
	for d in /sys/fs/cgroup/unified /sys/fs/cgroup; do
		if [ "$(stat -f -c %T "$d" 2>/dev/null)" = cgroup2fs ] && [ -w "$d" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

@test "root: a cgroup2 directory as --root (directories can be made, files not): 125, nothing left" {
	[ "$(id -u)" -eq 0 ] || skip "making a cgroup is root's"
	local base
	base=$(cgroup2_dir) || skip "no writable cgroup2 hierarchy"
	CG="$base/isorun-test-$$-$BATS_TEST_NUMBER"
	mkdir "$CG"
	echo "$CG" >"$BATS_TEST_TMPDIR/cg"
	run --separate-stderr "$ISORUN" --no-config --root "$CG" -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: create '$CG/isorun-0/"*"/owner': Permission denied" ]]
	[ ! -e "$W/ran" ]
	nothing_made "$CG/isorun-0"
}

@test "root: a full tmpfs as --root, every inode count in turn: 0 or 125, and nothing left" {
	[ "$(id -u)" -eq 0 ] || skip "mounting a tmpfs is root's"
	M="$BATS_TEST_TMPDIR/m"
	mkdir -p "$M"
	echo "$M" >"$BATS_TEST_TMPDIR/mnt"
	local n failed=0
	for n in 3 4 5 6 7 8 9 10 11 12; do
		mount -t tmpfs -o "nr_inodes=$n,size=1M" tmpfs "$M"
		mkdir "$M/isorun-0"
		run --separate-stderr "$ISORUN" --no-config --root "$M" -- true
		echo "nr_inodes=$n: $status ${stderr_lines[0]:-}" >&2
		[ "$status" -eq 0 ] || { [ "$status" -eq 125 ] && failed=$((failed + 1)); }
		[ "$status" -eq 0 ] || [ "$status" -eq 125 ]
		nothing_made "$M/isorun-0"
		umount "$M"
	done
	# at least one creation step ran out of inodes
	[ "$failed" -gt 0 ]
}

# helpers.bash's teardown, after this file's own cleanup of a cgroup or a mount
teardown() {
	local cg m
	if [ -f "$BATS_TEST_TMPDIR/cg" ]; then
		cg=$(cat "$BATS_TEST_TMPDIR/cg")
		find "$cg" -depth -mindepth 1 -type d -exec rmdir {} \; 2>/dev/null
		rmdir "$cg" 2>/dev/null || true
	fi
	if [ -f "$BATS_TEST_TMPDIR/mnt" ]; then
		m=$(cat "$BATS_TEST_TMPDIR/mnt")
		mountpoint -q "$m" && umount "$m"
	fi
	show_last_run
	validate_outputs
}

# --- --report and --junit never name one file ------------------------------

# `iso --report A --junit B` is refused, naming both as given; an existing file keeps its bytes.
same_file() {
	local a=$1 b=$2
	shift 2
	rm -f "$W/ran"
	run --separate-stderr iso --report "$a" --junit "$b" "$@" -- touch "$W/ran"
	if [ "$status" -ne 125 ] || [ "${stderr_lines[0]}" != "isorun: --report '$a' and --junit '$b' are the same file: each would overwrite the other; give them two files" ]; then
		echo "for '$a' '$b': status $status, stderr: $stderr" >&2
		return 1
	fi
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ ! -e "$W/ran" ]
	[ ! -e "$U" ] || assert_no_tree
}

@test "--report F --junit F, ./F and F, a symlink, a hardlink, a dangling symlink: refused before either is opened" {
	cd "$W"
	same_file F F
	[ ! -e F ]
	same_file ./F F
	same_file "$W/F" F
	echo keep >G
	ln -s G L
	same_file G L
	same_file L G
	ln G H
	same_file H G
	[ "$(cat G)" = keep ]
	ln -s NEW D
	same_file D NEW
	[ ! -e NEW ]
	mkdir sub
	same_file sub/../F F
}

@test "fd:N twice, and fd:N open on the file the other names: refused" {
	cd "$W"
	same_file fd:3 fd:3 3>"$W/out"
	[ ! -s "$W/out" ]
	same_file fd:3 out 3>>"$W/out"
	same_file fd:3 fd:4 3>>"$W/out" 4>>"$W/out"
}

@test "isorun.conf's report and the command line's --junit naming one file: refused; junit = fd:N is a descriptor" {
	mkdir -p "$W/p"
	printf 'report = out.json\n' >"$W/p/isorun.conf"
	cd "$W/p"
	run --separate-stderr "$ISORUN" --root "$R" --junit "$W/p/out.json" -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: --report '$W/p/out.json' and --junit '$W/p/out.json' are the same file: each would overwrite the other; give them two files" ]
	[ ! -e "$W/ran" ] && [ ! -e out.json ]
	printf 'junit = fd:3\n' >"$W/p/isorun.conf"
	run --separate-stderr "$ISORUN" --root "$R" -- true 3>"$W/j.xml"
	[ "$status" -eq 0 ]
	[ ! -e "$W/p/fd:3" ]
	assert_junit_valid "$W/j.xml"
	assert_no_tree
}

@test "control: two distinct files, and two distinct descriptors, are each written whole" {
	cd "$W"
	run iso --report r.json --junit j.xml -- true
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; json.load(open("r.json"))'
	python3 -c 'import xml.dom.minidom as m; m.parse("j.xml")'
	run iso --report fd:3 --junit fd:4 -- true 3>"$W/r2.json" 4>"$W/j2.xml"
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; json.load(open("r2.json"))'
	python3 -c 'import xml.dom.minidom as m; m.parse("j2.xml")'
	assert_no_tree
}
