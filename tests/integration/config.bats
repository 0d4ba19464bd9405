#!/usr/bin/env bats
# isorun.conf: found from the working directory up, or named by --config;
# the command line over it; `isorun config` says where each setting came from.
# Every test names its file with --config or makes discovery start in its own
# directory, where the test put the nearest isorun.conf itself.

load helpers

# helpers.bash's iso passes --no-config so that no stray isorun.conf reaches the
# other tests; here the file is what is tested.
iso() {
	"$ISORUN" --root "$R" "$@"
}

# No tree under this test's root (which a refused run does not even create).
no_tree() {
	[ ! -e "$U" ] || assert_no_tree
}

# A project checkout with an isorun.conf at its top and a subdirectory to start from.
project() {
	P="$W/proj"
	mkdir -p "$P/sub/deeper"
	cat >"$P/isorun.conf"
	chmod 0644 "$P/isorun.conf"
}

@test "found from a subdirectory: its settings apply, relative paths from the file's directory" {
	project <<'EOF'
# the CI step's settings
[isorun]
setenv = FROM_CONF=yes
watch = .
residue = fail
EOF
	cd "$P/sub/deeper"
	run --separate-stderr iso -- sh -c 'echo "conf=$FROM_CONF"; touch "$0/stray"' "$P"
	[ "$status" -eq 122 ]
	[ "$output" = "conf=yes" ]
	[[ "$stderr" == *"isorun: residue: 'stray' appeared in $P"* ]]
	rm -f "$P/stray"
	# control: the same run without the file
	run --separate-stderr iso --no-config -- sh -c 'echo "conf=$FROM_CONF"; touch "$0/stray"' "$P"
	[ "$status" -eq 0 ]
	[ "$output" = "conf=" ]
	no_tree
}

@test "the nearest isorun.conf wins, and only it is read" {
	project <<'EOF'
setenv = WHICH=top
setenv = TOP_ONLY=1
EOF
	printf 'setenv = WHICH=sub\n' >"$P/sub/isorun.conf"
	chmod 0644 "$P/sub/isorun.conf"
	cd "$P/sub/deeper"
	run iso -- sh -c 'echo "$WHICH ${TOP_ONLY:-unset}"'
	[ "$status" -eq 0 ]
	[ "$output" = "sub unset" ]
	cd "$P"
	run iso -- sh -c 'echo "$WHICH ${TOP_ONLY:-unset}"'
	[ "$output" = "top 1" ]
}

@test "--config names the file; --no-config reads none, not even a broken one" {
	mkdir -p "$W/elsewhere"
	printf 'setenv = FROM=named\nchdir = .\n' >"$W/elsewhere/ci.conf"
	chmod 0644 "$W/elsewhere/ci.conf"
	project <<'EOF'
this line is not a setting
EOF
	cd "$P"
	run --separate-stderr iso --config "$W/elsewhere/ci.conf" -- sh -c 'echo "$FROM $PWD"'
	[ "$status" -eq 0 ]
	[ "$output" = "named $W/elsewhere" ]
	run --separate-stderr iso --no-config -- echo ran
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
	# control: the discovered file is broken
	run --separate-stderr iso -- echo ran
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: $P/isorun.conf:1: expected 'name = value', '[isorun]' or a # comment" ]
	[ -z "$output" ]
	no_tree
}

@test "the command line replaces a scalar of the file and adds to a list" {
	project <<'EOF'
setenv = V=file
setenv = W=file
timeout = 1m
finding-exit-code = 99
keep = true
EOF
	cd "$P"
	run --separate-stderr iso --setenv V=cli --finding-exit-code 98 --keep=false -- sh -c 'echo "$V $W"'
	[ "$status" -eq 0 ]
	[ "$output" = "cli file" ]
	no_tree
	# control: without the command line's --keep=false the file keeps the tree
	run --separate-stderr iso -- true
	[ "$status" -eq 0 ]
	[ -d "$(the_tree)" ]
	force_remove "$(the_tree)"
	run "$ISORUN" config --finding-exit-code 98 --setenv V=cli
	[ "$status" -eq 0 ]
	[[ "$output" == *"finding-exit-code = 98    (command line)"* ]]
	[[ "$output" == *"timeout = 1m    (${P}/isorun.conf:3)"* ]]
	[[ "$output" == *"setenv = V=file    (${P}/isorun.conf:1)"* ]]
	[[ "$output" == *"setenv = V=cli    (command line)"* ]]
}

