#!/usr/bin/env bats
# --map-users trees can always be removed (issue 36 item 4): what the command gave
# to a subordinate id, at any depth and with any mode, goes back to the caller at
# the run's end, and a tree a run could not clean (its isorun SIGKILLed) is
# removed by isorun gc, which maps the caller's ranges again as the run did.
#
# The ordinary user's tests need newuidmap and a range, and a process without
# no_new_privs: make check runs bats under isorun's gate, which sets it, so there
# they skip; .ci/run gives the user a range and runs this file again outside the
# gate with ISORUN_TEST_RANGES=required, where a skip fails.
load helpers

userns_ok() {
	unshare -Urpf --mount-proc --propagation slave true
}

no_new_privs() {
	[ "$(awk '/^NoNewPrivs:/ {print $2}' /proc/self/status)" = 1 ]
}

range_start() {
	grep -E "^($(id -un)|$(id -u)):" "$1" | head -1 | cut -d: -f2
}

# A skip that ISORUN_TEST_RANGES=required (or CI=true, for what no gate explains) turns into a failure.
missing() {
	if [ "${ISORUN_TEST_RANGES:-}" = required ] || { [ "${CI:-}" = true ] && [ "$2" = ci ]; }; then
		echo "required for --map-users' ranges: $1" >&2
		return 1
	fi
	skip "$1"
}

ranged() {
	[ "$(id -u)" -ne 0 ] || skip "an ordinary user's ranges (root's: the tests below)"
	require "user and PID namespaces" userns_ok
	command -v newuidmap >/dev/null && command -v newgidmap >/dev/null ||
		missing "newuidmap and newgidmap (make deps installs uidmap)" ci
	if no_new_privs; then
		missing "no_new_privs is set (bats under isorun's gate): newuidmap cannot map a range; .ci/run runs this file outside the gate" gate
	fi
	[ -n "$(range_start /etc/subuid)" ] && [ -n "$(range_start /etc/subgid)" ] ||
		missing "no range for $(id -un) in /etc/subuid and /etc/subgid (.ci/run adds one)" ci
}

# What the command leaves: below $HOME, 140 levels of d, then x, a directory of
# inside id 5 (--map-root: the range's fifth id on the host) with a file in it,
# mode 000.  A shell fragment: the tests add to it.
deep_000='d=$HOME; i=0; while [ $i -lt 140 ]; do d=$d/d; i=$((i + 1)); done
	mkdir -p $d/x && touch $d/x/f && chown -R 5:5 $d/x && chmod 000 $d/x'
caps=(--pidns --map-root --map-users=require --cap-keep chown,fowner)

deep_path() {
	local p=$1 i
	for ((i = 0; i < 140; i++)); do p=$p/d; done
	printf '%s/x\n' "$p"
}

teardown() {
	show_last_run
	touch "$W/never" 2>/dev/null || true
	if [ -f "$W/iso.pid" ]; then
		kill -KILL "$(cat "$W/iso.pid")" 2>/dev/null || true
	fi
	# a tree the code under test failed to remove: as the ranges' root, so that
	# the gate around the suite can remove its own
	if [ -d "$R" ] && [ "$(id -u)" -ne 0 ] && ! rm -rf "$R" 2>/dev/null; then
		unshare --map-auto --map-root-user rm -rf "$R" 2>/dev/null || true
	fi
	validate_outputs
}

# A run (isorun's OPTIONS) whose command runs SETUP, then is killed with SIGKILL;
# returns once its namespace is gone with all in it (fd 9 on a FIFO: its EOF).
killed_run() { # SETUP OPTION...
	local setup=$1
	shift
	mkfifo "$W/gone"
	"$ISORUN" --no-config --root "$R" "$@" -- sh -c "$setup &&
		exec 9>$W/gone && touch $W/ready && exec $H/waitfor -t 600 $W/never" \
		3>&- 8>&- >"$W/run.out" 2>&1 &
	echo $! >"$W/iso.pid"
	exec 8<"$W/gone"
	"$H/waitfor" "$W/ready"
	kill -KILL "$(cat "$W/iso.pid")"
	wait "$(cat "$W/iso.pid")" || true
	cat <&8
	exec 8<&-
}

# killed_run giving $HOME/d, 140 levels down and mode 000, to id 5.
killed_deep_run() { # OPTION...
	killed_run "$deep_000
		chown 5:5 \$HOME/d && chmod 000 \$HOME/d" "$@"
}

@test "--map-users: a mode-000 directory of a subordinate id 140 levels down goes back to the caller; the run removes its tree" {
	ranged
	run --separate-stderr iso "${caps[@]}" -- sh -c "$deep_000"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	assert_no_tree
}

@test "--map-users: a deep tree kept by --keep is the caller's at every depth, and gc --kept removes it" {
	ranged
	run --separate-stderr iso --keep "${caps[@]}" -- sh -c "$deep_000"
	[ "$status" -eq 0 ]
	x=$(deep_path "$(the_tree)/home")
	[ "$(stat -c '%u:%g %a' "$x")" = "$(id -u):$(id -g) 0" ]
	run --separate-stderr "$ISORUN" gc --kept --root "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == "removed "* ]]
	assert_no_tree
}

