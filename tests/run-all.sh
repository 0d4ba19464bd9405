#!/usr/bin/env bash
# Runs every test tier and ends with one line: "N passed, N failed[, N skipped]
# in XmYs".
#   tests/run-all.sh BUILD_DIR [unit|integration|all] [NAME...]
# NAME picks what runs: test_x is the unit test build/unit/test_x, x.bats (or x)
# the integration file tests/integration/x.bats (DIR/x.bats: that file); a tier
# none of them is in does not run.  J=N runs N integration files at a time (twice the CPUs by default:
# the tests mostly wait on processes; J=1 runs them one after the other).
#
# The integration suite runs under the freshly built isorun's own leak gate: a
# test that leaks a process or leaves a tree behind fails the run, as it would
# fail a user's.  A file tagged `# bats file_tags=slow` starts first; one tagged
# `# bats file_tags=serial` runs after the others,
# alone: it asserts on state other tests' runs change.
set -u
# The tests run make as a user does: without the outer make's -j and its
# jobserver, whose fds isorun does not hand on (a make below would warn
# "jobserver unavailable"); its variables (WERROR=1) stay.
if [ -n "${MAKEFLAGS:-}" ]; then
	MAKEFLAGS=$(printf '%s' "$MAKEFLAGS" | sed -E 's/(^| )-j[0-9]*/\1/; s/ ?--jobserver-(auth|fds)=[^ ]*//g')
	export MAKEFLAGS
	unset MFLAGS
