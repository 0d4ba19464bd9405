#!/usr/bin/env bats
# `isorun shell --tree PATH|ID`: re-entering a kept tree with the settings of the
# run that made it, which are input (the command could rewrite them) and never
# widen the command line; bad input is one line and 125, the tree left as it was.

load helpers

kept_tree() { # extra options of the run that keeps it
	run --separate-stderr iso --keep "$@" -- sh -c 'echo made >"$HOME/file"'
	[ "$status" -eq 0 ]
	tree=$(the_tree)
	[ -f "$tree/settings" ]
}

refused() { # expected message, then the arguments of isorun shell
	local want=$1
	shift
	run --separate-stderr "$ISORUN" shell --root "$R" "$@" -- true
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: $want" ]
	[ "${stderr_lines[1]}" = "isorun: FAILED (exit 125): cannot re-enter the tree" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
}

@test "shell --tree ID and --tree PATH: the same HOME, TMPDIR and XDG, the run's settings, its files; processes are said to be gone; kept again" {
	kept_tree --private-tmp --setenv FOO=bar --setenv API_TOKEN=s3cret
	! grep -q s3cret "$tree/settings"
	for which in "${tree##*/}" "$tree"; do
		run --separate-stderr "$ISORUN" shell --root "$R" --tree "$which" -- sh -c \
			'cat "$HOME/file"; echo "$HOME $TMPDIR $XDG_CONFIG_HOME $XDG_RUNTIME_DIR FOO=$FOO TOKEN=${API_TOKEN-unset}"'
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = made ]
		[ "${lines[1]}" = "$tree/home $tree/tmp $tree/home/.config $tree/run FOO=bar TOKEN=unset" ]
		[ "${stderr_lines[0]}" = "isorun: shell in $tree (private-tmp, policy=default); the tree is kept; \$ISORUN_SHELL is set" ]
		[ "${stderr_lines[1]}" = "isorun: re-entered a kept tree: its files and the settings of the run that made it are back; its processes are not (they ended with that run)" ]
		[[ "${stderr_lines[2]}" == "isorun: tree kept at $tree; "* ]]
	done
	# still the one tree, kept, its owner this last isorun shell
	[ "$(find "$U" -mindepth 1 -maxdepth 1 ! -name '.*' | wc -l)" -eq 1 ]
	run "$ISORUN" ls --root "$R"
	[[ "${lines[1]}" == "$tree "*" kept "*"isorun shell" ]]
	force_remove "$tree"
}

@test "shell --tree on a tree kept on failure: ls keeps its command and why, and counts the re-entries" {
	run --separate-stderr iso --keep=on-failure -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	tree=$(the_tree)
	why='--keep=on-failure: the run failed (exit 3: command exited 3)'
	ls_says() { # the tree's argv and reason, as isorun ls --json has them
		"$ISORUN" ls --root "$R" --json | python3 -c '
import json, sys
t = [t for t in json.load(sys.stdin) if t["path"] == sys.argv[1]][0]
print(json.dumps(t["argv"])); print(t["state"], t["reason"])' "$tree"
	}
	run ls_says
	[ "${lines[0]}" = '["sh", "-c", "exit 3"]' ]
	[ "${lines[1]}" = "kept $why" ]
	for n in once "2 times"; do
		run --separate-stderr "$ISORUN" shell --root "$R" --tree "${tree##*/}" -- true
		[ "$status" -eq 0 ]
		run ls_says
		[ "${lines[0]}" = '["sh", "-c", "exit 3"]' ]
		[ "${lines[1]}" = "kept $why; re-entered $n, last by isorun shell" ]
	done
	# the table too: the command that made it, not the shell's
	run "$ISORUN" ls --root "$R"
	[[ "${lines[1]}" == "$tree "*" sh -c exit 3 "*" kept "*"$why; re-entered 2 times, last by isorun shell" ]]
	force_remove "$tree"
}