@test "--map-users: isorun SIGKILLed after its command gave a deep mode-000 directory to a subordinate id: gc maps the range again and removes the tree" {
	ranged
	local su
	su=$(range_start /etc/subuid)
	killed_deep_run "${caps[@]}"
	tree=$(the_tree)
	# --pidns: the killed run's tree is still below its gate (mode 0100), as .t
	[ "$(stat -c %a "$tree")" = 100 ]
	local real=$tree/.t
	# what root sees: the range's ids on the host, the caller's own where it made them
	[ "$(stat -c '%u %a' "$real/home/d")" = "$((su + 4)) 0" ]
	[ "$(stat -c %u "$real/home")" = "$(id -u)" ]
	# the caller alone can neither enter nor remove it
	run rm -rf "$real/home/d"
	[ "$status" -ne 0 ]
	[ -d "$real/home/d" ]
	run --separate-stderr "$ISORUN" gc --root "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == "removed $tree: "* ]]
	[ -z "$stderr" ]
	assert_no_tree
	# a second gc finds nothing
	run --separate-stderr "$ISORUN" gc --root "$R"
	[ "$status" -eq 0 ]
	[ -z "$output$stderr" ]
}

@test "--map-users: a run cancelled past its grace (init killed before it gave anything back) still removes its tree, as the ranges' root" {
	ranged
	"$ISORUN" --no-config --root "$R" --report "$W/r.json" --grace 1s "${caps[@]}" -- sh -c "
		mkdir -p \$HOME/q/r && chown -R 5:5 \$HOME/q && chmod 000 \$HOME/q && trap '' TERM &&
		touch $W/ready && exec $H/waitfor -t 600 $W/never" 3>&- >"$W/run.out" 2>&1 &
	echo $! >"$W/iso.pid"
	"$H/waitfor" "$W/ready"
	kill -TERM "$(cat "$W/iso.pid")"
	local st=0
	wait "$(cat "$W/iso.pid")" || st=$?
	[ "$st" -eq 143 ]
	[ "$(jq -r .tree.state "$W/r.json")" = removed ]
	[[ "$(cat "$W/run.out")" != *"retained"* ]]
	assert_no_tree
}

@test "--map-users: neighbours, 140 levels down: a symlink loop, links out of the tree, a file of a subordinate id with no write bit in a directory without one" {
	ranged
	local s
	echo mine >"$W/outside"
	run --separate-stderr iso --keep "${caps[@]}" -- sh -c "$deep_000
		s=\$d/s && mkdir -p \$s/t && ln -s a \$s/b && ln -s b \$s/a &&
		ln -s $W/outside \$s/out && ln -s / \$s/t/root &&
		echo x >\$s/t/f && chmod 000 \$s/t/f && chown -hR 7:7 \$s && chmod 555 \$s/t \$s"
	[ "$status" -eq 0 ]
	s=$(dirname "$(deep_path "$(the_tree)/home")")/s
	[ "$(stat -c '%u %a' "$s/t/f")" = "$(id -u) 0" ]
	[ "$(stat -c '%u %a' "$s/t")" = "$(id -u) 555" ]
	[ "$(stat -c %u "$s/a")" = "$(id -u)" ]
	# the links were not followed: their targets keep their owners
	[ "$(stat -c %u "$W/outside")" = "$(id -u)" ]
	[ "$(stat -c %u /)" = 0 ]
	run --separate-stderr "$ISORUN" gc --kept --root "$R"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	assert_no_tree
	[ "$(cat "$W/outside")" = mine ]
}

@test "--map-users: gc without a range to map says why in its one line and keeps the tree" {
	ranged
	killed_run "mkdir \$HOME/q && touch \$HOME/q/f && chown -R 5:5 \$HOME/q && chmod 000 \$HOME/q" \
		"${caps[@]}"
	tree=$(the_tree)
	ISORUN_TEST_SUBUID=/dev/null run --separate-stderr "$ISORUN" gc --root "$R"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "isorun: gc: cannot remove $tree: "*"; as the root of its id ranges: the id ranges cannot be mapped again: no range for $(id -un) (uid $(id -u)) in /dev/null" ]]
	[ -d "$tree" ]
	run --separate-stderr "$ISORUN" gc --root "$R"
	[ "$status" -eq 0 ]
	assert_no_tree
}

@test "root: the same trees need no range: the run and gc remove them" {
	[ "$(id -u)" -eq 0 ] || skip "as root"
	run --separate-stderr iso --pidns -- sh -c "$deep_000"
	[ "$status" -eq 0 ]
	assert_no_tree
	killed_deep_run --pidns
	tree=$(the_tree)
	[ "$(stat -c '%u %a' "$(deep_path "$tree/home")")" = "5 0" ]
	run --separate-stderr "$ISORUN" gc --root "$R"
	[ "$status" -eq 0 ]
	assert_no_tree
}
