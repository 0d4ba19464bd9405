#!/usr/bin/env bats
# The per-invocation tree and the environment that points into it.

load helpers

@test "HOME, TMPDIR and the XDG directories point into a fresh tree, set before the command starts" {
	run --separate-stderr iso --keep -- sh -c 'for v in HOME USERPROFILE TMPDIR TMP TEMP XDG_CACHE_HOME XDG_CONFIG_HOME XDG_DATA_HOME XDG_STATE_HOME XDG_RUNTIME_DIR ISORUN_NAMESPACE; do eval "echo $v=\$$v"; done'
	[ "$status" -eq 0 ]
	tree=$(the_tree)
	[[ "$tree" =~ ^"$U"/2[0-9]{7}T[0-9]{6}Z-[a-z2-7]{20}$ ]]
	[ "${lines[0]}" = "HOME=$tree/home" ]
	[ "${lines[1]}" = "USERPROFILE=$tree/home" ]
	[ "${lines[2]}" = "TMPDIR=$tree/tmp" ]
	[ "${lines[3]}" = "TMP=$tree/tmp" ]
	[ "${lines[4]}" = "TEMP=$tree/tmp" ]
	[ "${lines[5]}" = "XDG_CACHE_HOME=$tree/home/.cache" ]
	[ "${lines[6]}" = "XDG_CONFIG_HOME=$tree/home/.config" ]
	[ "${lines[7]}" = "XDG_DATA_HOME=$tree/home/.local/share" ]
	[ "${lines[8]}" = "XDG_STATE_HOME=$tree/home/.local/state" ]
	[ "${lines[9]}" = "XDG_RUNTIME_DIR=$tree/run" ]
	[ "${lines[10]}" = "ISORUN_NAMESPACE=$tree" ]
	force_remove "$tree"
}

@test "the tree holds only what must exist before the command: owner, home/, tmp/, run/; the XDG homes come when written" {
	run --separate-stderr iso --keep -- sh -c 'test -d "$XDG_RUNTIME_DIR" && test -d "$HOME" && test -d "$TMPDIR" && ! test -e "$XDG_CACHE_HOME" && ! test -e "$XDG_CONFIG_HOME" && ! test -e "$XDG_DATA_HOME" && ! test -e "$XDG_STATE_HOME" && mkdir -p "$XDG_STATE_HOME/app" && echo made'
	[ "$status" -eq 0 ]
	[ "$output" = made ]
	tree=$(the_tree)
	# the outcome and settings records are there because the tree was kept
	[ "$(ls -A "$tree" | tr '\n' ' ')" = "home outcome owner run settings tmp " ]
	[ "$(ls -A "$tree/home" | tr '\n' ' ')" = ".local " ]
	[ -d "$tree/home/.local/state/app" ]
	force_remove "$tree"
	# --env-dir directories are still made before the command starts
	run --separate-stderr iso --keep --env-dir XDG_CACHE_HOME=home/.cache -- sh -c 'test -d "$XDG_CACHE_HOME" && echo "$XDG_CACHE_HOME"'
	[ "$status" -eq 0 ]
	[ "$output" = "$(the_tree)/home/.cache" ]
	force_remove "$(the_tree)"
}

# The modes: as root the way down to tmp/ is 0711 (searchable, not listable), for an
# ordinary user 0700; tmp/ is a /tmp (1777) either way, the other dirs 0700.
expect_modes() {
	local tree=$1 up=700
	[ "$(id -u)" -ne 0 ] || up=711
	[ "$(stat -c %a "$U")" = "$up" ]
	[ "$(stat -c %a "$tree")" = "$up" ]
	[ "$(stat -c %a "$tree/tmp")" = 1777 ]
	for d in home run; do
		[ "$(stat -c %a "$tree/$d")" = 700 ]
	done
}

@test "tree modes: the way to tmp/ is searchable by root's other uids only, tmp/ is a /tmp, the rest private" {
	umask 077 # the caller's umask does not decide them
	run --separate-stderr iso --keep -- true
	[ "$status" -eq 0 ]
	expect_modes "$(the_tree)"
	force_remove "$(the_tree)"
}

@test "as root, a per-user directory left 0700 (an older isorun) is opened up to 0711" {
	if [ "$(id -u)" -ne 0 ]; then
		skip "applies to root only: an ordinary user's stays 0700"
	fi
	mkdir -m 0700 "$U"
	run iso -- true
	[ "$status" -eq 0 ]
	[ "$(stat -c %a "$U")" = 711 ]
}

# Run as root under isorun OPTS: a program copied into a 0755 dir of $TMPDIR, run as
# uid 65534; then that uid tries to list the per-user dir and the tree.
uid_drop_checks() {
	run --separate-stderr iso "$@" -- sh -c '
		# setpriv keeps its capabilities until its own execve: env runs without them
		drop() { setpriv --reuid=65534 --regid=65534 --clear-groups env "$@"; }
		mkdir -m 0755 "$TMPDIR/bin" && cp /bin/echo "$TMPDIR/bin/echo" || exit 9
		drop "$TMPDIR/bin/echo" ran-as-$(drop id -u)
		drop ls "$(dirname "$ISORUN_NAMESPACE")" >/dev/null 2>&1 && echo listed-user-dir
		drop ls "$ISORUN_NAMESPACE" >/dev/null 2>&1 && echo listed-tree
		drop ls "$ISORUN_NAMESPACE/home" >/dev/null 2>&1 && echo listed-home
		drop touch "$TMPDIR/by-nobody" && echo wrote-tmp
		true'
	echo "$output $stderr" >&2
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'ran-as-65534\nwrote-tmp')" ]
}

