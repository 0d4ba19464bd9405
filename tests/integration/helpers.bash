# Shared set-up for the integration tests: the binary under test, its helper
# programs, a private --root per test, and the feature gate.
# shellcheck shell=bash

bats_require_minimum_version 1.5.0

# Our own CI may be GitHub Actions: its annotations would be extra stderr lines in
# every test; the tests of annotations set it themselves.
unset GITHUB_ACTIONS

ISORUN=${ISORUN:-$BATS_TEST_DIRNAME/../../build/isorun}
H=${HELPERS:-$BATS_TEST_DIRNAME/../../build/helpers}
# absolute, since tests change directories (--chdir)
ISORUN=$(cd "$(dirname "$ISORUN")" && pwd)/$(basename "$ISORUN")
H=$(cd "$H" && pwd)

setup() {
	setup_dirs
}

# The common setup(), for a file whose own setup() adds to it.
setup_dirs() {
	R="$BATS_TEST_TMPDIR/root"
	mkdir -p "$R"
	U="$R/isorun-$(id -u)"
	W="$BATS_TEST_TMPDIR/work"
	mkdir -p "$W"
}

# As root, a root on a filesystem where the tree can wear its shield (an overlay
# of itself, tree/shield.h): the suite's own tree under the enclosing isorun is
# one already, and an overlay's upper layer cannot be another overlay.  Removed
# by teardown_shield_root.
shield_root() {
	R=$(mktemp -d /dev/shm/isorun-test.XXXXXX)
	U="$R/isorun-$(id -u)"
	echo "$R" >"$BATS_TEST_TMPDIR/shield-root"
}

# setup() for a file whose trees wear shields as root (teardown_shield_root after).
setup_shielded() {
	W="$BATS_TEST_TMPDIR/work"
	mkdir -p "$W"
	if [ "$(id -u)" -eq 0 ]; then
		shield_root
	else
		R="$BATS_TEST_TMPDIR/root"
		U="$R/isorun-$(id -u)"
	fi
	mkdir -p "$R"
}

# Trees on a file system of this test's own, mounted after every other mount
# namespace on the host was made: none of them shows it, so the kernel's proof
# runs whatever else the machine runs (another file's --pidns run would make
# every process be read).
private_root() {
	R="$BATS_TEST_TMPDIR/proot"
	U="$R/isorun-$(id -u)"
	mkdir -p "$R"
	mount -t tmpfs -o mode=0755 isorun-test "$R"
	# private, as a host's / may be (this machine's is): a mount under the
	# suite's own shared ones would be shared, and its shields could not move
	mount --make-private "$R"
	echo "$R" >"$BATS_TEST_TMPDIR/private-root"
}

# Every mount at or below DIR taken off (lazily): root's trees' directory there
# is a shared bind of itself (tree_shield_share()), which stays for the boot.
umount_below() { # DIR
	local m
	[ "$(id -u)" -eq 0 ] || return 0
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo |
		sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
	return 0
}

