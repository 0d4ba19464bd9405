#!/bin/sh
# Install the Debian packages named on the command line that are not installed
# yet (make deps, make deps-build).  As root: apt-get.  Otherwise through sudo
# when there is one; without it, print the one line root has to run and fail.
set -eu
missing=
for p in "$@"; do
	case $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true) in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -z "$missing" ]; then
	echo "deps: all $# packages are installed"
	exit 0
fi
line="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -eq 0 ]; then
	sudo=
elif command -v sudo >/dev/null 2>&1; then
	sudo=sudo
else
	echo "deps: not installed:$missing" >&2
	echo "deps: no root and no sudo here; as root, run: apt-get update && $line" >&2
	exit 1
fi
echo "deps: installing$missing"
$sudo apt-get update -qq
# shellcheck disable=SC2086 # one word per package
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