@test "as root, a command that drops to another uid runs a file from \$TMPDIR and lists nothing above it" {
	if [ "$(id -u)" -ne 0 ]; then
		skip "applies to root only: an ordinary user cannot drop to another uid"
	fi
	open_way_to_root
	uid_drop_checks
	assert_no_tree
}

@test "as root under --pidns and --private-tmp, \$TMPDIR is reachable after a uid drop as well" {
	if [ "$(id -u)" -ne 0 ]; then
		skip "applies to root only: an ordinary user cannot drop to another uid"
	fi
	require "PID namespaces" iso --pidns -- true
	open_way_to_root
	uid_drop_checks --pidns
	uid_drop_checks --pidns --private-tmp
	assert_no_tree
}

@test "control: with the tree dir 0700 (as before) the uid drop cannot reach \$TMPDIR" {
	if [ "$(id -u)" -ne 0 ]; then
		skip "applies to root only: an ordinary user cannot drop to another uid"
	fi
	open_way_to_root
	run --separate-stderr iso -- sh -c '
		chmod 0700 "$ISORUN_NAMESPACE"
		mkdir -m 0755 "$TMPDIR/bin" && cp /bin/echo "$TMPDIR/bin/echo" || exit 9
		setpriv --reuid=65534 --regid=65534 --clear-groups env "$TMPDIR/bin/echo" ran || echo refused'
	[ "$status" -eq 0 ]
	[ "$output" = refused ]
}

@test "writes to HOME and TMPDIR land in the tree, not in the caller's home" {
	before=$(ls -A "$HOME" | md5sum)
	run iso --keep -- sh -c 'echo h > "$HOME/.isorun-test-rc"; echo t > "$TMPDIR/scratch"; cd && pwd'
	[ "$status" -eq 0 ]
	tree=$(the_tree)
	[ "$(cat "$tree/home/.isorun-test-rc")" = h ]
	[ "$(cat "$tree/tmp/scratch")" = t ]
	[ "$(ls -A "$HOME" | md5sum)" = "$before" ]
	force_remove "$tree"
}

@test "the owner record beside the command's directories is the run's lock, held while it runs" {
	run --separate-stderr iso --keep -- sh -c 'if flock -n "$ISORUN_NAMESPACE/owner" true; then echo free; else echo held; fi; test -e "$ISORUN_NAMESPACE/lock" || echo no-lock-file'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = held ]
	[ "${lines[1]}" = no-lock-file ]
	tree=$(the_tree)
	python3 - "$tree/owner" "$(cat /proc/sys/kernel/random/boot_id)" "$(id -u)" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
assert o["boot_id"] == sys.argv[2], o
assert o["uid"] == int(sys.argv[3]), o
assert o["pid"] > 0 and o["start_time"] > 0 and o["pidns"] > 0, o
assert o["argv"][-3:] == ["sh", "-c", o["argv"][-1]], o
assert o["lock"] == "owner", o
PY
	# the lock is free once the owner is gone
	flock -n "$tree/owner" true
	force_remove "$tree"
}

@test "a nested isorun creates its tree inside the outer tree" {
	run --separate-stderr iso --keep -- "$ISORUN" --keep -- sh -c 'echo "$ISORUN_NAMESPACE"'
	[ "$status" -eq 0 ]
	outer=$(the_tree)
	[[ "${lines[0]}" == "$outer/tmp/isorun-$(id -u)/"* ]]
	force_remove "$outer"
}

@test "the per-user directory must be ours, private and real, or isorun refuses with 125" {
	mkdir -m 0777 "$U"
	run --separate-stderr iso -- true
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: refusing '$U': mode 0777 is group or world writable" ]]
	[ -z "$(ls -A "$U")" ]
	rmdir "$U"
	mkdir "$W/elsewhere"
	ln -s "$W/elsewhere" "$U"
	run --separate-stderr iso -- true
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: refusing '$U': not a real directory (a symlink?)" ]]
	[ -z "$(ls -A "$W/elsewhere")" ]
	rm "$U"
}

@test "a per-user directory owned by someone else is refused" {
	if [ "$(id -u)" -ne 0 ]; then
		skip "only root can make a directory owned by another user"
	fi
	mkdir -m 0700 "$U"
	chown 65534 "$U"
	run --separate-stderr iso -- true
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: refusing '$U': owned by uid 65534, not by uid 0" ]]
	rmdir "$U"
}

