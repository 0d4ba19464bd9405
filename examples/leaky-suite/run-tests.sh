#!/usr/bin/env bash
# A tiny test suite with the three habits isorun exists for.  Every test passes.
set -eu

pass() { echo "ok - $1"; }

# 1. starts a "server" for the tests and forgets to stop it (a daemon: setsid,
#    stdio closed, so nothing else notices it outlived the suite)
mkdir -p "$HOME/.cache/leaky-suite"
setsid sleep 3600 </dev/null >/dev/null 2>&1 &
server=$!
echo "$server" >"$HOME/.cache/leaky-suite/server.pid"
# the tests wait until their server is up, as tests do (this one is up once it
# runs as `sleep`); a script that ended first would leave it to start as an
# orphan, which isorun can then not tie to the suite
name=
until [ "$name" = sleep ]; do { read -r name <"/proc/$server/comm"; } 2>/dev/null; done
pass "talks to the fake server"

# 2. writes its cache into $HOME
echo "cached" >"$HOME/.cache/leaky-suite/state"
pass "caches results in \$HOME"

# 3. leaves a log in the checkout (it inherited the working directory)
echo "debug output" >leaky-suite-debug.log
pass "writes a debug log"

echo "3 passed"
