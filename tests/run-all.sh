#!/usr/bin/env bash
# Runs every test tier and ends with one line: "N passed, N failed[, N skipped]".
#   tests/run-all.sh BUILD_DIR [unit|integration]
#
# The integration suite runs under the freshly built isorun's own leak gate: a
# test that leaks a process or leaves a tree behind fails the run, as it would
# fail a user's.
set -u
# count_tap runs at the end of a pipeline and must keep its counts
shopt -s lastpipe
build=${1:-build}
only=${2:-all}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=$(cd "$top" && cd "$build" && pwd)
log=$(mktemp "${TMPDIR:-/tmp}/isorun-tests.XXXXXX")
trap 'rm -f "$log"' EXIT

passed=0 failed=0 skipped=0
planned=0 seen=0

# Count a TAP stream on stdin, echoing it.  A stream whose plan ("1..N") is
# missing or larger than what it reported did not run whole: that is a failure,
# never a quiet zero.
count_tap() {
	local line
	planned=-1 seen=0
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case "$line" in
		1..*) planned=${line#1..} ;;
		"ok "* | "not ok "*) seen=$((seen + 1)) ;;
		esac
		case "$line" in
		"not ok "*"# TODO"*) ;;
		"not ok "*"# SKIP"*) skipped=$((skipped + 1)) ;; # cmocka 1.1 prints a skip so
		"not ok "*) failed=$((failed + 1)) ;;
		"ok "*"# skip"* | "ok "*"# SKIP"*) skipped=$((skipped + 1)) ;;
		"ok "*) passed=$((passed + 1)) ;;
		esac
	done
}

if [ "$only" = all ] || [ "$only" = unit ]; then
	for t in "$build"/unit/test_*; do
		[ -x "$t" ] || continue
		echo "# unit: $(basename "$t")"
		CMOCKA_MESSAGE_OUTPUT=TAP "$t" >"$log" 2>&1
		rc=$?
		count_tap <"$log"
		# cmocka prints its own summary line ("# ok - tests") as a comment
		if { [ $rc -ne 0 ] && ! grep -v '# SKIP' "$log" | grep -q '^not ok'; } ||
			[ "$planned" -ne "$seen" ]; then
			echo "not ok - $(basename "$t") did not run whole (exit $rc, plan $planned, ran $seen)"
			failed=$((failed + 1))
		fi
	done
fi

if [ "$only" = all ] || [ "$only" = integration ]; then
	export ISORUN="$build/isorun" HELPERS="$build/helpers" TOP="$top"
	report="$log.gate.json"
	# --policy=off for the gate itself: the tests provoke refusals on purpose, and
	# each test's own isorun must hold its own seccomp listener (a second one nested
	# below ours would be refused by the kernel)
	echo "# integration: bats under '$ISORUN --no-config --settle 2s --policy=off'"
	# streamed, so progress shows test by test as each one finishes
	"$ISORUN" --no-config --settle 2s --policy=off --report "$report" -- bats --tap "$here/integration" 2>&1 |
		count_tap
	rc=${PIPESTATUS[0]}
	if [ "$planned" -le 0 ] || [ "$planned" -ne "$seen" ]; then
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
	rm -f "$report"
fi

line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ]
