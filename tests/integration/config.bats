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
	grep -qx "keep = never    (default)" <<<"$output"
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

@test "no inline comments: ';' or '#' after a blank is refused at its column, 125, nothing made" {
	for c in ';' '#'; do
		project <<EOF2
setenv = X=a $c b
EOF2
		cd "$P"
		run --separate-stderr iso -- sh -c 'echo "X=$X"'
		[ "$status" -eq 125 ]
		[ -z "$output" ]
		[ "${stderr_lines[0]}" = "isorun: $P/isorun.conf:1:14: '$c' after a blank: isorun.conf has no inline comments (put a comment on a line of its own; a value with '$c' there goes on the command line)" ]
		[ "${#stderr_lines[@]}" -eq 2 ]
		no_tree
		# the same byte with no blank before it is the value's own
		printf 'setenv = X=a%sb\n' "$c" >"$P/isorun.conf"
		run --separate-stderr iso -- sh -c 'echo "X=$X"'
		[ "$status" -eq 0 ]
		[ "$output" = "X=a${c}b" ]
	done
}

@test "isorun config --json: a value, path or argument that is not UTF-8 is kept, as {\"base64\": ...} of its bytes" {
	P=$W/$'pr\xffoj'
	mkdir -p "$P"
	printf 'setenv = X=a\xfeb\nwatch = w\xfd\nchdir = c\xfc\njunit = j\xfb.xml\nsetenv = PLAIN=ok\n' >"$P/isorun.conf"
	chmod 0644 "$P/isorun.conf"
	cd "$P"
	run --separate-stderr "$ISORUN" config --json -- echo $'arg\xfa'
	[ "$status" -eq 0 ]
	python3 -c '
import base64, json, os, sys
d = json.loads(sys.argv[1]); p = os.fsencode(sys.argv[2]); conf = p + b"/isorun.conf"
def raw(v):
    if isinstance(v, dict):
        assert list(v) == ["base64"], v
        return base64.b64decode(v["base64"], validate=True)
    return v.encode()
def one(e, value, line):
    assert raw(e["value"]) == value, (e, value)
    assert raw(e["source"]) == conf + b":" + str(line).encode(), e
assert raw(d["config"]["path"]) == conf, d["config"]
s = d["settings"]
assert len(s["setenv"]) == 2 and len(s["watch"]) == 1, (s["setenv"], s["watch"])
one(s["setenv"][0], b"X=a\xfeb", 1)
one(s["setenv"][1], b"PLAIN=ok", 5)
assert s["setenv"][1]["value"] == "PLAIN=ok"  # UTF-8 stays a plain string
one(s["watch"][0], p + b"/w\xfd", 2)
one(s["chdir"], p + b"/c\xfc", 3)
one(s["junit"], p + b"/j\xfb.xml", 4)
assert s["grace"] == {"value": "5s", "source": "default"}, s["grace"]
assert [raw(a) for a in d["command"]] == [b"echo", b"arg\xfa"], d["command"]
' "$output" "$P"
	# the text form shows the same settings, escaped as every line of isorun's
	run --separate-stderr "$ISORUN" config -- true
	[ "$status" -eq 0 ]
	[[ "$output" == *'setenv = X=a\xfeb    ('* ]]
	[[ "$output" == *'watch = '*'pr\xffoj/w\xfd    ('* ]]
}

# A refusal of the file's line LINE, KEY: the one line naming FILE:LINE and the key,
# its hint, the FAILED line, exit 125, and nothing made.
refused_line() {
	local line=$1 key=$2
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: $P/isorun.conf:$line: $key = "*"on the command line; a project file cannot widen it)" ]]
	[[ "${stderr_lines[1]}" == "  (hint: to allow it, give --$key "*" on the command line)" ]]
	[ "${stderr_lines[2]}" = "isorun: FAILED (exit 125): bad configuration file" ]
	[ "${#stderr_lines[@]}" -eq 3 ]
	[ -z "$output" ]
	no_tree
}

userns_ok() {
	unshare -Urpf --mount-proc --propagation slave true
}