teardown_shield_root() {
	local r
	if [ -f "$BATS_TEST_TMPDIR/private-root" ]; then
		umount -l "$(cat "$BATS_TEST_TMPDIR/private-root")"
	fi
	[ -f "$BATS_TEST_TMPDIR/shield-root" ] || return 0
	r=$(cat "$BATS_TEST_TMPDIR/shield-root")
	case $r in /dev/shm/isorun-test.*) ;; *) return 0 ;; esac
	for t in "$r"/isorun-*/*; do
		[ -d "$t" ] && umount -l "$t" 2>/dev/null
	done
	umount_below "$r"
	rm -rf "$r"
}

# Run isorun with this test's private root.
iso() {
	"$ISORUN" --no-config --root "$R" "$@"
}

# A feature this machine may lack: skip when the machine lacks it.  A skip the
# machine does not justify would hide a regression as a green "ok # skip", so the
# test fails instead, naming what the probe said, when the probe
#  - fails and then passes at once (a passing failure: load, a race, a broken
#    PATH; issue 39 item 10),
#  - passed earlier in this suite (the same probe, any file),
#  - asks for namespaces that `isorun selftest` says this machine has, or
#  - fails under CI=true, where every feature is required.
require() {
	local what=$1 out rc again
	shift
	out=$("$@" 2>&1 >/dev/null </dev/null) && { probe_passed "$@"; return 0; }
	rc=$?
	out=${out%%$'\n'*}
	if again=$("$@" 2>&1 >/dev/null </dev/null); then
		probe_passed "$@"
		echo "require: the probe of $what ($*) failed (exit $rc${out:+: $out}) and passed at once: a failure this machine does not justify" >&2
		return 1
	fi
	if [ -e "$(probes_dir)/$(probe_key "$@")" ]; then
		echo "require: the probe of $what ($*) failed (exit $rc${out:+: $out}), but passed earlier in this suite" >&2
		return 1
	fi
	if selftest_has "$what"; then
		echo "require: the probe of $what ($*) failed (exit $rc${out:+: $out}), but isorun selftest says this machine has them" >&2
		return 1
	fi
	if [ "${CI:-}" = true ]; then
		echo "required feature missing under CI: $what (exit $rc${out:+: $out})" >&2
		return 1
	fi
	skip "$what not available here${out:+ ($out)}"
}

# Where require records the probes that passed: one directory for the whole
# suite (tests/run-all.sh exports it), else this bats run's.
probes_dir() {
	printf '%s\n' "${TESTS_PROBES_DIR:-$BATS_RUN_TMPDIR/probes-passed}"
}

# A probe's name across tests and files: its words, a function's body rather
# than its name (files define their own userns_ok), the test's own directory
# left out.
probe_key() {
	{
		if declare -F "$1" >/dev/null; then
			declare -f "$1" | tail -n +2
			shift
		fi
		printf '%s\0' "${@//"$BATS_TEST_TMPDIR"/TMP}"
	} | cksum | tr ' ' -
}

probe_passed() {
	mkdir -p "$(probes_dir)" && : >"$(probes_dir)/$(probe_key "$@")"
}

# WHAT names namespaces that `isorun selftest` probes and finds: all of them say
# yes.  Asked once a suite.  False for anything else.
selftest_has() {
	local names=() st tmp
	case $1 in *namespace*) ;; *) return 1 ;; esac
	case $1 in *user*) names+=(userns) ;; esac
	case $1 in *PID*) names+=(pidns) ;; esac
	case $1 in *mount*) names+=(mountns) ;; esac
	case $1 in *network*) names+=(netns) ;; esac
	[ ${#names[@]} -gt 0 ] || return 1
	st="$(probes_dir)/selftest.json"
	if [ ! -s "$st" ]; then
		# named before the fork: a redirection's $BASHPID is the child's
		tmp=$st.$BASHPID
		mkdir -p "$(probes_dir)"
		"$ISORUN" selftest --json >"$tmp" 2>/dev/null </dev/null
		mv -f "$tmp" "$st"
	fi
	/usr/bin/python3 -c 'import json, sys
try:
    probes = {p["name"]: p["verdict"] for p in json.load(open(sys.argv[1]))["probes"]}
except (OSError, ValueError, KeyError, TypeError):
    sys.exit(1)
sys.exit(0 if all(probes.get(n) == "yes" for n in sys.argv[2:]) else 1)' "$st" "${names[@]}"
}

# Root's tests act as another user by number: no passwd entry is needed, so
# they need no account made by hand (setpriv keeps its capabilities until its
# own execve; what it runs has none).
OTHER_UID=61234
as_other() {
	setpriv --reuid="$OTHER_UID" --regid="$OTHER_UID" --clear-groups -- "$@"
}

# Each PID has exited (pidfds, no polling; one already gone counts), within
# 20 s: for what the kernel ends after isorun can no longer wait, as a SIGKILL
# of isorun itself.
pids_gone() {
	python3 -c 'import os, select, sys, time
end = time.monotonic() + 20
for pid in sys.argv[1:]:
    try:
        fd = os.pidfd_open(int(pid))
    except ProcessLookupError:
        continue
    if not select.select([fd], [], [], max(0, end - time.monotonic()))[0]:
        sys.exit("pid %s still runs after 20 s" % pid)' "$@"
}

# No tree may be left under this test's root.
assert_no_tree() {
	local left
	# the shield's shared empty lower layer stays, as the per-user directory does
	left=$(find "$U" -mindepth 1 -maxdepth 1 ! -name .empty 2>/dev/null || true)
	if [ -n "$left" ]; then
		echo "trees left behind: $left" >&2
		return 1
	fi
}

# A pid is gone, or a zombie its reaper has not reaped yet: state Z with no
# thread left but the leader (a leader-exited process is Z too, with live threads).
assert_dead() {
	local tasks
	if kill -0 "$1" 2>/dev/null; then
		tasks=$(ls "/proc/$1/task" 2>/dev/null | wc -l)
		if [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ] && [ "$tasks" -le 1 ]; then
			return 0
		fi
		echo "pid $1 is still alive: $(tr '\0' ' ' </proc/"$1"/cmdline 2>/dev/null)" >&2
		return 1
	fi
}

# Remove a tree that a test retained on purpose (isorun would not).
force_remove() {
	# only below this suite's own directories: an unset variable must never reach / or ~
	case $1 in
	"$BATS_RUN_TMPDIR"/?* | /dev/shm/isorun-test.*/?*) ;;
	*)
		echo "force_remove: refusing '$1': not below this suite's directories" >&2
		return 1
		;;
	esac
	# a tree a killed root run left wears its shield, or is a tmpfs of its own (nested)
	umount_below "$1"
	chmod -R u+rwx "$1" 2>/dev/null
	rm -rf "$1"
}

