#!/bin/sh
# A test that saves a setting where the tool it tests would: in the home named by
# the passwd entry (as ssh, and anything else using getpwuid(3), finds it), not
# in $HOME — so a private HOME alone does not catch it.  Run it under
# `isorun --protect-home=ro` only: bare, it writes into your home.
set -e
home=$(getent passwd "$(id -u)" | cut -d: -f6)
echo "colour = never" >"$home/.isorun-guard-home-demo"
echo "ok 1 - settings saved"