@test "isorun -- cmd and isorun shell -- cmd read the same file" {
	project <<'EOF'
setenv = STEP=ci
env-dir = CARGO_HOME=cargo
EOF
	cd "$P/sub"
	run --separate-stderr iso -- sh -c 'echo "$STEP ${CARGO_HOME##*/}"'
	[ "$status" -eq 0 ]
	[ "$output" = "ci cargo" ]
	run --separate-stderr "$ISORUN" shell --root "$R" -- sh -c 'echo "$STEP ${CARGO_HOME##*/}"' </dev/null
	[ "$status" -eq 0 ]
	[ "$output" = "ci cargo" ]
	force_remove "$(the_tree)"
	# control: the shell without the file
	run --separate-stderr "$ISORUN" shell --root "$R" --no-config -- sh -c 'echo "${STEP:-none}"' </dev/null
	[ "$output" = "none" ]
	force_remove "$(the_tree)"
}

@test "isorun config: every setting with its source" {
	project <<'EOF'
[isorun]
pidns = try
private-tmp = true
protect-home = ro
settle = 5s
env-dir = CARGO_HOME=cargo
env-dir = GOPATH=go
watch = .
setenv = API_TOKEN=hunter2
EOF
	cd "$P/sub/deeper"
	run --separate-stderr "$ISORUN" config --settle 1s --env-dir X=x -- make test
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "config = $P/isorun.conf    (found)" ]
	grep -qx "pidns = try    ($P/isorun.conf:2)" <<<"$output"
	grep -qx "private-tmp = true    ($P/isorun.conf:3)" <<<"$output"
	grep -qx "protect-home = ro    ($P/isorun.conf:4)" <<<"$output"
	grep -qx "settle = 1s    (command line)" <<<"$output"
	grep -qx "env-dir = CARGO_HOME=cargo    ($P/isorun.conf:6)" <<<"$output"
	grep -qx "env-dir = GOPATH=go    ($P/isorun.conf:7)" <<<"$output"
	grep -qx "env-dir = X=x    (command line)" <<<"$output"
	grep -qx "watch = $P    ($P/isorun.conf:8)" <<<"$output"
	grep -qx "grace = 5s    (default)" <<<"$output"
	grep -qx "keep = false    (default)" <<<"$output"
	grep -qx "command = make test    (command line)" <<<"$output"
	# a secret is not printed
	grep -qx "setenv = API_TOKEN=\*\*\*    ($P/isorun.conf:9)" <<<"$output"
	[[ "$output" != *hunter2* ]]
	# one line per key (lists: per entry), nothing else
	[ "$(grep -c '    (' <<<"$output")" -eq "${#lines[@]}" ]
	# control: --no-config, all defaults
	run "$ISORUN" config --no-config
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "config = none    (--no-config)" ]
	grep -qx "settle = 3s    (default)" <<<"$output"
	grep -qx "env-dir = none    (default)" <<<"$output"
	grep -qx "pidns = false    (default)" <<<"$output"
	run "$ISORUN" config --config "$P/isorun.conf"
	[ "${lines[0]}" = "config = $P/isorun.conf    (command line)" ]
}

