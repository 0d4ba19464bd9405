#!/usr/bin/env bash
# Launch cost of isorun against /bin/true, a shell mktemp/rm -rf wrapper and
# bubblewrap, measured round-robin in one run and printed as ratios (a noisy VM
# makes absolute numbers meaningless); then teardown rate against rm -rf.
#   bench/launch.sh [PATH_TO_ISORUN] [ROUNDS]
#   BENCH_BASE=PATH_TO_AN_OLDER_ISORUN adds that build beside each isorun line, so a
#   change is measured against the build before it in the same run.
# "pair" lines are the median of the per-round ratios (each round runs every
# command back to back, so the machine's weather divides out of each ratio).
# Targets (issue 17): isorun <= 0.90x bwrap --dev-bind on ext4, <= 0.75x on tmpfs,
# <= 0.40x the shell wrapper; --pidns <= 1.00x bwrap's user+pid line; 1 GiB
# through isorun to a pipe <= 1.10x the direct pipe.
set -eu
isorun=$(realpath "${1:-build/isorun}")
base=${BENCH_BASE:+$(realpath "$BENCH_BASE")}
rounds=${2:-300}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
mkdir -p "$out"
cc -O2 -o "$out/runner" "$top/bench/runner.c"
# the floors: what isorun must at least do, in one small program, timed beside it
# shellcheck disable=SC2046 # pkg-config prints several words on purpose
cc -O2 -D_GNU_SOURCE -I"$top" -o "$out/floor" "$top/bench/floor.c" "$top/build/libiso.a" \
	$(pkg-config --libs jansson)
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
wrapper='d=$(mktemp -d "$0/x.XXXXXX") && cd "$d" && mkdir home tmp run && HOME=$d/home TMPDIR=$d/tmp /bin/true; cd / && rm -rf "$d"'

# Commands are numbered as the runner takes them; a pair "A/B" names two of them.
add() { # NAME CMD...
	n=$((n + 1))
	if [ "$n" -gt 1 ]; then cmds+=(::); fi
	cmds+=("$@")
}

# Each table has a floor (bench/floor.c: the lean tree, the command as a child, the
# holder scan, the removal; nothing else) and isorun without its two guards that
# cost most on a launch (the policy's exec round trip, the run's cgroup): a target
# below the floor plus what the guards cost cannot be met while they stay.
table() { # ROOT LABEL TARGET_BWRAP
	local iso sh fl bare bw='' bs=''
	n=0 cmds=()
	add "/bin/true" /bin/true
	add "isorun -- /bin/true ($2)" "$isorun" --no-config --root "$1" -- /bin/true
	iso=$n
	add "shell wrapper ($2)" sh -c "$wrapper" "$1"
	sh=$n
	add "floor: tree, child, holder scan ($2)" "$out/floor" "$1" /bin/true
	fl=$n
	add "isorun --policy=off --cgroup=off ($2)" \
		"$isorun" --no-config --root "$1" --policy=off --cgroup=off -- /bin/true
	bare=$n
	if command -v bwrap >/dev/null && bwrap --dev-bind / / /bin/true 2>/dev/null; then
		add "bwrap --dev-bind / / /bin/true" bwrap --dev-bind / / /bin/true
		bw=$n
	fi
	if command -v unshare >/dev/null; then
		add "unshare /bin/true (exec floor)" unshare /bin/true
	fi
	if [ -n "$base" ]; then
		add "base: isorun -- /bin/true ($2)" "$base" --no-config --root "$1" -- /bin/true
		bs=$n
	fi
	RUNNER_PAIRS="$iso/$sh ${bw:+$iso/$bw} $fl/$sh ${bw:+$fl/$bw $bare/$bw} $iso/$fl $bare/$fl \
		${bs:+$iso/$bs}" "$out/runner" "$rounds" "${cmds[@]}"
	echo "  targets: isorun / shell wrapper <= 0.40, isorun / bwrap <= $3 (floor / ... is what no change reaches below)"
}

command -v bwrap >/dev/null || echo "bwrap: not measurable (not installed)"
echo "launch cost, $rounds rounds round-robin, median wall time; root on ${TMPDIR:-/tmp}:"
# findmnt names the filesystem as mounted; stat -f calls every ext filesystem "ext2/ext3"
fstype=$(findmnt -n -o FSTYPE --target "$scratch" 2>/dev/null || stat -f -c %T "$scratch")
table "$scratch" "$fstype" 0.90
if [ -n "$shm" ]; then
	echo
	echo "the same with the root on tmpfs (/dev/shm), where directory operations are cheap:"
	table "$shm" tmpfs 0.75