@test "--root, then ISORUN_ROOT, then TMPDIR choose where trees go" {
	mkdir "$W/a" "$W/b"
	run env ISORUN_ROOT="$W/a" TMPDIR="$W/b" "$ISORUN" --keep -- true
	[[ "$output" == *"kept at $W/a/isorun-$(id -u)/"* ]]
	run env -u ISORUN_ROOT TMPDIR="$W/b" "$ISORUN" --keep -- true
	[[ "$output" == *"kept at $W/b/isorun-$(id -u)/"* ]]
	run env ISORUN_ROOT="$W/a" "$ISORUN" --root "$R" --keep -- true
	[[ "$output" == *"kept at $U/"* ]]
	force_remove "$W/a"
	force_remove "$W/b"
	force_remove "$(the_tree)"
}

@test "--env-dir creates a directory in the tree and points the variable at it" {
	run --separate-stderr iso --keep --env-dir CARGO_HOME=cargo --env-dir GOPATH=go/path -- sh -c 'echo "$CARGO_HOME $GOPATH"; test -d "$CARGO_HOME" && test -d "$GOPATH"'
	[ "$status" -eq 0 ]
	tree=$(the_tree)
	[ "$output" = "$tree/cargo $tree/go/path" ]
	force_remove "$tree"
	run iso --env-dir CARGO_HOME=../escape -- true
	[ "$status" -eq 125 ]
	[[ "$output" == *"--env-dir: expected VAR=SUBDIR with a relative SUBDIR inside the tree, got 'CARGO_HOME=../escape'"* ]]
	assert_no_tree
}

@test "--clearenv keeps only --keep-env names and isorun's own variables; --setenv and --unsetenv apply last" {
	run env FOO=1 BAR=2 "$ISORUN" --root "$R" --clearenv --keep-env BAR --setenv BAZ=3 --unsetenv TMP -- /usr/bin/env
	[ "$status" -eq 0 ]
	[[ "$output" != *FOO=* ]]
	[[ "$output" == *BAR=2* ]]
	[[ "$output" == *BAZ=3* ]]
	[[ "$output" == *HOME=$U/* ]]
	[[ "$output" != *TMP=* ]]
	[[ "$output" == *TMPDIR=* ]]
	[[ "$output" != *PATH=* ]]
	run env FOO=1 "$ISORUN" --root "$R" --setenv HOME=/custom -- sh -c 'echo "$FOO $HOME"'
	[ "$output" = "1 /custom" ]
	assert_no_tree
}

@test "update checks that only nag are off unless the caller's environment or --setenv says otherwise" {
	local nag='NO_UPDATE_NOTIFIER=1 npm_config_update_notifier=false PIP_DISABLE_PIP_VERSION_CHECK=1'
	local show='env | grep -iE "^(NO_UPDATE_NOTIFIER|npm_config_update_notifier|PIP_DISABLE_PIP_VERSION_CHECK)=" | LC_ALL=C sort'
	run --separate-stderr env -i PATH="$PATH" "$ISORUN" --root "$R" -v --report "$BATS_TEST_TMPDIR/r.json" -- sh -c "$show"
	[ "$status" -eq 0 ]
	[ "$output" = "$(tr ' ' '\n' <<<"$nag" | LC_ALL=C sort)" ]
	# said under -v, listed in the report as isorun's other variables are
	[[ "$stderr" == *"isorun: update checks off (the empty HOME would run them every time): $nag"* ]]
	python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["environment"]; assert {"NO_UPDATE_NOTIFIER","npm_config_update_notifier","PIP_DISABLE_PIP_VERSION_CHECK"} <= set(e), e' "$BATS_TEST_TMPDIR/r.json"
	# the caller's own values win, npm's in any case; what is left is still set
	run --separate-stderr env -i PATH="$PATH" NO_UPDATE_NOTIFIER=0 NPM_CONFIG_UPDATE_NOTIFIER=true \
		"$ISORUN" --root "$R" -v -- sh -c "$show"
	[ "$output" = "$(printf '%s\n' NO_UPDATE_NOTIFIER=0 NPM_CONFIG_UPDATE_NOTIFIER=true PIP_DISABLE_PIP_VERSION_CHECK=1)" ]
	[[ "$stderr" == *"update checks off (the empty HOME would run them every time): PIP_DISABLE_PIP_VERSION_CHECK=1"$'\n'* ]]
	# and --setenv and --unsetenv after them; without -v nothing is said
	run --separate-stderr env -i PATH="$PATH" "$ISORUN" --root "$R" --setenv PIP_DISABLE_PIP_VERSION_CHECK=0 \
		--unsetenv NO_UPDATE_NOTIFIER -- sh -c "$show"
	[ "$output" = "$(printf '%s\n' PIP_DISABLE_PIP_VERSION_CHECK=0 npm_config_update_notifier=false)" ]
	[ -z "$stderr" ]
	assert_no_tree
}

@test "--chdir sets the working directory; a missing one is a setup error with nothing left" {
	run iso --chdir "$W" -- pwd
	[ "$output" = "$W" ]
	run --separate-stderr iso --chdir "$W/missing" -- pwd
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: --chdir '$W/missing': No such file or directory" ]
	assert_no_tree
}
