#!/usr/bin/env bash
# A second `go test` of a real module (bench/gomod: no dependencies, nothing to
# download; GOPROXY=off keeps it off the network) under isorun, hermetic (a
# fresh GOCACHE in each tree) against --cache go (the build cache kept in
# $XDG_CACHE_HOME/isorun/go, here a scratch directory, warmed by one run first).
# -count=1: the tests run every time, so the ratio is the build cache's alone.
#   bench/gocache.sh [PATH_TO_ISORUN] [PAIRS]
set -eu
isorun=$(realpath "${1:-build/isorun}")
rounds=${2:-3}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
mkdir -p "$out"
if ! command -v go >/dev/null; then
	echo "go test with --cache go: not measurable (no go here)"
	exit 0
fi
[ -x "$out/pairs" ] || cc -O2 -o "$out/pairs" "$top/bench/pairs.c"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/isorun-gobench.XXXXXX")
trap 'chmod -R u+w "$scratch"; rm -rf "$scratch"' EXIT
export XDG_CACHE_HOME=$scratch/xdg GOPROXY=off GOFLAGS=-mod=mod
mkdir "$scratch/root"
cd "$top/bench/gomod"
iso=("$isorun" --no-config --root "$scratch/root")
"${iso[@]}" --cache go -- go test -count=1 ./... >/dev/null
echo "go test -count=1 of bench/gomod, $rounds pairs (the second run and later):"
"$out/pairs" "$rounds" "isorun -- go test (hermetic)" "${iso[@]}" -- go test -count=1 ./... \
	:: "isorun --cache go -- go test" "${iso[@]}" --cache go -- go test -count=1 ./...