@test "the checkout's isorun.conf cannot undo --protect-home: writable, report, junit, root in the home are refused at their line" {
	D=$(home_scratch)
	mkdir "$D/ssh"
	printf 'keep me\n' >"$D/profile"
	for m in ro hide; do
		# writable = the home's ~/.ssh: the command would append to authorized_keys
		project <<EOF2
settle = 1s
writable = $D/ssh
EOF2
		cd "$P"
		run --separate-stderr iso --protect-home=$m -- sh -c 'echo key >>"$0/authorized_keys"' "$D/ssh"
		refused_line 2 writable
		[ ! -e "$D/ssh/authorized_keys" ]
		# report and junit in the home: isorun itself would overwrite the file
		for k in report junit; do
			printf '%s = %s\n' "$k" "$D/profile" >"$P/isorun.conf"
			run --separate-stderr iso --protect-home=$m -- true
			refused_line 1 "$k"
			[ "$(cat "$D/profile")" = "keep me" ]
		done
		# the same through a symlink the checkout commits, and a dangling one
		ln -sfn "$D/profile" "$P/out.json"
		ln -sfn "$D/new.xml" "$P/out.xml"
		printf 'report = out.json\n' >"$P/isorun.conf"
		run --separate-stderr iso --protect-home=$m -- true
		refused_line 1 report
		printf '# the JUnit file\njunit = ./out.xml\n' >"$P/isorun.conf"
		run --separate-stderr iso --protect-home=$m -- true
		refused_line 2 junit
		[ ! -e "$D/new.xml" ]
		[ "$(cat "$D/profile")" = "keep me" ]
		# a relative path that climbs into the home
		printf 'report = %s/profile\n' "$(realpath --relative-to="$P" "$D")" >"$P/isorun.conf"
		run --separate-stderr iso --protect-home=$m -- true
		refused_line 1 report
		# root: isorun would make its trees in the home
		printf 'root = %s\n' "$D" >"$P/isorun.conf"
		run --separate-stderr "$ISORUN" --protect-home=$m -- true
		refused_line 1 root
		[ -z "$(ls "$D" | grep isorun-)" ]
		rm -f "$P/out.json" "$P/out.xml"
	done
	[ "$(cat "$D/profile")" = "keep me" ]
	# isorun config says the same, naming the line
	printf 'settle = 2s\nwritable = %s\n' "$D/ssh" >"$P/isorun.conf"
	run --separate-stderr "$ISORUN" config --protect-home=ro
	refused_line 2 writable
}

@test "the checkout's isorun.conf cannot undo the command line: cap-keep, keep-env, setenv \${VAR}, policy-mode, a hidden home's watch and policy" {
	D=$(home_scratch)
	mkdir "$D/w"
	printf 'allow read\n' >"$D/secret.policy"
	cd "$W"
	# capabilities that undo a mount protection: under each protection of the command line
	for prot in --protect-home=ro --protect-home=hide --private-tmp --net=isolated; do
		for caps in all cap_sys_admin CAP_SYS_PTRACE,cap_net_raw dac_read_search sys_module; do
			project <<EOF2
cap-keep = $caps
EOF2
			cd "$P"
			run --separate-stderr iso "$prot" -- true
			refused_line 1 cap-keep
			[[ "${stderr_lines[0]}" == *"keeps a capability that undoes it ($prot on the command line;"* ]]
		done
	done
	# --clearenv: a variable of the caller's may not come back through the file
	printf 'keep-env = SECRET_ONE\n' >"$P/isorun.conf"
	SECRET_ONE=s3cret-7d1f run --separate-stderr iso --clearenv -- sh -c 'echo "${SECRET_ONE:-}"'
	refused_line 1 keep-env
	for v in 'X=${SECRET_ONE}' 'X=a$SECRET_ONE'; do
		printf 'setenv = %s\n' "$v" >"$P/isorun.conf"
		SECRET_ONE=s3cret-7d1f run --separate-stderr iso --clearenv -- sh -c 'echo "${X:-}"'
		[ "$status" -eq 125 ]
		[[ "${stderr_lines[0]}" == "isorun: $P/isorun.conf:1: setenv = $v: copies the caller's environment into the command's (--clearenv on the command line;"* ]]
		[[ "$stderr" != *s3cret-7d1f* ]]
		no_tree
	done
	# --report fd:N on the command line: the file cannot pass that descriptor to the command
	printf 'pass-fd = 3\n' >"$P/isorun.conf"
	run --separate-stderr iso --report fd:3 -- sh -c 'echo forged >&3' 3>"$W/report.json"
	refused_line 1 pass-fd
	[ ! -s "$W/report.json" ]
	# --policy on the command line: the file cannot make it log-only
	printf 'policy-mode = log\n' >"$P/isorun.conf"
	run --separate-stderr iso --policy=strict -- true
	refused_line 1 policy-mode
	# the hidden home: isorun would read it (names into the report, lines into errors)
	for k in "watch = $D/w" "policy = $D/secret.policy"; do
		printf '%s\n' "$k" >"$P/isorun.conf"
		run --separate-stderr iso --protect-home=hide -- true
		refused_line 1 "${k%% *}"
	done
}

@test "control: the file's safe settings, and its widening ones where the command line protects nothing there, still apply" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	mkdir "$D/ssh"
	project <<EOF2
