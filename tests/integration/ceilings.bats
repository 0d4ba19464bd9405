#!/usr/bin/env bats
# Issue 15: a cgroup of the run's own where one can be had, ceilings
# (--memory-max, --pids-max, --cpu-max), accounting in the report.  What runs
# against the kernel and what against a cgroup2 tree a test builds
# (ISORUN_TEST_CGROUP_ROOT) is said in each test's name.

load helpers

userns_ok() {
	unshare -Urpf --mount-proc --propagation slave true
}

# The caller's cgroup2 directory, as isorun finds it; empty when there is none.
own_cgroup() {
	local mnt rel
	mnt=$(awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	rel=$(sed -n 's/^0:://p' /proc/self/cgroup)
	[ -n "$mnt" ] && [ -n "$rel" ] || return 0
	[ "$rel" = / ] && rel=
	echo "$mnt$rel"
}

# A cgroup of our own can be made here: root, or a delegated cgroup.
cgroup_writable() {
	local own
	own=$(own_cgroup)
	[ -n "$own" ] && [ -w "$own" ] && [ -w "$own/cgroup.procs" ]
}

# The controller $1 is handed to our cgroup.
controller_offered() {
	local own
	own=$(own_cgroup)
	[ -n "$own" ] && grep -qw "$1" "$own/cgroup.controllers" 2>/dev/null
}

# Skip a root-only test as an ordinary user, with the reason (not a missing feature).
need_cgroup() {
	if ! cgroup_writable; then
		[ "$(id -u)" -ne 0 ] || { echo "root cannot write $(own_cgroup)" >&2; return 1; }
		skip "the caller's cgroup $(own_cgroup) is not delegated to uid $(id -u)"
	fi
}

json() {
	python3 -c "import json,sys; r=json.load(open(sys.argv[1])); $1" "${@:2}"
}

@test "cgroup (kernel): the command runs in a cgroup named after its tree, accounted, removed after" {
	need_cgroup
	run --separate-stderr iso --keep --report "$W/r.json" -- sh -c \
		'sed -n "s/^0:://p" /proc/self/cgroup; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'
	[ "$status" -eq 0 ]
	tree=$(the_tree)
	[[ "$output" == */isorun-"$(basename "$tree")" ]]
	path=$(own_cgroup)/isorun-$(basename "$tree")
	json 'c=r["resources"]["cgroup"]; assert c["path"]==sys.argv[2] and c["cpu_usage_us"]>0, c' "$W/r.json" "$path"
	[ ! -e "$path" ]
	force_remove "$tree"
	# control: --cgroup=off runs without one
	run --separate-stderr iso --cgroup=off --report "$W/o.json" -- sed -n 's/^0:://p' /proc/self/cgroup
	[ "$status" -eq 0 ]
	[ "$output" = "$(sed -n "s/^0:://p" /proc/self/cgroup)" ]
	json 'assert r["resources"]["cgroup"] is None, r["resources"]' "$W/o.json"
}

@test "cgroup (kernel): survivors are frozen, named and killed; the cgroup is removed once empty" {
	need_cgroup
	run --separate-stderr iso --settle 0.2s --report "$W/r.json" -- sh -c 'sleep 300 & echo $! >"$1"' sh "$W/pid"
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"leaked: pid $(cat "$W/pid") \`sleep 300\`"*"killed"* ]]
	assert_dead "$(cat "$W/pid")"
	path=$(json 'print(r["resources"]["cgroup"]["path"])' "$W/r.json")
	[[ "$path" == "$(own_cgroup)"/isorun-* ]]
	[ ! -e "$path" ]
	[[ "$stderr" != *"cgroup retained"* ]]
	assert_no_tree
}

@test "cgroup (kernel): a fork-and-exit chain left behind is frozen and killed; nothing of it outlives the run" {
	need_cgroup
	run --separate-stderr iso --settle 0.2s --report "$W/r.json" -- sh -c '"$1" -s -t 30 "$2" &' sh "$H/forkloop" "$W/pid"
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"forkloop"*"killed"* ]]
	path=$(json 'print(r["resources"]["cgroup"]["path"])' "$W/r.json")
	[ ! -e "$path" ]
	# nothing of the chain runs on: every process of it was in the cgroup, and the cgroup is gone
	! pgrep -f -- "forkloop -s -t 30 $W/pid" >&2
	assert_no_tree
}

