#!/usr/bin/env bash
# A run's cost against the host's size (issue 25): N idle processes (32 open
# descriptors and 8 file mappings each, bench/idle.c) beside the runs, and
# `isorun -- /bin/true` paired with `bwrap --dev-bind / / /bin/true`, A B B A,
# the median of the per-pair ratios; the same for --pidns against bwrap's
# user+pid line; the same inside one outer isorun (nested); as an ordinary user,
# 200 --pidns invocations in a row at N = 2,000.  N = 0, 500 and 2,000
# (HOSTLOAD_NS).  Run it as each user whose
# line you want: as root, and as an ordinary user (runuser -u USER -- ...).
#   bench/hostload.sh [PATH_TO_ISORUN] [ROUNDS]
# Targets: isorun / bwrap <= 1.5 at N = 2,000 and <= 1.3 at N = 500 where the
# kernel offers a way (docs/decisions/0034-holders-without-reading-the-host.md).
set -eu
isorun=$(realpath "${1:-build/isorun}")
rounds=${2:-40}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/isorun-hostload.XXXXXX")
shm=
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	shm=$(mktemp -d /dev/shm/isorun-hostload.XXXXXX)
fi
idle_pid=
cleanup() {
	[ -n "$idle_pid" ] && kill "$idle_pid" 2>/dev/null
	wait 2>/dev/null || true
	# root's trees' directory there is a shared bind of itself (tree_shield_share())
	umount -l "$root/isorun-0" 2>/dev/null || true
	rm -rf "$out" ${shm:+"$shm"}
}
trap cleanup EXIT
cc -O2 -o "$out/idle" "$top/bench/idle.c"
cc -O2 -o "$out/pairs" "$top/bench/pairs.c"
root=${shm:-$out}

if ! command -v bwrap >/dev/null; then
	echo "hostload: not measurable (bwrap not installed)"
	exit 0
fi

# The idle helper prints "ready" once every child is in place; closing its
# stdin ends it, and its children with it (PR_SET_PDEATHSIG).
start_idle() { # N
	coproc IDLE { exec "$out/idle" "$1"; }
	# shellcheck disable=SC2153 # set by coproc
	idle_pid=$IDLE_PID
	local line=
	read -r line <&"${IDLE[0]}" || true
	if [ "$line" != ready ]; then
		echo "hostload: the idle helper did not start $1 processes"
		exit 1
	fi
}

stop_idle() {
	eval "exec ${IDLE[1]}>&-"
	wait "$idle_pid" 2>/dev/null || true
	idle_pid=
}

# As root: beside 10 live `isorun --pidns` runs of another uid (issue 35 item 3),
# started after a first run made root's trees' directory a shared mount: their
# mount namespaces receive the shields and cost the proof none of their processes.
beside_other_runs() {
	local uid=61234 others=()
	local oroot="$out/other-root"
	mkdir -p "$oroot" && chown "$uid:$uid" "$oroot" && chmod 755 "$out"
	# a copy the other uid can reach, and a FIFO each run's command says it started on
	cp "$isorun" "$out/isorun-other" && chmod 755 "$out/isorun-other"
	mkfifo -m 666 "$out/started"
	exec 7<>"$out/started"
	# a root of /tmp's kind (sticky, writable by all): the shared bind stays between runs
	chmod 1777 "$root"
	"$isorun" --no-config --root "$root" -- /bin/true
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		setpriv --reuid=$uid --regid=$uid --clear-groups -- \
			"$out/isorun-other" --no-config --root "$oroot" --pidns -- \
			sh -c "echo up >$out/started; exec sleep 3600" >/dev/null 2>&1 &
		others+=($!)
	done
	for _ in 1 2 3 4 5 6 7 8 9 10; do read -r -u 7 _; done
	"$out/pairs" "$rounds" "bwrap --dev-bind / / /bin/true" bwrap --dev-bind / / /bin/true \
		:: "isorun, beside 10 --pidns runs of uid $uid" \
		"$isorun" --no-config --root "$root" -- /bin/true | sed 's/^/  /'
	"$isorun" -v --no-config --root "$root" -- /bin/true 2>&1 >/dev/null |
		sed -n 's/^isorun: \(holders: .*\)/  -v beside them: \1/p'
	kill "${others[@]}" 2>/dev/null
	wait "${others[@]}" 2>/dev/null || true
	exec 7<&-
	rm -f "$out/started"
}

echo "a run's cost against the host's size, $(id -un), root on ${shm:+tmpfs }$root, $rounds pairs each:"
for n in ${HOSTLOAD_NS:-0 500 2000}; do
	start_idle "$n"
	procs=$(find /proc -maxdepth 1 -name '[0-9]*' | wc -l)
	echo "N = $n idle processes ($procs on the machine):"
	"$out/pairs" "$rounds" "bwrap --dev-bind / / /bin/true" bwrap --dev-bind / / /bin/true \
		:: "isorun -- /bin/true" "$isorun" --no-config --root "$root" -- /bin/true |
		sed 's/^/  /'
	if bwrap --unshare-user --unshare-pid --dev-bind / / --proc /proc /bin/true 2>/dev/null; then
		"$out/pairs" "$rounds" "bwrap --unshare-user --unshare-pid ..." \
			bwrap --unshare-user --unshare-pid --dev-bind / / --proc /proc /bin/true \
			:: "isorun --pidns -- /bin/true" \
			"$isorun" --no-config --root "$root" --pidns -- /bin/true | sed 's/^/  /'
	fi
	# nested: inside one outer isorun, as a suite that wraps each test runs it
	# (issue 35); the inner trees lie in the outer's tree, bwrap is paired inside too
	"$isorun" --no-config --root "$root" -- "$out/pairs" "$rounds" \
		"bwrap inside isorun" bwrap --dev-bind / / /bin/true \
		:: "isorun inside isorun" "$isorun" --no-config -- /bin/true 2>/dev/null |
		sed 's/^/  /'
	"$isorun" --no-config --root "$root" -- "$out/pairs" "$rounds" \
		"bwrap --unshare-user --unshare-pid ... inside isorun" \
		bwrap --unshare-user --unshare-pid --dev-bind / / --proc /proc /bin/true \
		:: "isorun --pidns inside isorun" "$isorun" --no-config --pidns -- /bin/true 2>/dev/null |
		sed 's/^/  /'
	if [ "$(id -u)" -eq 0 ] && [ "$n" -eq "${HOSTLOAD_LOOP_N:-2000}" ]; then
		beside_other_runs
	fi
	if [ "$(id -u)" -ne 0 ] && [ "$n" -eq "${HOSTLOAD_LOOP_N:-2000}" ]; then
		# one test invocation each (go test -exec, a per-file runner): 200 in a row
		"$out/pairs" 200 "bwrap --unshare-user --unshare-pid ..." \
			bwrap --unshare-user --unshare-pid --dev-bind / / --proc /proc /bin/true \
			:: "isorun --pidns, 200 invocations" \
			"$isorun" --no-config --root "$root" --pidns -- /bin/true | sed 's/^/  /'
	fi
	"$isorun" -v --no-config --root "$root" -- /bin/true 2>&1 >/dev/null |
		sed -n 's/^isorun: \(holders: .*\)/  -v: \1/p; s/^isorun: timing: /  -v timing: /p'
	stop_idle
done
echo "  targets: isorun / bwrap <= 1.3 at N = 500, <= 1.5 at N = 2,000 where the kernel can count"
