#!/usr/bin/env bats
# --cache NAME and `cache =`: the tools' cache variables point at
# $XDG_CACHE_HOME/isorun/NAME, outside the tree, made private and kept between
# runs; the default stays hermetic; gc never removes a cache; a project file
# cannot make one in a home the command line protects.

load helpers

userns_ok() {
	unshare -Urpf --mount-proc --propagation slave true
}

setup() {
	R="$BATS_TEST_TMPDIR/root"
	mkdir -p "$R"
	U="$R/isorun-$(id -u)"
	W="$BATS_TEST_TMPDIR/work"
	mkdir -p "$W"
	# the caller's cache home: never the real ~/.cache of whoever runs the tests
	export XDG_CACHE_HOME="$BATS_TEST_TMPDIR/xdg"
	C="$XDG_CACHE_HOME/isorun"
}

# The mode of a path, as stat prints it (700).
mode() {
	stat -c %a "$1"
}

@test "--cache go: GOCACHE and GOMODCACHE point at the kept directory, made 0700 and ours" {
	run --separate-stderr iso --cache go -- sh -c 'echo "$GOCACHE"; echo "$GOMODCACHE"'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$C/go/build" ]
	[ "${lines[1]}" = "$C/go/mod" ]
	for d in "$C" "$C/go" "$C/go/build" "$C/go/mod"; do
		[ -d "$d" ] && [ ! -L "$d" ]
		[ "$(mode "$d")" = 700 ]
		[ -O "$d" ]
	done
	assert_no_tree
}

@test "each name sets its variables; a comma list and a repeated --cache add, each once" {
	run --separate-stderr iso --cache npm,pip --cache xdg,npm -- \
		sh -c 'echo "$npm_config_cache|$PIP_CACHE_DIR|$XDG_CACHE_HOME|${GOCACHE:-unset}"'
	[ "$status" -eq 0 ]
	[ "$output" = "$C/npm|$C/pip|$C/xdg|unset" ]
	[ "$(ls "$C")" = "$(printf 'npm\npip\nxdg')" ]
}

@test "--cache cargo: CARGO_HOME stays in the tree, its registry and git are links to the cache" {
	run --separate-stderr iso --cache cargo -- sh -c '
		case $CARGO_HOME in "$ISORUN_NAMESPACE"/home/.cargo) echo in-tree ;; esac
		readlink "$CARGO_HOME/registry"; readlink "$CARGO_HOME/git"
		echo crate >"$CARGO_HOME/registry/index"
		echo cfg >"$CARGO_HOME/config.toml"'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = in-tree ]
	[ "${lines[1]}" = "$C/cargo/registry" ]
	[ "${lines[2]}" = "$C/cargo/git" ]
	# the download persists; the configuration went with the tree
	[ "$(cat "$C/cargo/registry/index")" = crate ]
	[ ! -e "$C/cargo/config.toml" ]
	assert_no_tree
}

@test "a cache persists across two runs; the tree of each is removed" {
	run iso --cache go -- sh -c 'echo built >"$GOCACHE/entry"'
	[ "$status" -eq 0 ]
	assert_no_tree
	run iso --cache go -- sh -c 'cat "$GOCACHE/entry"'
	[ "$status" -eq 0 ]
	[ "$output" = built ]
	assert_no_tree
}