@test "cgroup (kernel): a nested isorun killed with -9 leaves its cgroup empty inside the run's; it goes with the run's" {
	need_cgroup
	# the inner isorun is killed, its command is then a leak of the outer run
	mkdir "$W/inner"
	run --separate-stderr iso --settle 0.2s --report "$W/r.json" -- sh -c \
		'"$1" --no-config --root "$2" -- sh -c "echo \$\$ >$3; exec sleep 30" & p=$!; "$4" -t 60 "$3"; kill -9 $p; wait $p; exit 0' \
		sh "$ISORUN" "$W/inner" "$W/pid" "$H/waitfor"
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"leaked: pid $(cat "$W/pid") \`sleep 30\`"* ]]
	[[ "$stderr" != *"cgroup retained"* ]]
	path=$(json 'print(r["resources"]["cgroup"]["path"])' "$W/r.json")
	[ ! -e "$path" ]
	force_remove "$W/inner"
}

@test "cgroup (kernel): under --pidns the command's cgroup is the run's too" {
	need_cgroup
	require "user and PID namespaces" userns_ok
	run --separate-stderr iso --pidns --report "$W/r.json" -- sed -n 's/^0:://p' /proc/self/cgroup
	[ "$status" -eq 0 ]
	[[ "$output" == *isorun-* ]]
	json 'assert r["resources"]["cgroup"]["cpu_usage_us"] is not None' "$W/r.json"
}

# strace of a run: the clones, the writes and the watches, each descriptor by its path.
# (LeakSanitizer cannot run under ptrace: a SANITIZE=1 build checks leaks elsewhere.)
traced() {
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -yy -e trace=clone,clone3,write,inotify_add_watch -e signal=none -o "$W/st" "$@"
}

# The command's first act reads its cgroup: the run's.  $1: the control (clone3 refused) or not.
first_act_in_cgroup() {
	local fault=$1
	shift
	ISORUN_TEST_FAULT=$fault run --separate-stderr traced "$ISORUN" --no-config --root "$R" "$@" -- \
		sed -n 's/^0:://p' /proc/self/cgroup
	[ "$status" -eq 0 ]
	[[ "$output" == */isorun-* ]]
}

# Born in the run's cgroup (clone3 CLONE_INTO_CGROUP on its directory), no cgroup.procs
# write; with clone3 refused (an older kernel, a filter) the child writes it before exec.
cloned_into_cgroup() {
	first_act_in_cgroup "" "$@"
	grep -q 'clone3({flags=CLONE_VM|CLONE_INTO_CGROUP, .*cgroup=[0-9]*}' "$W/st"
	run grep 'cgroup.procs>, "0"' "$W/st"
	[ "$status" -eq 1 ]
	# its events are the open file's POLLPRI: no inotify, whose close waits for a grace period
	run grep 'inotify_add_watch(.*cgroup.events' "$W/st"
	[ "$status" -eq 1 ]
	first_act_in_cgroup no-clone-into-cgroup "$@"
	grep -q 'cgroup.procs>, "0", 1' "$W/st"
	run grep CLONE_INTO_CGROUP "$W/st"
	[ "$status" -eq 1 ]
}

@test "cgroup (kernel): the command is cloned into the run's cgroup, never moved by a cgroup.procs write; with clone3 refused, the write before exec" {
	need_cgroup
	require "strace (make deps installs it)" command -v strace
	cloned_into_cgroup
}

@test "cgroup (kernel): under --pidns too, init's child is cloned into the run's cgroup; with clone3 refused, the write before exec" {
	need_cgroup
	require "strace (make deps installs it)" command -v strace
	require "user and PID namespaces" userns_ok
	cloned_into_cgroup --pidns
}

@test "report: every run carries CPU time and max RSS (getrusage of the children), as root and as a user" {
	run --separate-stderr iso --cgroup=off --report "$W/r.json" -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'
	[ "$status" -eq 0 ]
	json 'x=r["resources"]; assert x["cpu_user_ms"]+x["cpu_system_ms"]>0 and x["max_rss_kib"]>0 and x["limits"]==[] and x["cgroup"] is None, x' "$W/r.json"
	# -v says it in one line
	run --separate-stderr iso --cgroup=off -v -- true
	[[ "$stderr" == *"isorun: resources: cpu "*" ms user, "*" ms system; max rss "*" KiB"* ]]
}