setenv = FROM_FILE=yes
setenv = PLAIN=\$\$HOME
settle = 1s
cap-keep = cap_net_raw
keep-env = KEPT
report = $D/ssh/r.json
writable = $D/ssh
EOF2
	cd "$P"
	# under --protect-home=ro: the report and the writable lie in the command line's --writable
	KEPT=k run --separate-stderr iso --protect-home=ro --writable "$D/ssh" -- \
		sh -c 'echo "$FROM_FILE $PLAIN ${KEPT:-unset}"; echo w >"$0/x"' "$D/ssh"
	[ "$status" -eq 0 ]
	[ "$output" = 'yes $HOME k' ]
	[ -s "$D/ssh/r.json" ]
	[ -e "$D/ssh/x" ]
	rm -f "$D/ssh/x" "$D/ssh/r.json"
	# the protection from the file itself: the file may open what it closed
	printf 'protect-home = ro\nwritable = %s\nreport = %s/r.json\ncap-keep = all\n' "$D/ssh" "$D/ssh" >"$P/isorun.conf"
	run --separate-stderr iso -- sh -c 'echo w >"$0/x"' "$D/ssh"
	[ "$status" -eq 0 ]
	[ -e "$D/ssh/x" ]
	[ -s "$D/ssh/r.json" ]
	# --clearenv with a keep-env from the file: not refused without --clearenv on the command line
	printf 'keep-env = KEPT\nclearenv = true\nsetenv = Y=${KEPT}\n' >"$P/isorun.conf"
	KEPT=k run --separate-stderr iso -- sh -c 'echo "$KEPT $Y"'
	[ "$status" -eq 0 ]
	[ "$output" = "k k" ]
	# isorun config names the file's line of each setting it took
	printf 'settle = 1s\nwatch = .\n' >"$P/isorun.conf"
	run --separate-stderr "$ISORUN" config --protect-home=ro
	[ "$status" -eq 0 ]
	[[ "$output" == *"settle = 1s    ($P/isorun.conf:1)"* ]]
	[[ "$output" == *"watch = $P    ($P/isorun.conf:2)"* ]]
	[[ "$output" == *"protect-home = ro    (command line)"* ]]
}

# After a refusal: the same run with the option its hint names added on the
# command line, literally (the hint's own shell quoting).
follow_conf_hint() {
	local opt val
	opt=$(sed -n 's/^  (hint: to allow it, give \(--[a-z-]*\) .* on the command line)$/\1/p' <<<"$stderr")
	val=$(sed -n 's/^  (hint: to allow it, give --[a-z-]* \(.*\) on the command line)$/\1/p' <<<"$stderr")
	[ -n "$opt" ] && [ -n "$val" ]
	eval "val=($val)"
	run --separate-stderr iso "$opt" "${val[@]}" "$@"
}

@test "a refusal's hint works when followed: the setting given on the command line is the operator's word" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	mkdir "$D/ssh" "$D/w"
	cd "$W"
	project </dev/null
	cd "$P"
	for m in ro hide; do
		printf 'writable = %s\n' "$D/ssh" >"$P/isorun.conf"
		run --separate-stderr iso --protect-home=$m -- sh -c 'echo key >>"$0/authorized_keys"' "$D/ssh"
		refused_line 1 writable
		follow_conf_hint --protect-home=$m -- sh -c 'echo key >>"$0/authorized_keys"' "$D/ssh"
		[ "$status" -eq 0 ]
		[ "$(cat "$D/ssh/authorized_keys")" = key ]
		rm "$D/ssh/authorized_keys"
		for k in report junit; do
			printf '%s = %s/out.%s\n' "$k" "$D" "$k" >"$P/isorun.conf"
			run --separate-stderr iso --protect-home=$m -- true
			refused_line 1 "$k"
			follow_conf_hint --protect-home=$m -- true
			[ "$status" -eq 0 ]
			[ -s "$D/out.$k" ]
		done
		printf 'watch = %s/w\n' "$D" >"$P/isorun.conf"
		run --separate-stderr iso --protect-home=hide -- true
		refused_line 1 watch
		follow_conf_hint --protect-home=hide -- true
		[ "$status" -eq 0 ]
	done
	printf 'keep-env = KEPT\n' >"$P/isorun.conf"
	KEPT=k run --separate-stderr iso --clearenv -- sh -c 'echo "${KEPT:-unset}"'
	refused_line 1 keep-env
	KEPT=k follow_conf_hint --clearenv -- sh -c 'echo "${KEPT:-unset}"'
	[ "$status" -eq 0 ]
	[ "$output" = k ]
	printf 'setenv = X=${KEPT}\n' >"$P/isorun.conf"
	KEPT=k run --separate-stderr iso --clearenv --setenv X=cli -- sh -c 'echo "$X"'
	[ "$status" -eq 0 ]
	[ "$output" = cli ]
	printf 'policy-mode = log\n' >"$P/isorun.conf"
	run --separate-stderr iso --policy=strict -- true
	refused_line 1 policy-mode
	follow_conf_hint --policy=strict -- true
	[ "$status" -eq 0 ]
	printf 'cap-keep = all\n' >"$P/isorun.conf"
	run --separate-stderr iso --private-tmp -- true
	refused_line 1 cap-keep
	follow_conf_hint --private-tmp -- true
	[ "$status" -eq 0 ]
	printf 'root = %s\n' "$D" >"$P/isorun.conf"
	run --separate-stderr "$ISORUN" --protect-home=ro -- true
	refused_line 1 root
	follow_conf_hint --protect-home=ro -- true
	[ "$status" -eq 0 ]
}
