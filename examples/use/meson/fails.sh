#!/bin/sh
# A test that fails on its own.
echo 'fails: 2 + 2 != 5'
exit 1