@test "--cgroup=off with a ceiling: the reason is said (cgroups are off), never an empty one after the colon" {
	run --separate-stderr iso --cgroup=off --memory-max 1G -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: --memory-max cannot be enforced: cgroups are off (--cgroup=off)" ]
	run --separate-stderr iso --cgroup=off --cpu-max 50 -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: --cpu-max cannot be enforced: cgroups are off (--cgroup=off); RLIMIT_CPU "* ]]
	if [ "$(id -u)" -eq 0 ]; then
		run --separate-stderr iso --cgroup=off --pids-max 5 -- touch "$W/ran"
		[ "$status" -eq 125 ]
		[[ "${stderr_lines[0]}" == "isorun: --pids-max cannot be enforced: cgroups are off (--cgroup=off); RLIMIT_NPROC "* ]]
	fi
	# try: runs, and -v says why it was not enforced
	run --separate-stderr iso --cgroup=off --cpu-max try:50 --report "$W/r.json" -- true
	[ "$status" -eq 0 ]
	grep -q '"not enforced: cgroups are off (--cgroup=off); RLIMIT_CPU' "$W/r.json"
	[ ! -e "$W/ran" ]
	[ ! -e "$U" ] || assert_no_tree
}

@test "--memory-max without a memory controller (kernel): 125 naming what is missing and why; try: runs and says how" {
	controller_offered memory && skip "this host hands the memory controller to $(own_cgroup)"
	run --separate-stderr iso --memory-max 1G -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ ! -e "$W/ran" ]
	if [ "$(id -u)" -eq 0 ]; then
		[[ "$stderr" == *"--memory-max cannot be enforced: the memory controller is not enabled in the parent: $(own_cgroup)/cgroup.controllers offers"* ]]
	else
		[[ "$stderr" == *"--memory-max cannot be enforced: the caller's cgroup $(own_cgroup) is not delegated to uid $(id -u)"* ]]
	fi
	[[ "$stderr" == *"FAILED (exit 125)"* ]]
	# refused before anything was made
	[ ! -e "$U" ]
	run --separate-stderr iso --memory-max try:1G --report "$W/r.json" -- touch "$W/ran"
	[ "$status" -eq 0 ]
	[ -e "$W/ran" ]
	json 'l=r["resources"]["limits"][0]; assert l["name"]=="memory-max" and l["value"]==1<<30 and l["try"] and l["enforced_by"]=="rlimit" and "RLIMIT_DATA" in l["note"], l' "$W/r.json"
	# the rlimit is really there: the command sees it
	run --separate-stderr iso --memory-max try:1G -- sh -c 'ulimit -d'
	[ "$output" = $((1 << 20)) ]
}

@test "--memory-max try: without a controller (kernel): an allocation past it is refused, and the failing run says what cannot be known" {
	controller_offered memory && skip "this host hands the memory controller to $(own_cgroup)"
	run --separate-stderr iso --memory-max try:64M -- /usr/bin/python3 -c 'bytearray(256 << 20)'
	[ "$status" -eq 1 ]
	[[ "$stderr" == *MemoryError* ]]
	[[ "$stderr" == *"isorun: the command failed under --memory-max 67108864 (RLIMIT_DATA per process"*"whether it hit the ceiling is not observable"* ]]
	# control: the same allocation without the ceiling succeeds
	run --separate-stderr iso -- /usr/bin/python3 -c 'bytearray(256 << 20)'
	[ "$status" -eq 0 ]
}

@test "--cpu-max without a cpu controller (kernel): refused; try: runs, not enforced, and says why" {
	controller_offered cpu && skip "this host hands the cpu controller to $(own_cgroup)"
	run --separate-stderr iso --cpu-max 50 -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"--cpu-max cannot be enforced: "*"RLIMIT_CPU bounds CPU seconds, not a share of a CPU"* ]]
	run --separate-stderr iso --cpu-max try:50% --report "$W/r.json" -- true
	[ "$status" -eq 0 ]
	json 'l=r["resources"]["limits"][0]; assert l["enforced_by"] is None and l["note"].startswith("not enforced: "), l' "$W/r.json"
}

@test "ceilings: bad values are refused naming the option; isorun.conf takes the same keys" {
	run --separate-stderr iso --memory-max 12X -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"--memory-max: expected a size (512M, 2G), try:VALUE or none, got '12X'"* ]]
	run --separate-stderr iso --pids-max 0 -- true
	[ "$status" -eq 125 ]
	printf '[isorun]\nmemory-max = try:64M\npids-max = try:100\ncgroup = off\n' >"$W/isorun.conf"
	run --separate-stderr "$ISORUN" config --config "$W/isorun.conf"
	[[ "$output" == *"memory-max = try:64M"* ]]
	[[ "$output" == *"pids-max = try:100"* ]]
	[[ "$output" == *"cgroup = off"* ]]
	# the command line's none undoes the file's
	run --separate-stderr "$ISORUN" config --config "$W/isorun.conf" --memory-max none
	[[ "$output" == *"memory-max = none"* ]]
}