@test "default hermetic: without --cache no variable leaves the tree and nothing is made" {
	run --separate-stderr iso -- sh -c '
		for v in GOCACHE GOMODCACHE npm_config_cache PIP_CACHE_DIR CARGO_HOME; do
			eval "echo $v=\${$v:-unset}"
		done
		case $XDG_CACHE_HOME in "$ISORUN_NAMESPACE"/*) echo xdg-in-tree ;; esac'
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'GOCACHE=unset\nGOMODCACHE=unset\nnpm_config_cache=unset\nPIP_CACHE_DIR=unset\nCARGO_HOME=unset\nxdg-in-tree')" ]
	[ ! -e "$XDG_CACHE_HOME" ]
}

@test "--cache none drops every cache before it, isorun.conf's too" {
	printf 'cache = go, npm\n' >"$W/isorun.conf"
	chmod 0644 "$W/isorun.conf"
	run --separate-stderr "$ISORUN" --root "$R" --config "$W/isorun.conf" --cache none -- \
		sh -c 'echo "${GOCACHE:-unset} ${npm_config_cache:-unset}"'
	[ "$status" -eq 0 ]
	[ "$output" = "unset unset" ]
	# control: the file's caches apply without it, and --cache adds to them
	run --separate-stderr "$ISORUN" --root "$R" --config "$W/isorun.conf" --cache pip -- \
		sh -c 'echo "$GOCACHE $npm_config_cache $PIP_CACHE_DIR"'
	[ "$status" -eq 0 ]
	[ "$output" = "$C/go/build $C/npm $C/pip" ]
	run "$ISORUN" config --json --config "$W/isorun.conf" --cache none,xdg
	python3 -c 'import json,sys; s=json.load(sys.stdin)["settings"]["cache"]; assert [x["value"] for x in s] == ["go, npm", "none,xdg"], s' <<<"$output"
}

@test "an unknown name: one line with the known names and the nearest, 125, nothing made" {
	for bad in gp nmp,go 'go,' rust; do
		run --separate-stderr iso --cache "$bad" -- true
		[ "$status" -eq 125 ]
		[[ "${stderr_lines[0]}" == "isorun: --cache: unknown cache '"* ]]
		[[ "${stderr_lines[0]}" == *"(known: go, npm, pip, cargo, xdg, none)" ]]
	done
	run --separate-stderr iso --cache gp -- true
	[ "${stderr_lines[0]}" = "isorun: --cache: unknown cache 'gp'; did you mean go? (known: go, npm, pip, cargo, xdg, none)" ]
	# the same words from isorun.conf, at its line
	printf 'cache = go, nmp\n' >"$W/isorun.conf"
	chmod 0644 "$W/isorun.conf"
	run --separate-stderr "$ISORUN" --root "$R" --config "$W/isorun.conf" -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"isorun.conf:1:"*": cache: unknown cache 'nmp'; did you mean npm?"* ]]
	[ ! -e "$XDG_CACHE_HOME" ]
	[ ! -e "$U" ] || assert_no_tree
}

@test "a cache directory that is a symlink, another's, or open to others is refused (125)" {
	mkdir -p "$C" "$W/elsewhere"
	chmod 700 "$C"
	ln -s "$W/elsewhere" "$C/go"
	run --separate-stderr iso --cache go -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"refusing '$C/go': not a real directory (a symlink?)"* ]]
	rm "$C/go"
	mkdir -m 755 "$C/npm"
	run --separate-stderr iso --cache npm -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"refusing '$C/npm': mode 0755 lets others in"* ]]
	[[ "$stderr" == *"chmod 0700 it"* ]]
	# the top directory is checked as well
	chmod 750 "$C"
	run --separate-stderr iso --cache pip -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"refusing '$C': mode 0750 lets others in"* ]]
	[ ! -e "$C/pip" ]
	[ ! -e "$U" ] || assert_no_tree
}

@test "a cache owned by another user is refused" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to make another user's directory"
	mkdir -p -m 700 "$C/go"
	chmod 700 "$C"
	chown "$OTHER_UID" "$C/go"
	run --separate-stderr iso --cache go -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"refusing '$C/go': owned by uid $OTHER_UID, not by uid 0"* ]]
}

@test "isorun gc and ls leave a cache alone, and are not confused by it" {
	run iso --cache go,npm --keep -- sh -c 'echo x >"$GOCACHE/entry"'
	[ "$status" -eq 0 ]
	# a cache under the per-user directory's parent as well: the root is the cache home
	run "$ISORUN" gc --root "$R" --all
	[ "$status" -eq 0 ]
	[[ "$output$stderr" != *"$C"* ]]
	assert_no_tree
	[ "$(cat "$C/go/build/entry")" = x ]
	run "$ISORUN" ls --root "$R"
	[ "$status" -eq 0 ]
	[[ "$output" != *isorun/go* ]]
	# the trees' root and the cache home the same directory: gc still reads only isorun-UID
	XDG_CACHE_HOME=$R run iso --cache pip -- true
	[ "$status" -eq 0 ]
	run "$ISORUN" gc --root "$R" --all
	[ "$status" -eq 0 ]
	[ -d "$R/isorun/pip" ]
}

@test "-v names each cache and says gc leaves it; the report lists them and validates" {
	run --separate-stderr iso -v --cache go,xdg --report "$W/r.json" -- true
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"isorun: cache go: $C/go, kept between runs (isorun gc never removes it)"* ]]
	[[ "$stderr" == *"isorun: cache xdg: $C/xdg, kept between runs"* ]]
	assert_report_valid "$W/r.json"
	python3 - "$W/r.json" "$C" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
c = sys.argv[2]
assert r["settings"]["cache"] == ["go", "xdg"], r["settings"]["cache"]
assert r["caches"] == [
    {"name": "go", "dir": c + "/go", "variables": ["GOCACHE", "GOMODCACHE"]},
    {"name": "xdg", "dir": c + "/xdg", "variables": ["XDG_CACHE_HOME"]},
], r["caches"]
EOF
	# without caches: [] and an empty list
	run iso --report "$W/r2.json" -- true
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["caches"] == [] and r["settings"]["cache"] == []' "$W/r2.json"
	# not with -v: quiet about it
	run --separate-stderr iso --cache go -- true
	[ -z "$stderr" ]
}

@test "--setenv and --env-dir still win over a cache's variable" {
	run --separate-stderr iso --cache go --setenv GOCACHE=/x --env-dir GOMODCACHE=m -- \
		sh -c 'echo "$GOCACHE"; case $GOMODCACHE in "$ISORUN_NAMESPACE"/m) echo tree ;; esac'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = /x ]
	[ "${lines[1]}" = tree ]
}

@test "--protect-home=ro: a cache in the home stays writable, the rest of the home does not" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	export XDG_CACHE_HOME="$D/cache"
	run --separate-stderr iso --protect-home=ro --cache go -- sh -c '
		echo ok >"$GOCACHE/entry" && echo cache-written
		touch "$0/probe" 2>/dev/null || echo home-refused' "$D"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'cache-written\nhome-refused')" ]
	[ "$(cat "$D/cache/isorun/go/build/entry")" = ok ]
	[ ! -e "$D/probe" ]
}

@test "--protect-home=hide: the cache is visible and writable in the hidden home" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	echo secret >"$D/secret"
	export XDG_CACHE_HOME="$D/cache"
	# the checkout may lie in the hidden home (an ordinary user's copy)
	cd "$W"
	PATH=$(path_outside_home) run --separate-stderr iso --protect-home=hide --cache npm -- sh -c '
		echo ok >"$npm_config_cache/entry" && echo cache-written
		cat "$0/secret" 2>/dev/null || echo secret-hidden' "$D"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'cache-written\nsecret-hidden')" ]
	[ "$(cat "$D/cache/isorun/npm/entry")" = ok ]
}

@test "a project file's cache in a home the command line protects is refused at its line" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	export XDG_CACHE_HOME="$D/cache"
	printf 'cache = go, npm\n' >"$W/isorun.conf"
	chmod 0644 "$W/isorun.conf"
	cfg=(--root "$R" --config "$W/isorun.conf")
	for m in ro hide; do
		run --separate-stderr "$ISORUN" "${cfg[@]}" --protect-home=$m -- true
		[ "$status" -eq 125 ]
		[[ "$stderr" == *"isorun.conf:1: cache = go, npm: makes a cache in the home writable (--protect-home=$m on the command line; a project file cannot widen it)"* ]]
		[[ "$stderr" == *"hint: to allow it, give --cache 'go, npm' on the command line"* ]]
	done
	[ ! -e "$D/cache" ]
	# a cache name the command line gives is the operator's word; the rest still is not
	run --separate-stderr "$ISORUN" "${cfg[@]}" --protect-home=ro --cache go -- true
	[ "$status" -eq 125 ]
	PATH=$(path_outside_home) run --separate-stderr "$ISORUN" "${cfg[@]}" --protect-home=ro --cache go,npm -- \
		sh -c 'echo "$GOCACHE $npm_config_cache"'
	[ "$status" -eq 0 ]
	[ "$output" = "$D/cache/isorun/go/build $D/cache/isorun/npm" ]
	# --cache none: the file's line is dropped, nothing is widened
	run --separate-stderr "$ISORUN" "${cfg[@]}" --protect-home=ro --cache none -- sh -c 'echo "${GOCACHE:-unset}"'
	[ "$status" -eq 0 ]
	[ "$output" = unset ]
	# a cache home outside the protected home widens nothing
	XDG_CACHE_HOME="$BATS_TEST_TMPDIR/xdg" run --separate-stderr "$ISORUN" "${cfg[@]}" --protect-home=ro -- sh -c 'echo "$GOCACHE"'
	[ "$status" -eq 0 ]
	[ "$output" = "$BATS_TEST_TMPDIR/xdg/isorun/go/build" ]
	# and without a protection on the command line the file may name caches in the home
	run --separate-stderr "$ISORUN" "${cfg[@]}" -- sh -c 'echo "$GOCACHE"'
	[ "$status" -eq 0 ]
	[ "$output" = "$D/cache/isorun/go/build" ]
}

@test "without XDG_CACHE_HOME the cache home is \$HOME/.cache; a relative one is ignored" {
	H2="$BATS_TEST_TMPDIR/home2"
	mkdir -p "$H2"
	run --separate-stderr env -u XDG_CACHE_HOME HOME="$H2" "$ISORUN" --no-config --root "$R" --cache pip -- sh -c 'echo "$PIP_CACHE_DIR"'
	[ "$status" -eq 0 ]
	[ "$output" = "$H2/.cache/isorun/pip" ]
	[ "$(mode "$H2/.cache")" = 700 ]
	run --separate-stderr env XDG_CACHE_HOME=rel HOME="$H2" "$ISORUN" --no-config --root "$R" --cache pip -- sh -c 'echo "$PIP_CACHE_DIR"'
	[ "$output" = "$H2/.cache/isorun/pip" ]
}

@test "--private-tmp: a cache under /tmp is bound back into the private /tmp and persists" {
	require "user and PID namespaces" userns_ok
	case $XDG_CACHE_HOME in /tmp/* | /var/tmp/*) ;; *) skip "the test's directory is not under /tmp" ;; esac
	run --separate-stderr iso --chdir / --private-tmp --cache go -- sh -c '
		echo ok >"$GOCACHE/entry" && echo cache-written
		[ -e "$0" ] || echo work-hidden' "$W"
	[ "$status" -eq 0 ]
	# the cache is back, and the cover still hides the rest of the host's /tmp
	[ "$output" = "$(printf 'cache-written\nwork-hidden')" ]
	[ "$(cat "$C/go/build/entry")" = ok ]
}