fi

# --pidns against bwrap's and unshare's user+pid namespaces, and the network line.
# Targets: <= 1.00x bwrap (issue 17), <= 1.05x the unshare pid line, and the
# network line <= 0.8x unshare+ip (libnl brings lo up in-process, no extra exec).
if unshare --user --map-root-user --pid --fork --mount-proc /bin/true 2>/dev/null; then
	echo
	echo "namespaces, $rounds rounds round-robin, root on tmpfs where available:"
	nsroot=${shm:-$scratch}
	n=0 cmds=() bw='' bs='' ipl=''
	add "/bin/true" /bin/true
	add "isorun --pidns -- /bin/true" "$isorun" --no-config --root "$nsroot" --pidns -- /bin/true
	add "unshare -U -r -p -f --mount-proc /bin/true" \
		unshare --user --map-root-user --pid --fork --mount-proc /bin/true
	add "floor: tree, user+pid namespace, init, child, holder scan" \
		"$out/floor" -p "$nsroot" /bin/true
	fl=$n
	if command -v bwrap >/dev/null &&
		bwrap --unshare-user --unshare-pid --dev-bind / / --proc /proc /bin/true 2>/dev/null; then
		add "bwrap --unshare-user --unshare-pid ..." \
			bwrap --unshare-user --unshare-pid --dev-bind / / --proc /proc /bin/true
		bw=$n
	fi
	add "isorun --pidns --net=isolated -- /bin/true" \
		"$isorun" --no-config --root "$nsroot" --pidns --net=isolated -- /bin/true
	net=$n
	if command -v ip >/dev/null; then
		add "unshare -U -r -n -p -f --mount-proc ip link set lo up" \
			unshare --user --map-root-user --net --pid --fork --mount-proc \
			sh -c 'ip link set lo up'
		ipl=$n
	fi
	if [ -n "$base" ]; then
		add "base: isorun --pidns -- /bin/true" "$base" --no-config --root "$nsroot" --pidns -- /bin/true
		bs=$n
	fi
	RUNNER_PAIRS="2/3 ${bw:+2/$bw $fl/$bw} 2/$fl ${ipl:+$net/$ipl} ${bs:+2/$bs}" \
		"$out/runner" "$rounds" "${cmds[@]}"
	echo "  targets: --pidns / unshare <= 1.05, --pidns / bwrap <= 1.00, --net=isolated / unshare+ip <= 0.80"
else
	echo "namespaces: not measurable (unshare --user --pid refused here)"
fi

# Relayed output: 1 GiB in 64 KiB writes through stdout into a pipe, against the
# same pipe without isorun.  Target (issue 17): <= 1.10x.
echo
echo "1 GiB through stdout to a pipe (dd bs=64K | cat), ${PIPE_ROUNDS:-15} rounds:"
dd='dd if=/dev/zero bs=64K count=16384 status=none'
n=0 cmds=() bs=''
add "dd | cat" sh -c "$dd | cat >/dev/null"
add "isorun -- dd | cat" sh -c "\"\$0\" --no-config --root \"\$1\" -- $dd | cat >/dev/null" \
	"$isorun" "${shm:-$scratch}"
# the floor: a third process that only moves the bytes, as isorun's relay does
add "floor: dd | relay | cat" sh -c "\"\$0\" -r $dd | cat >/dev/null" "$out/floor"
if [ -n "$base" ]; then
	add "base: isorun -- dd | cat" sh -c "\"\$0\" --no-config --root \"\$1\" -- $dd | cat >/dev/null" \
		"$base" "${shm:-$scratch}"
	bs=$n
fi
RUNNER_PAIRS="2/1 3/1 2/3 ${bs:+2/$bs}" "$out/runner" "${PIPE_ROUNDS:-15}" "${cmds[@]}"
echo "  target: isorun / direct <= 1.10 (floor / direct: a relaying process alone)"

# The policy's cost where it is paid: every execve is a round trip to the
# supervisor.  Target (issue 4): <= 1.10x against --policy=off.
echo
echo "exec-heavy: a shell loop running /bin/true 1,000 times, ${POLICY_ROUNDS:-15} rounds:"
# shellcheck disable=SC2016 # expanded by the loop's own sh
loop='i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i+1)); done'
# the pair line (per-round ratios, back to back) is the figure: the medians of
# the two columns drift apart by several percent on this VM between rounds
RUNNER_PAIRS="2/1" "$out/runner" "${POLICY_ROUNDS:-15}" \
	"isorun --policy=off" "$isorun" --root "${shm:-$scratch}" --policy=off -- sh -c "$loop" \
	:: "isorun --policy=default" "$isorun" --root "${shm:-$scratch}" --policy=default -- sh -c "$loop"
