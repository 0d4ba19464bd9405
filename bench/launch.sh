#!/usr/bin/env bash
# Launch cost of isorun against /bin/true, a shell mktemp/rm -rf wrapper and
# bubblewrap, measured round-robin in one run and printed as ratios (a noisy VM
# makes absolute numbers meaningless); then teardown rate against rm -rf.
#   bench/launch.sh [PATH_TO_ISORUN] [ROUNDS]
# Targets (issue 2): isorun <= 0.75x bwrap --dev-bind, <= 0.4x the shell wrapper.
set -eu
isorun=$(realpath "${1:-build/isorun}")
rounds=${2:-300}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
mkdir -p "$out"
cc -O2 -o "$out/runner" "$top/bench/runner.c"
# shellcheck disable=SC2046 # pkg-config prints several words on purpose
cc -O2 -D_GNU_SOURCE -I"$top" -o "$out/rmbench" "$top/bench/rmbench.c" "$top/build/libiso.a" \
	$(pkg-config --libs jansson)

# bubblewrap is the bench's own dependency, not isorun's
if ! command -v bwrap >/dev/null && [ "$(id -u)" -eq 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null 2>&1 || true
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/isorun-bench.XXXXXX")
shm=
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	shm=$(mktemp -d /dev/shm/isorun-bench.XXXXXX)
fi
trap 'rm -rf "$scratch" ${shm:+"$shm"}' EXIT

# The shell wrapper builds the same tree isorun does, in the same place: what a
# script would have to do to give a suite its own HOME/TMPDIR/XDG directories.
# shellcheck disable=SC2016 # expanded by the wrapper's own sh
wrapper='d=$(mktemp -d "$0/x.XXXXXX") && cd "$d" && mkdir home tmp cache config data state run && HOME=$d/home TMPDIR=$d/tmp /bin/true; cd / && rm -rf "$d"'

table() { # ROOT LABEL
	set -- "/bin/true" /bin/true \
		:: "isorun -- /bin/true ($2)" "$isorun" --root "$1" -- /bin/true \
		:: "shell wrapper ($2)" sh -c "$wrapper" "$1"
	if command -v bwrap >/dev/null && bwrap --dev-bind / / /bin/true 2>/dev/null; then
		set -- "$@" :: "bwrap --dev-bind / / /bin/true" bwrap --dev-bind / / /bin/true
	fi
	if command -v unshare >/dev/null; then
		set -- "$@" :: "unshare /bin/true (exec floor)" unshare /bin/true
	fi
	"$out/runner" "$rounds" "$@"
}

ratios() {
	awk '
		/^\/bin\/true /   { base = $(NF-1) }
		/^isorun -- /      { iso = $(NF-1) }
		/^shell wrapper/   { sh = $(NF-1) }
		/^bwrap /          { bw = $(NF-1) }
		END {
			if (sh) printf "  isorun / shell wrapper: %.2fx (target <= 0.40)\n", iso / sh
			if (bw) printf "  isorun / bwrap:         %.2fx (target <= 0.75)\n", iso / bw
		}'
}

command -v bwrap >/dev/null || echo "bwrap: not measurable (not installed)"
echo "launch cost, $rounds rounds round-robin, median wall time; root on ${TMPDIR:-/tmp}:"
table "$scratch" "$(stat -f -c %T "$scratch")" | tee "$scratch.table"
ratios <"$scratch.table"
if [ -n "$shm" ]; then
	echo
	echo "the same with the root on tmpfs (/dev/shm), where directory operations are cheap:"
	table "$shm" tmpfs | tee "$scratch.table"
	ratios <"$scratch.table"
fi
rm -f "$scratch.table"

# What the holder scan costs here: it reads every fd of every process.
procs=$(find /proc -maxdepth 1 -name '[0-9]*' | wc -l)
fds=$(find /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
echo
echo "holder scan reads $procs processes and $fds descriptors on this machine (O(all fds))"
echo
"$out/rmbench" "$scratch" "${TEARDOWN_FILES:-100000}"