# A cgroup2 tree of our own making: the files the kernel would show.
fake_cgroup() {
	local d=$W/cg
	mkdir -p "$d"
	echo "memory pids cpu" >"$d/cgroup.controllers"
	echo "memory pids cpu" >"$d/cgroup.subtree_control"
	: >"$d/cgroup.procs"
	printf 'populated 0\nfrozen 0\n' >"$d/cgroup.events"
	printf 'usage_usec 4242\nuser_usec 4000\nsystem_usec 242\n' >"$d/cpu.stat"
	echo 123456 >"$d/memory.peak"
	echo 7 >"$d/pids.peak"
	printf 'low 0\nhigh 0\nmax 3\noom 1\noom_kill %s\n' "$1" >"$d/memory.events"
	printf 'max %s\n' "$2" >"$d/pids.events"
	echo "$d"
}

@test "ceilings (built tree): memory.max, pids.max, cpu.max written; memory.events oom_kill names the ceiling" {
	d=$(fake_cgroup 2 0)
	ISORUN_TEST_CGROUP_ROOT=$d run --separate-stderr iso --memory-max 64M --pids-max 50 --cpu-max 150 \
		--report "$W/r.json" -- true
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"isorun: memory ceiling reached (--memory-max 67108864 bytes): 2 processes OOM-killed"* ]]
	[[ "$stderr" == *"FAILED (exit 122): a ceiling was reached"* ]]
	json 'x=r["resources"]; c=x["cgroup"]; assert c["memory_peak"]==123456 and c["pids_peak"]==7 and c["oom_kill"]==2 and c["cpu_usage_us"]==4242, c; assert [l["enforced_by"] for l in x["limits"]]==["cgroup"]*3, x["limits"]' "$W/r.json"
	# removed after: only the tree's own files were there
	[ -z "$(find "$d" -mindepth 1 -type d)" ]
	# control: no OOM kill, no finding
	d=$(fake_cgroup 0 0)
	ISORUN_TEST_CGROUP_ROOT=$d run --separate-stderr iso --memory-max 64M -- true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "ceilings (built tree): pids.events max names the process ceiling" {
	d=$(fake_cgroup 0 5)
	ISORUN_TEST_CGROUP_ROOT=$d run --separate-stderr iso --pids-max 50 -- true
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"isorun: process ceiling reached (--pids-max 50): 5 forks refused"* ]]
}

@test "ceilings (built tree): a controller the parent does not hand down is refused, naming it" {
	d=$(fake_cgroup 0 0)
	echo "cpu" >"$d/cgroup.controllers"
	echo "cpu" >"$d/cgroup.subtree_control"
	ISORUN_TEST_CGROUP_ROOT=$d run --separate-stderr iso --memory-max 64M -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"--memory-max cannot be enforced: the memory controller is not enabled in the parent: $d/cgroup.controllers offers 'cpu'"* ]]
	# an isorun-made directory would be left: none is
	[ -z "$(find "$d" -mindepth 1 -type d)" ]
}

# Processes on the host, by /proc.
nprocs() {
	local n=0 p
	for p in /proc/[0-9]*; do n=$((n + 1)); done
	echo "$n"
}

@test "fork bomb (kernel) under --pidns --pids-max 64: the host's count stays within 64 + a few, the run fails naming the ceiling" {
	if [ "$(id -u)" -eq 0 ] && ! controller_offered pids; then
		# nothing can bind root here (RLIMIT_NPROC never binds uid 0, and no pids
		# controller): the ceiling is refused before anything runs, naming both
		run --separate-stderr iso --pidns --pids-max 64 -- touch "$W/ran"
		[ "$status" -eq 125 ]
		[[ "${stderr_lines[0]}" == "isorun: --pids-max cannot be enforced: the pids controller is not enabled in the parent: "*"; RLIMIT_NPROC does not bind uid 0 outside a user namespace" ]]
		[ ! -e "$W/ran" ]
		assert_no_tree
		return
	fi
	require "user and PID namespaces" userns_ok
	mkfifo "$W/go"
	before=$(nprocs)
	iso --pidns --pids-max 64 -- "$H/forkstorm" "$W/full" <"$W/go" 2>"$W/err" 3>&- &
	bg=$!
	exec 7>"$W/go"
	"$H/waitfor" -t 60 "$W/full"
	during=$(nprocs)
	exec 7>&-
	status=0
	wait "$bg" || status=$?
	cat "$W/err" >&2
	echo "processes before $before, during $during" >&2
	[ "$during" -le $((before + 64 + 10)) ]
	[ "$status" -ne 0 ]
	grep -q "forkstorm: fork refused after" "$W/err"
	grep -q "under --pids-max 64" "$W/err"
	assert_no_tree
}