echo "  target: the pair line, default / off <= 1.10"

# Where isorun's own time goes, by its -v timing line: the median of each phase.
echo
echo "isorun's phases (-v), median of $rounds runs of isorun -- /bin/true, root on ${shm:-$scratch}:"
for _ in $(seq "$rounds"); do
	"$isorun" -v --no-config --root "${shm:-$scratch}" -- /bin/true 2>&1 >/dev/null
done | sed -n 's/^isorun: timing: //p' | tr ',' '\n' |
	awk '{ ms = $(NF-1); $NF = ""; $(NF-1) = ""; sub(/^ +/, ""); sub(/ +$/, ""); print $0 "\t" ms }' |
	sort -t "$(printf '\t')" -k1,1 -k2,2n |
	awk -F '\t' '{ v[$1, ++n[$1]] = $2 }
		END { for (k in n) printf "  %-12s %6.2f ms\n", k, v[k, int((n[k] + 1) / 2)] }' |
	sort

# The run's cgroup (issue 15): what it adds where one can be had, by per-pair
# ratios (A B / B A), against --cgroup=off, which is also every run without one.
cc -O2 -o "$out/pairs" "$top/bench/pairs.c"
echo
echo "the run's cgroup, $rounds pairs, root on ${shm:-$scratch}:"
if "$isorun" --no-config --root "${shm:-$scratch}" --report /dev/stdout -- /bin/true 2>/dev/null |
	grep -q '"cgroup": {'; then
	"$out/pairs" "$rounds" "isorun --cgroup=off -- /bin/true" \
		"$isorun" --no-config --root "${shm:-$scratch}" --cgroup=off -- /bin/true \
		:: "isorun -- /bin/true (a cgroup)" "$isorun" --no-config --root "${shm:-$scratch}" -- /bin/true
else
	echo "  not measurable (no cgroup can be made here: not root, not delegated)"
fi

# contain-signals (issue 27): a signal other than 0 from the command is a round trip
# to the supervisor without --pidns.  Per-pair ratios against --policy=off (no
# guard at all; its exec guard costs one notification here, not 1,000).
cc -O2 -o "$out/sigloop" "$top/bench/sigloop.c"
echo
echo "signals: 1,000 kill() calls in one process, ${SIGNAL_ROUNDS:-15} pairs, root on ${shm:-$scratch}:"
for m in probe self child; do
	"$out/pairs" "${SIGNAL_ROUNDS:-15}" "--policy=off, sigloop $m" \
		"$isorun" --no-config --root "${shm:-$scratch}" --policy=off -- "$out/sigloop" "$m" 1000 \
		:: "--policy=default, sigloop $m" \
		"$isorun" --no-config --root "${shm:-$scratch}" -- "$out/sigloop" "$m" 1000
done
echo "  probe: kill(self, 0), passes in the filter; self: kill(getpid(), SIGUSR1), answered"
echo "  CONTINUE unread; child: kill(child, SIGUSR1), checked on /proc and sent by the supervisor"

# What the holder scan costs here: it reads every fd of every process.
procs=$(find /proc -maxdepth 1 -name '[0-9]*' | wc -l)
fds=$(find /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
echo
echo "holder scan reads $procs processes and $fds descriptors on this machine (O(all fds))"
echo
"$out/rmbench" "$scratch" "${TEARDOWN_FILES:-100000}"

# A run's cost against the host's size (issue 25): as this user and, from root,
# as HOSTLOAD_USER too (an ordinary user who can read this checkout) when set.
echo
"$top/bench/hostload.sh" "$isorun" "${HOSTLOAD_ROUNDS:-40}"
if [ "$(id -u)" -eq 0 ] && [ -n "${HOSTLOAD_USER:-}" ]; then
	echo
	runuser -u "$HOSTLOAD_USER" -- env -C / TMPDIR=/tmp \
		"$top/bench/hostload.sh" "$isorun" "${HOSTLOAD_ROUNDS:-40}"
fi

# --cache go (issue 29): a second go test of a real module, hermetic against the
# build cache kept between runs.
echo
"$top/bench/gocache.sh" "$isorun" "${GO_ROUNDS:-3}"