# The one tree under this test's root.
the_tree() {
	find "$U" -mindepth 1 -maxdepth 1 -type d ! -name '.*' | head -1
}

# bats shows a failed test's own output only: make it include the last `run`.
show_last_run() {
	if [ -n "${output:-}" ]; then
		printf 'last run (status %s):\n%s\n' "${status:-?}" "$output" >&2
	fi
	if [ -n "${stderr:-}" ]; then
		printf 'its stderr:\n%s\n' "$stderr" >&2
	fi
	return 0
}

# The shipped report schema (docs/report.schema.json) and our JUnit schema
# (tests/junit.xsd), checked by real parsers from Debian's archive (DEB_DEPS).
VALIDATE=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)/tests/validate.py

# Each FILE is a report that validates against the shipped schema.
assert_report_valid() {
	/usr/bin/python3 "$VALIDATE" report "$@"
}

# Each FILE is JUnit XML that validates against tests/junit.xsd and reads in junitparser.
assert_junit_valid() {
	/usr/bin/python3 "$VALIDATE" junit "$@"
}

# Every report and JUnit file a test left anywhere in its temporary directory
# (the work directory, the root, a --chdir elsewhere: told by their content,
# whatever their names; other JSON, such as selftest --json, is left alone),
# non-empty (a report that could not be written is truncated to nothing on
# purpose), must validate against docs/report.schema.json and tests/junit.xsd:
# teardown checks them, so no test can produce an invalid one unnoticed.  A
# test that writes an invalid one on purpose puts it in invalid_dir.
validate_outputs() {
	local deps="$BATS_RUN_TMPDIR/validate-deps"
	# whether the parsers are there is asked once a suite, not at each test's end
	# (their import costs a third of a CPU second)
	if [ ! -f "$deps" ]; then
		if /usr/bin/python3 -c 'import jsonschema, lxml, junitparser' 2>/dev/null; then
			echo yes >"$deps.$BASHPID"
		else
			echo no >"$deps.$BASHPID"
		fi
		mv -f "$deps.$BASHPID" "$deps"
	fi
	if [ "$(cat "$deps")" != yes ]; then
		[ "${CI:-}" != true ] && return 0
		echo "python3-jsonschema, python3-lxml or python3-junitparser missing under CI" >&2
		return 1
	fi
	# no file with a report's key or a testsuite in it: nothing to start python for
	grep -rqs --exclude-dir=invalid-on-purpose -e '"schema":' -e '"verdict":' -e '"result":' \
		-e '"output_tail":' -e '<testsuite' "$BATS_TEST_TMPDIR" || return 0
	/usr/bin/python3 "$VALIDATE" scan "$BATS_TEST_TMPDIR"
}

