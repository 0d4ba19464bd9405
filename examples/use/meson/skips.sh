#!/bin/sh
# Cannot run here: meson's convention says so with 77.
echo 'skips: no network here'
exit 77