@test "shell --tree: the command line wins over the tree's settings; a record that would widen it is refused at its line" {
	require "user and PID namespaces" unshare -Urpf --mount-proc --propagation slave true
	kept_tree
	home=$(real_home)
	# the command rewrote its record: no protection, the home writable
	printf '%s\n' 'protect-home = off' >>"$tree/settings"
	run --separate-stderr "$ISORUN" shell --root "$R" --tree "$tree" --protect-home=ro -- \
		sh -c "touch '$home/.isorun-reenter-probe'"
	[ "$status" -ne 0 ]
	[ ! -e "$home/.isorun-reenter-probe" ]
	[[ "$stderr" == *"shell in $tree (protect-home=ro, "* ]]
	printf '%s\n' "writable = $home" >>"$tree/settings"
	n=$(wc -l <"$tree/settings")
	run --separate-stderr "$ISORUN" shell --root "$R" --tree "$tree" --protect-home=ro -- true
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: $tree/settings:$n: writable = $home: "* ]]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 125): cannot re-enter the tree" ]
	[ -d "$tree/home" ] && [ -f "$tree/outcome" ]
	force_remove "$tree"
}

@test "shell --tree: bad input is one line and 125, the tree as it was: no such id, a path outside isorun-UID, another uid's, a file, a directory without records, a live run's, a plain run's --tree" {
	refused "--tree nosuch: no such tree (isorun ls lists the kept ones)" --tree nosuch
	refused "--tree $W: not a tree of yours (a tree is ROOT/isorun-UID/ID; isorun ls lists them)" --tree "$W"
	mkdir -p "$R/isorun-4242/20261206T000000Z-x"
	refused "--tree $R/isorun-4242/20261206T000000Z-x: not a tree of yours (a tree is ROOT/isorun-UID/ID; isorun ls lists them)" \
		--tree "$R/isorun-4242/20261206T000000Z-x"
	kept_tree
	touch "$U/afile"
	refused "--tree afile: not a tree (not a directory)" --tree afile
	mkdir "$U/adir"
	refused "--tree adir: not a tree isorun can re-enter: owner record: missing" --tree adir
	refused "--tree .empty: not a tree (a tree is ROOT/isorun-UID/ID; isorun ls lists them)" --tree .empty
	run --separate-stderr iso --tree "$tree" -- true
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: --tree: only isorun shell re-enters a tree: isorun shell --tree $tree" ]
	rm -rf "$U/afile" "$U/adir"
	# a live run's tree: its lock is held
	iso --keep -- sh -c "exec $H/waitfor -t 600 -r $W/ready $W/never" 3>&- &
	"$H/waitfor" "$W/ready"
	live=$(find "$U" -mindepth 1 -maxdepth 1 -type d ! -name '.*' ! -path "$tree")
	run --separate-stderr "$ISORUN" shell --root "$R" --tree "$live" -- true
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: --tree $live: its run is still alive (pid "*" holds the tree); re-enter it once that run has ended" ]]
	touch "$W/never"
	wait
	# nothing of the kept tree changed by the refusals
	grep -q '"state":"kept"' "$tree/outcome"
	[ "$(cat "$tree/home/file")" = made ]
	force_remove "$tree"
	force_remove "$live"
}

@test "shell --tree: a stale cgroup record (its cgroup gone) is dropped; --no-config re-enters with the command line alone" {
	kept_tree --setenv FOO=bar
	echo "/sys/fs/cgroup/isorun-${tree##*/}-gone" >"$tree/cgroup"
	run --separate-stderr "$ISORUN" shell --root "$R" --no-config --tree "${tree##*/}" -- sh -c 'echo "FOO=${FOO-unset}"'
	[ "$status" -eq 0 ]
	[ "$output" = "FOO=unset" ]
	[ "$(cat "$tree/cgroup" 2>/dev/null)" != "/sys/fs/cgroup/isorun-${tree##*/}-gone" ]
	force_remove "$tree"
}

@test "shell --tree of a tree made with --tmpfs or --ro-bind: the mounts are not in its record (the command line's alone), and re-entry works" {
	require "user and PID namespaces" unshare -Urpf --mount-proc --propagation slave true
	mkdir "$W/src"
	kept_tree --tmpfs /mnt --ro-bind "$W/src:/opt"
	! grep -qE '^(tmpfs|ro-bind|bind) =' "$tree/settings"
	run --separate-stderr "$ISORUN" shell --root "$R" --tree "$tree" --tmpfs /mnt -- \
		sh -c 'cat "$HOME/file" && touch /mnt/x'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = made ]
	force_remove "$tree"
}