fi
# count_tap runs at the end of a pipeline and must keep its counts
shopt -s lastpipe
# A caller that ignores SIGINT or SIGQUIT (a background job of a shell without
# job control: `make check &` in a script) hands the ignore down to every test,
# and exec(2) keeps it: a trap on either in the tests' shells is then a no-op and
# the tests of Ctrl-C and of the stop signal fail.  bash cannot undo an ignore
# it was started with; env(1) can (coreutils 8.31 and later).
ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status)
reset=${ISORUN_TESTS_SIGRESET:-}
unset ISORUN_TESTS_SIGRESET
if [ "${1:-}" != --bats ] && (((16#${ign:-0} & 6) != 0)); then
	if [ -z "$reset" ] && env --default-signal=INT true 2>/dev/null; then
		echo "# SIGINT and SIGQUIT were ignored by the caller (a background job?): the suite gets them back"
		ISORUN_TESTS_SIGRESET=1 exec env --default-signal=INT,QUIT "$0" "$@"
	fi
	echo "# SIGINT or SIGQUIT is ignored by the caller (a background job?): the tests of Ctrl-C and of the stop signal will fail; start the suite in the foreground"
fi
t_start=$(date +%s)
here=$(cd "$(dirname "$0")" && pwd)

# Inside the gate: the parallel files (--jobs J) and then the serial ones (one at
# a time), each a bats run of its own with its own plan line.
#   run-all.sh --bats J NPAR FILE...   (the first NPAR files are the parallel ones)
if [ "${1:-}" = --bats ]; then
	jobs=$2 npar=$3
	shift 3
	rc=0
	if [ "$npar" -gt 0 ]; then
		if [ "$jobs" -gt 1 ]; then
			bats --tap --timing --jobs "$jobs" --no-parallelize-within-files \
				"${@:1:npar}" || rc=1
		else
			bats --tap --timing "${@:1:npar}" || rc=1
		fi
	fi
	if [ $# -gt "$npar" ]; then
		names=()
		for f in "${@:npar+1}"; do names+=("${f##*/}"); done
		echo "# serial files, alone: ${names[*]}"
		bats --tap --timing "${@:npar+1}" || rc=1
	fi
	exit $rc
fi

build=${1:-build}
only=${2:-all}
shift 2 2>/dev/null || shift $#
top=$(cd "$here/.." && pwd)
build=$(cd "$top" && cd "$build" && pwd)
log=$(mktemp "${TMPDIR:-/tmp}/isorun-tests.XXXXXX")
trap 'rm -rf "$log" "$log.times" "$log.failed" "$log.probes"' EXIT

passed=0 failed=0 skipped=0
planned=0 seen=0 plans=0

# What NAME... picked: unit binaries and integration files (all when none).
units=() files=()
for name in "$@"; do
	case $name in
	test_*)
		[ -x "$build/unit/$name" ] || {
			echo "run-all.sh: T=$name: no unit test $build/unit/$name (tests/unit/$name.c)" >&2
			exit 2
		}
		units+=("$build/unit/$name")
		;;
	*/*.bats)
		# a file elsewhere, by its path (tests/soak.sh's own test)
		[ -f "$name" ] || {
			echo "run-all.sh: T=$name: no such file" >&2
			exit 2
		}
		files+=("$(cd "$(dirname "$name")" && pwd)/${name##*/}")
		;;
	*)
		f=$here/integration/${name%.bats}.bats
		[ -f "$f" ] || {
			echo "run-all.sh: T=$name: no integration file tests/integration/${name%.bats}.bats" >&2
			exit 2
		}
		files+=("$f")
		;;
	esac
done
if [ $# -gt 0 ]; then
	[ ${#units[@]} -gt 0 ] || [ "$only" = unit ] || only=${only/all/integration}
	[ ${#files[@]} -gt 0 ] || [ "$only" = integration ] || only=${only/all/unit}
	if { [ "$only" = unit ] && [ ${#units[@]} -eq 0 ]; } ||
		{ [ "$only" = integration ] && [ ${#files[@]} -eq 0 ]; }; then
		echo "run-all.sh: T=$*: no $only test among them (make check runs either tier)" >&2
		exit 2
	fi
else
	units=("$build"/unit/test_*)
	# the longest files start first, or one started last would run on alone:
	# those that say `# bats file_tags=slow`, then the others largest first
	mapfile -t files < <(ls -S -d "$here"/integration/*.bats)
	slow=() rest=()
	for f in "${files[@]}"; do
		if grep -Eq '^# bats file_tags=(.*,)?slow(,|$)' "$f"; then slow+=("$f"); else rest+=("$f"); fi
	done
	files=("${slow[@]}" "${rest[@]}")
fi

# Count a TAP stream on stdin, echoing it; each "1..N" plan adds to planned.  A
# stream whose plan is missing or larger than what it reported did not run
# whole: that is a failure, never a quiet zero.  Each test's time (bats
# --timing: "ok 3 name in 120ms") goes to $log.times; each failure with the
# comment lines that follow it to $log.failed, repeated at the end where a CI
# log's tail shows it.
count_tap() {
	local line ms infail=0
	planned=0 seen=0 plans=0
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case "$line" in
		"not ok "*"# SKIP"* | "not ok "*"# TODO"*) infail=0 ;;
		"not ok "*) infail=1 ;;
		"#"*) ;;
		*) infail=0 ;;
		esac
		[ $infail -eq 1 ] && printf '%s\n' "$line" >>"$log.failed"
		case "$line" in
		1..*) planned=$((planned + ${line#1..})) plans=$((plans + 1)) ;;
		"ok "* | "not ok "*) seen=$((seen + 1)) ;;
		esac
		case "$line" in
		"not ok "*"# TODO"*) ;;
		"not ok "*"# SKIP"*) skipped=$((skipped + 1)) ;; # cmocka 1.1 prints a skip so
		"not ok "*) failed=$((failed + 1)) ;;
		"ok "*"# skip"* | "ok "*"# SKIP"*) skipped=$((skipped + 1)) ;;
		"ok "*) passed=$((passed + 1)) ;;
		esac
		case "$line" in
		*" in "*ms)
			ms=${line##* in }
			ms=${ms%ms}
			case $ms in *[!0-9]* | "") ;; *) printf '%s\t%s\n' "$ms" "$line" >>"$log.times" ;; esac
			;;
		esac
	done
}

if [ "$only" = all ] || [ "$only" = unit ]; then
	for t in "${units[@]}"; do
		[ -x "$t" ] || continue
		echo "# unit: $(basename "$t")"
		CMOCKA_MESSAGE_OUTPUT=TAP "$t" >"$log" 2>&1
		rc=$?
		count_tap <"$log"
		# cmocka prints its own summary line ("# ok - tests") as a comment
		if { [ $rc -ne 0 ] && ! grep -v '# SKIP' "$log" | grep -q '^not ok'; } ||
			[ "$plans" -ne 1 ] || [ "$planned" -ne "$seen" ]; then
			echo "not ok - $(basename "$t") did not run whole (exit $rc, plan $planned, ran $seen)"
			failed=$((failed + 1))
		fi
	done
fi

if [ "$only" = all ] || [ "$only" = integration ]; then
	export ISORUN="$build/isorun" HELPERS="$build/helpers" TOP="$top"
	# The tests' python3 is Debian's, the one make deps installs their modules
	# for, whatever a PATH finds first: a pyenv shim found first here lacks
	# xdist and costs ~0.5 s of CPU per start (200 files' worth of starts).  In
	# the build directory: one under /tmp would be a PATH entry --private-tmp
	# hides, which the tests of hidden paths would see named.
	if [ -x /usr/bin/python3 ]; then
		mkdir -p "$build/test-bin"
		ln -sfn /usr/bin/python3 "$build/test-bin/python3"
		export PATH="$build/test-bin:$PATH"
	fi
	report="$log.gate.json"
	# the probes a test's require saw pass, for the whole suite: one of them
	# failing later is no reason to skip (tests/integration/helpers.bash)
	export TESTS_PROBES_DIR="$log.probes"
	# An ordinary user's holder scan counts every non-dumpable process of the
	# same uid as one that may hold the tree (not measurable, 122): another
	# file's nodump helper, or an isorun between its unshare(CLONE_NEWUSER) and
	# its exec, is one.  Side by side, files of one ordinary user fail each
	# other; root reads every process, so only root's files run side by side.
	if [ "$(id -u)" -eq 0 ]; then
		jobs=${J:-$((2 * $(nproc)))}
	else
		jobs=${J:-1}
	fi
	case $jobs in
	[1-9] | [1-9][0-9]) ;;
	*)
		echo "run-all.sh: J=$jobs: not a number of jobs from 1 to 99" >&2
		exit 2
		;;
	esac
	if [ "$jobs" -gt 1 ] && ! command -v parallel >/dev/null; then
		echo "# GNU parallel is missing (make deps installs it): one file at a time"
		jobs=1
	fi
	par=() ser=()
	for f in "${files[@]}"; do
		if grep -Eq '^# bats file_tags=(.*,)?serial(,|$)' "$f"; then ser+=("$f"); else par+=("$f"); fi
	done
	want_plans=0
	[ ${#par[@]} -gt 0 ] && want_plans=$((want_plans + 1))
	[ ${#ser[@]} -gt 0 ] && want_plans=$((want_plans + 1))
	# --policy=off for the gate itself: the tests provoke refusals on purpose, and
	# each test's own isorun must hold its own seccomp listener (a second one nested
	# below ours would be refused by the kernel)
	echo "# integration: ${#files[@]} files, $jobs at a time, under '$ISORUN --no-config --settle 2s --policy=off'"
	# streamed, so progress shows file by file as each one finishes
	t_int=$(date +%s) load=$(cut -d' ' -f1 /proc/loadavg)
	"$ISORUN" --no-config --settle 2s --policy=off --report "$report" -- \
		"$here/run-all.sh" --bats "$jobs" ${#par[@]} "${par[@]}" "${ser[@]}" 2>&1 |
		count_tap
	rc=${PIPESTATUS[0]}
	if [ "$plans" -ne "$want_plans" ] || [ "$planned" -le 0 ] || [ "$planned" -ne "$seen" ]; then
		echo "not ok - the integration suite did not run whole (isorun exit $rc, plan $planned, ran $seen)"
		failed=$((failed + 1))
	fi
	# The gate's own verdict on the whole suite: no leak, tree removed.
	if [ "$rc" -eq 122 ] || ! grep -q '"state": "removed"' "$report"; then
		echo "not ok - the integration suite itself leaked or left its tree (isorun exit $rc)"
		failed=$((failed + 1))
	else
		echo "ok - the integration suite left no process and no tree behind"
		passed=$((passed + 1))
	fi
	# what it cost, beside how long it took: on a busy machine the two part
	cpu=$(sed -n 's/^ *"cpu_\(user\|system\)_ms": \([0-9]*\),*$/\2/p' "$report" |
		awk '{ ms += $1 } END { print int(ms / 1000) }')
	echo "# integration: $(($(date +%s) - t_int))s, ${cpu}s of CPU, J=$jobs, load $load at the start"
	rm -f "$report"
fi

if [ -s "$log.times" ]; then
	echo "# slowest tests:"
	sort -rn "$log.times" | head -5 | cut -f2 | sed 's/^/#   /'
fi
if [ -s "$log.failed" ]; then
	echo "# what failed (each in full above):"
	head -n 60 "$log.failed" | sed 's/^/#   /'
fi
t=$(($(date +%s) - t_start))
line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line in $((t / 60))m$((t % 60))s"
[ "$failed" -eq 0 ]
