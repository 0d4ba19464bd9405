#!/usr/bin/env bats
# --watch DIR: entries that appeared in the checkout during the run.

load helpers

@test "a file written into a watched directory is reported as a warning by default" {
	mkdir -p "$W/checkout/src" "$W/checkout/.git"
	touch "$W/checkout/src/old.c"
	run --separate-stderr iso --watch "$W/checkout" -- sh -c "touch $W/checkout/src/new.log $W/checkout/.git/index.lock; mkdir -p $W/checkout/build/deep; touch $W/checkout/build/deep/x"
	[ "$status" -eq 0 ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[[ "$stderr" == *"isorun: residue (warning): 'build/' appeared in $W/checkout"* ]]
	[[ "$stderr" == *"isorun: residue (warning): 'src/new.log' appeared in $W/checkout"* ]]
}

@test "--residue=fail makes it a finding; a run that leaves nothing is quiet" {
	mkdir "$W/checkout"
	run --separate-stderr iso --watch "$W/checkout" --residue=fail -- touch "$W/checkout/junk"
	[ "$status" -eq 122 ]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 122): 1 new entry in watched directories" ]
	rm "$W/checkout/junk"
	run --separate-stderr iso --watch "$W/checkout" --residue=fail -- true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "isorun's own tree under a watched directory (--root inside the checkout) is not residue" {
	mkdir -p "$W/checkout/roots"
	# the root's isorun-UID directory and the tree both appear during the run
	run --separate-stderr "$ISORUN" --no-config --root "$W/checkout/roots" --keep \
		--watch "$W/checkout" --residue=fail -- true
	[ "$status" -eq 0 ]
	[[ "$stderr" != *residue* ]]
	# control: something the command leaves beside the tree still counts
	run --separate-stderr "$ISORUN" --no-config --root "$W/checkout/roots" \
		--watch "$W/checkout" --residue=fail -- touch "$W/checkout/roots/stray"
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"residue: 'roots/stray' appeared in $W/checkout"* ]]
	rm -rf "$W/checkout/roots"
}
