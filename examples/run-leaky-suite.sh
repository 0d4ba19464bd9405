#!/usr/bin/env bash
# Runs the shipped leaky suite twice: bare (what CI sees without isorun), then
# under isorun, whose findings turn the green run red.
#   examples/run-leaky-suite.sh [PATH_TO_ISORUN]
set -u
isorun=$(realpath "${1:-build/isorun}")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/leaky-suite.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -r "$here/leaky-suite/." "$work/"
cd "$work" || exit 1

echo "== without isorun, everything passes; the daemon runs on, the log stays =="
echo "\$ ./run-tests.sh"
HOME=$work/fake-home ./run-tests.sh
# the bare run's daemon is still there; stop it by the pid it recorded
daemon=$(cat "$work/fake-home/.cache/leaky-suite/server.pid" 2>/dev/null)
echo "(still running after the suite: $(ps -o pid=,args= -p "$daemon" 2>/dev/null); stopping it)"
kill "$daemon" 2>/dev/null
rm -rf "$work/fake-home" leaky-suite-debug.log
echo
echo "== under isorun =="
echo "\$ isorun --watch . -- ./run-tests.sh"
"$isorun" --watch . -- ./run-tests.sh
rc=$?
echo
if [ "$rc" -eq 122 ]; then
	echo "isorun exited 122: the suite passed, but it leaked a daemon (named and killed above),"
	echo "its \$HOME writes went to a private tree that is now removed, and the log it left"
	echo "in the checkout is reported."
	exit 0
fi
echo "unexpected: isorun exited $rc (expected 122)"
exit 1
