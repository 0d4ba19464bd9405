#!/usr/bin/env bats
# `isorun rerun REPORT` and `isorun shell --like REPORT` (issue 38 item 4): a
# report is input, not evidence.  Its settings come back as an isorun.conf's
# would, under the same trust; its command and directory only when they can be
# replayed here; one line says what runs where and what is not replayed.

load helpers

# A finished report of a run that failed: its settings, command and cwd.
failed_run() {
	mkdir -p "$W/proj"
	cd "$W/proj"
	run --separate-stderr iso --report "$W/r.json" --private-tmp --settle 1500ms \
		--timeout 1m --policy=strict -- sh -c 'pwd >>ran; exit 3'
	[ "$status" -eq 3 ]
	cd "$W"
}

# The report's settings, less what belongs to one invocation.
settings_of() {
	python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["settings"]
for k in ("config", "root", "report", "junit", "chdir", "keep"):
    s.pop(k, None)
print(json.dumps(s, sort_keys=True))
PY
}

# A copy of r.json with one change (python: r is the report), in $F: a forged
# report is no output of isorun's, and teardown validates isorun's outputs.
forged() {
	F=$(invalid_dir)/f.json
	python3 - "$W/r.json" "$F" "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))
PY
}

refused() { # expected reason, then the arguments of isorun
	local want=$1 hint=
	shift
	[ "$1" != --hint ] || { hint=$2; shift 2; }
	run --separate-stderr "$ISORUN" "$@"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: $want" ]
	[ -z "$hint" ] || [ "${stderr_lines[1]}" = "  (hint: $hint)" ]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 125): cannot replay the report" ]
	[ "${#stderr_lines[@]}" -eq $((${#hint} ? 3 : 2)) ]
	[ -z "$output" ]
}

@test "rerun: the same command, in the same directory, under the same settings, with the same exit" {
	failed_run
	run --separate-stderr "$ISORUN" rerun "$W/r.json" --root "$R" --report "$W/r2.json"
	[ "$status" -eq 3 ]
	[[ "${stderr_lines[0]}" == "isorun: rerun $W/r.json: sh -c 'pwd >>ran; exit 3' in $W/proj; not replayed: the variables' values (a report keeps names only"* ]]
	[ "$(cat "$W/proj/ran")" = "$W/proj"$'\n'"$W/proj" ]
	[ "$(settings_of "$W/r.json")" = "$(settings_of "$W/r2.json")" ]
	python3 - "$W/r.json" "$W/r2.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["argv"] == b["argv"] and a["exit"] == b["exit"] == 3, (a["argv"], b["argv"])
assert b["settings"]["chdir"] == a["cwd"], b["settings"]["chdir"]
assert b["settings"]["timeout_ms"] == 60000 and b["settings"]["private_tmp"] is True
PY
}

@test "rerun REPORT -- COMMAND: the report gives the settings alone, here; a missing cwd is then no matter" {
	failed_run
	forged 'r["cwd"] = "/nonexistent/ci/checkout"'
	run --separate-stderr "$ISORUN" rerun "$F" --root "$R" --report "$W/r2.json" -- sh -c 'pwd; exit 4'
	[ "$status" -eq 4 ]
	[ "$output" = "$W" ]
	[[ "${stderr_lines[0]}" == "isorun: rerun $F: sh -c 'pwd; exit 4' in $W; not replayed: its command and working directory (the command line's); "* ]]
	[ "$(settings_of "$W/r.json")" = "$(settings_of "$W/r2.json")" ]
}

@test "shell --like: a shell under the report's settings, in its directory" {
	failed_run
	run --separate-stderr "$ISORUN" shell --like "$W/r.json" --root "$R" --report "$W/r2.json"  </dev/null
	[ "$status" -eq 0 ]
	[[ "${stderr_lines[0]}" == "isorun: shell --like $W/r.json: "*" -i in $W/proj; not replayed: "* ]]
	[[ "${stderr_lines[1]}" == "isorun: shell in $U/"*" (private-tmp, policy=strict); "* ]]
	python3 - "$W/r.json" "$W/r2.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert b["settings"]["chdir"] == a["cwd"]
# a shell has no timeout of the run's: it is interactive
assert b["settings"]["timeout_ms"] is None
for k in ("private_tmp", "policy", "settle_ms"):
    assert a["settings"][k] == b["settings"][k], k
PY
	force_remove "$(the_tree)"
}

@test "the line says what is not replayed: variables' values, unset here by name; what a report does not record" {
	failed_run
	forged 'r["environment"] += ["CI_JOB_ONLY_VAR"]'
	run --separate-stderr "$ISORUN" rerun "$F" --root "$R"
	[ "$status" -eq 3 ]
	[[ "${stderr_lines[0]}" == *"; not replayed: the variables' values (a report keeps names only; 1 unset here: CI_JOB_ONLY_VAR); what a report does not record (--env-dir, --setenv, --unsetenv, --keep-env, "*"--bind, --ro-bind, --tmpfs: give them again)" ]]
}

@test "a redacted command, a missing or redacted cwd: refused, one line naming the report" {
	failed_run
	forged 'r["argv"] = ["curl", "-H", "--token=***"]'
	refused "$F: its command was redacted (argv[2] is --token=***): it cannot be replayed; give it after --: isorun rerun $F -- COMMAND" \
		rerun "$F" --root "$R"
	forged 'r["cwd"] = "/nonexistent/ci/checkout"'
	refused "$F: its working directory /nonexistent/ci/checkout does not exist here (another machine's?); give the command after -- to run it here" \
		rerun "$F" --root "$R"
	refused "$F: its working directory /nonexistent/ci/checkout does not exist here (another machine's?); give the command after -- to run it here" \
		shell --like "$F" --root "$R"
	forged 'r["cwd"] = "/home/u:***@x"'
	refused "$F: it records no working directory that can be replayed; give the command after -- to run it here" \
		rerun "$F" --root "$R"
	[ ! -e "$U" ] || [ -z "$(ls -A "$U")" ]
}

@test "a truncated, provisional or foreign report: refused 125, nothing run" {
	failed_run
	F=$(invalid_dir)/f.json
	head -c 200 "$W/r.json" >"$F"
	run --separate-stderr "$ISORUN" rerun "$F" --root "$R"
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: $F: not a complete report (truncated, or not JSON: "* ]]
	forged 'r["verdict"] = "unfinished"; r["exit"] = None'
	refused "$F: a provisional report: its run did not finish, so it may not hold what the run ended with; rerun a finished run's report" \
		rerun "$F" --root "$R"
	forged 'r["schema"] = 2'
	refused "$F: not an isorun report of schema 1" rerun "$F" --root "$R"
	refused "$W/nope.json: No such file or directory" rerun "$W/nope.json" --root "$R"
	mkfifo "$W/fifo"
	refused "$W/fifo: not a report (not a regular file)" rerun "$W/fifo" --root "$R"
	[ "$(cat "$W/proj/ran")" = "$W/proj" ]
	[ ! -e "$U" ] || [ -z "$(ls -A "$U")" ]
}

@test "a report never widens the command line: what an isorun.conf may not set, it may not either" {
	failed_run
	forged 'r["settings"]["policy_mode"] = "log"'
	refused "$F: its settings: policy-mode = log: lets every call the policy refuses through (--policy=strict on the command line; a project file cannot widen it)" \
		--hint "to allow it, give --policy-mode log on the command line" \
		rerun "$F" --root "$R" --policy=strict
	home=$(getent passwd "$(id -u)" | cut -d: -f6)
	forged 'r["settings"]["writable"] = ["'"$home"'"]'
	refused "$F: its settings: writable = $home: makes part of the home writable (--protect-home=ro on the command line; a project file cannot widen it)" \
		--hint "to allow it, give --writable $home on the command line" \
		rerun "$F" --root "$R" --protect-home=ro
	# a key no isorun.conf line has is said, never guessed at; a line it cannot carry is refused
	forged 'r["settings"]["bind"] = ["/etc"]'
	run --separate-stderr "$ISORUN" rerun "$F" --root "$R" -- true
	[ "$status" -eq 0 ]
	[[ "${stderr_lines[0]}" == *"; not replayed: settings.bind (not a setting of this isorun); its command and working directory (the command line's); "* ]]
	forged 'r["settings"]["policy"] = "strict\nwritable = /"'
	refused "$F: settings.policy: a value an isorun.conf line cannot carry" \
		rerun "$F" --root "$R" -- true
	# a path of another machine: a list drops it and says so, a value refuses
	forged 'r["settings"]["watch"] = ["/nonexistent/ci/src"]'
	run --separate-stderr "$ISORUN" rerun "$F" --root "$R" -- true
	[ "$status" -eq 0 ]
	[[ "${stderr_lines[0]}" == *"; not replayed: watch /nonexistent/ci/src (not here); "* ]]
	forged 'r["settings"]["policy"] = "/nonexistent/ci/p.policy"'
	refused "$F: settings.policy: /nonexistent/ci/p.policy does not exist here" \
		rerun "$F" --root "$R" -- true
}

@test "rerun and --like: bad command lines are one line and 125" {
	run --separate-stderr "$ISORUN" rerun
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: rerun: missing REPORT (usage: isorun rerun REPORT [OPTION]... [-- COMMAND [ARG]...])" ]
	run --separate-stderr "$ISORUN" --like r.json -- true
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: --like: only isorun shell takes it: isorun shell --like r.json (the report's command again: isorun rerun r.json)" ]
	failed_run
	refused "$W/r.json: --config /dev/null cannot be combined: the report's settings are the configuration (--no-config: the command line's alone)" \
		rerun "$W/r.json" --config /dev/null
	run "$ISORUN" rerun --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"isorun rerun REPORT"* ]]
}