@test "a bad key or value: file:line, exit 125, no tree" {
	project <<'EOF'
keep = true
bogus = 1
EOF
	cd "$P"
	run --separate-stderr iso -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: $P/isorun.conf:2: bogus: unknown setting (the settings are the long options of a run, see isorun --help)" ]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 125): bad configuration file" ]
	[ ! -e "$W/ran" ]
	no_tree
	printf 'keep = true\n\n[isorun]\nsettle = soon\n' >"$P/isorun.conf"
	run --separate-stderr iso -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: $P/isorun.conf:4:10: settle: invalid duration 'soon' (examples: 90s, 5m, 1h30m)" ]
	printf '[tool.other]\nkeep = true\n' >"$P/isorun.conf"
	run --separate-stderr iso -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: $P/isorun.conf:1: [tool.other]: unknown section (settings go before any section or in [isorun])" ]
	printf 'config = other.conf\n' >"$P/isorun.conf"
	run --separate-stderr "$ISORUN" config
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: $P/isorun.conf:1: config: only on the command line, not in isorun.conf" ]
	[ ! -e "$W/ran" ]
	no_tree
	# control: the same file, fixed
	printf 'keep = false\n' >"$P/isorun.conf"
	run iso -- touch "$W/ran"
	[ "$status" -eq 0 ]
	[ -e "$W/ran" ]
	no_tree
}

@test "a file someone else can write is refused, naming it and why" {
	project <<'EOF'
setenv = V=conf
EOF
	cd "$P/sub"
	chmod g+w "$P/isorun.conf"
	run --separate-stderr iso -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: $P/isorun.conf: refused: writable by its group (mode 0664)" ]
	[[ "$stderr" == *"--no-config"* ]]
	chmod g-w,o+w "$P/isorun.conf"
	run --separate-stderr iso --config "$P/isorun.conf" -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: $P/isorun.conf: refused: writable by others (mode 0646)" ]
	[ ! -e "$W/ran" ]
	no_tree
	if [ "$(id -u)" -eq 0 ]; then
		chmod 0644 "$P/isorun.conf"
		chown 65534:65534 "$P/isorun.conf"
		run --separate-stderr iso -- true
		[ "$status" -eq 125 ]
		[ "${stderr_lines[0]}" = "isorun: $P/isorun.conf: refused: owned by uid 65534, not by you (uid 0) or root" ]
		chown 0:0 "$P/isorun.conf"
	fi
	# control: only its owner can write it
	chmod 0644 "$P/isorun.conf"
	run iso -- sh -c 'echo $V'
	[ "$status" -eq 0 ]
	[ "$output" = conf ]
}

@test "--help and the other subcommands do not read isorun.conf" {
	project <<'EOF'
not a setting
EOF
	cd "$P"
	run "$ISORUN" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"isorun config [--json] [OPTION]..."* ]]
	[[ "$output" == *"--no-config"* ]]
	run "$ISORUN" policy show strict
	[ "$status" -eq 0 ]
	# control: a run does read it
	run iso -- true
	[ "$status" -eq 125 ]
}

@test "isorun config --json: the same settings and sources as one object; a command's own --json stays its own" {
	project <<'EOF2'
[isorun]
settle = 5s
setenv = API_TOKEN=hunter2
setenv = PLAIN=1
EOF2
	cd "$P/sub/deeper"
	run --separate-stderr "$ISORUN" config --json --timeout 0 -- make --json
	[ "$status" -eq 0 ]
	[[ "$output" != *hunter2* ]]
	python3 -c '
import json, sys
d = json.loads(sys.argv[1]); conf = sys.argv[2]
assert d["config"] == {"path": conf, "source": "found"}, d["config"]
s = d["settings"]
assert s["settle"] == {"value": "5s", "source": conf + ":2"}, s["settle"]
assert s["timeout"] == {"value": "none", "source": "command line"}, s["timeout"]
assert s["grace"] == {"value": "5s", "source": "default"}, s["grace"]
assert s["setenv"] == [{"value": "API_TOKEN=***", "source": conf + ":3"},
                       {"value": "PLAIN=1", "source": conf + ":4"}], s["setenv"]
assert s["watch"] == [], s["watch"]
assert d["command"] == ["make", "--json"], d["command"]
' "$output" "$P/isorun.conf"
	run --separate-stderr "$ISORUN" config --no-config --root "$P" --json
	[ "$status" -eq 0 ]
	python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["command"] is None and d["config"]["source"] == "--no-config"' "$output"
}