# Dead or a zombie waiting for its reaper: either way no longer running.
assert_not_running() {
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null || true)
	[ -z "$st" ] || [ "$st" = Z ] || { echo "pid $1 still runs (state $st)" >&2; return 1; }
}

@test "kill -9 of isorun with a cgroup (kernel): ls shows the run orphaned with its live processes; gc freezes, names, kills them and removes tree and cgroup" {
	need_cgroup
	# --policy=off: an execve still on its way when isorun dies would find no one to
	# answer its seccomp notification and fail, and this test is about what runs on
	"$ISORUN" --no-config --root "$R" --policy=off -- sh -c 'sleep 300 & echo $! >"$1.tmp"; mv "$1.tmp" "$1"; exec sleep 301' sh "$W/pid" 3>&- &
	owner=$!
	"$H/waitfor" -t 60 "$W/pid"
	kill -9 "$owner"
	wait "$owner" || true
	tree=$(the_tree)
	cg=$(cat "$tree/cgroup")
	[[ "$cg" == */isorun-"$(basename "$tree")" ]]
	run --separate-stderr "$ISORUN" ls --root "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == *"orphaned"* ]]
	[[ "$output" == *"live: pid $(cat "$W/pid") \`sleep 300\` (in the run's cgroup $cg)"* ]]
	[[ "$output" == *"\`sleep 301\`"* ]]
	run --separate-stderr "$ISORUN" ls --root "$R" --json
	python3 -c 'import json,sys; t=json.loads(sys.argv[1])[0]; assert t["cgroup"]==sys.argv[2] and len(t["processes"])==2, t' "$output" "$cg"
	# dry run names, stops nothing
	run --separate-stderr "$ISORUN" gc --root "$R" --dry-run
	[[ "$output" == *"would kill: pid $(cat "$W/pid") \`sleep 300\`"* ]]
	kill -0 "$(cat "$W/pid")"
	run --separate-stderr "$ISORUN" gc --root "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == *"killed: pid $(cat "$W/pid") \`sleep 300\` (in the run's cgroup $cg)"* ]]
	[[ "$output" == *"removed $tree"* ]]
	assert_not_running "$(cat "$W/pid")"
	[ ! -e "$cg" ]
	assert_no_tree
}

@test "gc (built tree): a cgroup record that names another cgroup than the tree's is not believed" {
	d=$(fake_cgroup 0 0)
	mkdir -p "$d/victim"
	echo $$ >"$d/victim/cgroup.procs"
	printf 'populated 1\n' >"$d/victim/cgroup.events"
	ISORUN_TEST_CGROUP_ROOT=$d run --separate-stderr iso --keep -- true
	tree=$(the_tree)
	# made to look orphaned: an owner that is gone, no outcome
	rm -f "$tree/outcome"
	echo "$d/victim" >"$tree/cgroup"
	ISORUN_TEST_CGROUP_ROOT=$d run --separate-stderr "$ISORUN" gc --root "$R"
	[[ "$output" != *"killed"* ]]
	[ -d "$d/victim" ]
	[[ "$output" == *"removed $tree"* ]]
	# control: the same record naming the tree's own cgroup is followed
	ISORUN_TEST_CGROUP_ROOT=$d run --separate-stderr iso --keep -- true
	tree=$(the_tree)
	rm -f "$tree/outcome"
	own=$d/isorun-$(basename "$tree")
	mkdir "$own"
	# a process of ours to be named; the built tree's cgroup.kill is a plain file, kills nothing
	sleep 60 3>&- &
	echo $! >"$own/cgroup.procs"
	printf 'populated 0\n' >"$own/cgroup.events"
	: >"$own/cgroup.kill"
	: >"$own/cgroup.freeze"
	echo "$own" >"$tree/cgroup"
	ISORUN_TEST_CGROUP_ROOT=$d run --separate-stderr "$ISORUN" gc --root "$R"
	kill $! 2>/dev/null || true
	[[ "$output" == *"killed: pid $! \`sleep 60\`"* ]]
	[ ! -e "$own" ]
}
