#!/usr/bin/env bash
# Runs one integration file N times, each run as `make check T=FILE` runs it
# (tests/run-all.sh: under the freshly built isorun's gate), and counts: how
# many runs passed, and how often each test failed.  A rate for
# tests/FLAKES.md, measured rather than guessed.
#   tests/soak.sh BUILD_DIR N FILE     (make soak T=FILE N=50)
# FILE is a name as T= takes it (reap.bats, reap) or a path to a .bats file.
# A failing run's whole output is kept; its path is said.  Exit 1 when any
# run failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: tests/soak.sh BUILD_DIR N FILE}
n=${2:-}
file=${3:-}
if [ $# -ne 3 ] || [ -z "$file" ]; then
	echo "soak: T=${*:3}: one integration file (make soak T=reap.bats N=50)" >&2
	exit 2
fi
case $n in
[1-9] | [1-9][0-9] | [1-9][0-9][0-9] | [1-9][0-9][0-9][0-9]) ;;
*)
	echo "soak: N=$n: not a number of runs from 1 to 9999" >&2
	exit 2
	;;
esac
logs=$(mktemp -d "${TMPDIR:-/tmp}/isorun-soak.XXXXXX")
name=${file##*/}
ok=0 bad=0
declare -A fails=()
for ((i = 1; i <= n; i++)); do
	log=$logs/run-$i.log
	"$here/run-all.sh" "$build" integration "$file" >"$log" 2>&1
	rc=$?
	[ $rc -eq 2 ] && grep -q '^run-all.sh: ' "$log" && { cat "$log" >&2; rm -rf "$logs"; exit 2; }
	last=$(tail -n 1 "$log")
	if [ $rc -eq 0 ]; then
		ok=$((ok + 1))
		echo "soak: $name run $i/$n: $last"
		rm -f "$log"
		continue
	fi
	bad=$((bad + 1))
	echo "soak: $name run $i/$n: $last (exit $rc; $log)"
	# each failure once per run, by its name (bats' number is the file's order)
	while IFS= read -r t; do
		fails[$t]=$((${fails[$t]:-0} + 1))
	done < <(grep -v '# SKIP' "$log" | sed -En 's/^not ok ([0-9]+|-) //p' |
		sed -E 's/ in [0-9]+ms$//' | sort -u)
done
echo "soak: $name: $ok of $n runs passed, $bad failed"
for t in "${!fails[@]}"; do
	echo "soak:   failed ${fails[$t]} of $n: $t"
done | sort
[ $bad -eq 0 ] && rmdir "$logs" 2>/dev/null
[ $bad -eq 0 ]