# A directory for outputs broken on purpose (the validator's own controls), which
# teardown's validation passes over.
invalid_dir() {
	mkdir -p "$BATS_TEST_TMPDIR/invalid-on-purpose"
	printf '%s\n' "$BATS_TEST_TMPDIR/invalid-on-purpose"
}

teardown() {
	show_last_run
	# a scratch directory a test had to make in the real home (home_scratch)
	if [ -f "$BATS_TEST_TMPDIR/home-scratch" ]; then
		chmod -R u+rwx "$(cat "$BATS_TEST_TMPDIR/home-scratch")" 2>/dev/null
		rm -rf "$(cat "$BATS_TEST_TMPDIR/home-scratch")"
	fi
	validate_outputs
}

# The caller's real home, from passwd (what --protect-home protects), or a
# failure that says so: an empty one would make every path "in the home".
real_home() {
	local h
	h=$(getent passwd "$(id -u)" | cut -d: -f6)
	case $h in
	/?*) printf '%s\n' "$h" ;;
	*)
		echo "real_home: no home for uid $(id -u) in passwd (getent passwd: '$h')" >&2
		return 1
		;;
	esac
}

# A fresh directory in the caller's real home (from passwd), removed by teardown
# even when the test fails.  Prints its path.
home_scratch() {
	local real d
	real=$(real_home) || return 1
	d=$(mktemp -d "$real/.isorun-bats.XXXXXX") || return 1
	printf '%s\n' "$d" >"$BATS_TEST_TMPDIR/home-scratch"
	printf '%s\n' "$d"
}

# The PATH without entries in the caller's real home: --protect-home=hide names
# each one it hides in a line before the start (a ~/.local/bin, ~/.cargo/bin).
# No home found is a failure, never an empty PATH: with none, every probe's
# command was "not found" and every test a green skip (issue 39 item 10).
path_outside_home() {
	local real e out=
	real=$(real_home) || return 1
	local IFS=:
	for e in $PATH; do
		case $e in "$real" | "$real"/*) ;; *) out=${out:+$out:}$e ;; esac
	done
	printf '%s\n' "$out"
}

# The test's root lies in bats' 0700 temporary directories: open the way down to it
# (search only, as /tmp's parents are), so only isorun's own modes decide.
open_way_to_root() {
	local d=$R
	while [ "$d" != / ]; do
		if [ -O "$d" ]; then chmod o+x "$d"; fi
		d=$(dirname "$d")
	done
}

# A process outside the run that accepts one connection on SOCK and never reads
# it: what is sent there stays in flight (tests/helpers/inflight.py).  Returns
# once it listens, its pid in PIDFILE.
fd_in_flight_listener() { # SOCK PIDFILE
	python3 "$TOP/tests/helpers/inflight.py" listen "$1" "$2" <&- 3>&- &
	"$H/waitfor" -t 60 "$2"
}

# links_resolve ROOT FILE...: every link of the Markdown FILEs (read through
# zcat when FILE ends in .gz) that is not a URL or an anchor names a file that
# is there: relative to FILE's directory, or ROOT/PATH for an absolute /PATH.
# Prints each one that does not and fails.
links_resolve() {
	local root=$1 f t path bad=0
	shift
	for f in "$@"; do
		while read -r t; do
			t=${t%%#*}
			case $t in
			/*) path=$root$t ;;
			*) path=$(dirname "$f")/$t ;;
			esac
			[ -e "$path" ] || {
				echo "${f#"$root"/}: link to $t: nothing there" >&2
				bad=1
			}
		done < <(if [[ $f == *.gz ]]; then zcat "$f"; else cat "$f"; fi |
			grep -oE '\]\([^)]+\)' | sed -E 's/^\]\((.*)\)$/\1/' |
			grep -vE '^(#|[a-z]+:)' || true)
	done
	return "$bad"
}
