#!/usr/bin/env bats
# The JSON report and what may never be printed.

load helpers

@test "the report has every key of the contract" {
	run iso --settle 0 --report "$W/r.json" -- sh -c "$H/daemonize -n $W/pid; echo out; exit 0"
	[ "$status" -eq 122 ]
	python3 - "$W/r.json" "$(cat "$W/pid")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for k in ["version", "argv", "cwd", "started_at", "duration_ms", "timing_us", "isolation",
          "policy", "leaks", "capabilities", "tree", "result", "exit", "output_tail"]:
    assert k in r, k
assert r["isolation"] == {"pidns": False, "pidns_reason": None, "subreaper": True,
                          "leak_check": "subreaper", "reason": None}, r["isolation"]
assert r["policy"]["refused"] == []
assert [l["pid"] for l in r["leaks"]] == [int(sys.argv[2])] and r["leaks"][0]["killed"] is True
assert r["tree"]["state"] == "removed" and r["tree"]["path"].startswith("/")
assert r["result"] == {"exit_code": 0, "signal": None, "timed_out": False,
                       "cancelled_by": None, "exec_failed": False, "exec_error": None,
                       "init_lost": None, "setup_error": None}, r["result"]
assert r["exit"] == 122
assert r["output_tail"]["stdout"] == "out\n"
assert all("=" not in n for n in r["environment"]) and "HOME" in r["environment"]
t = r["timing_us"]
assert sorted(t) == ["command", "removal", "scan", "setup", "start"], t
assert all(isinstance(v, int) and v > 0 for v in t.values()), t
PY
}

@test "the build's version in --version, the report and JUnit: git describe from a checkout, VERSION otherwise" {
	local v want
	v=$("$ISORUN" --version)
	v=${v#isorun }
	# what the Makefile computes for this directory (BUILD_VERSION)
	if [ "$(git -C "$TOP" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$TOP" && pwd -P)" ]; then
		want=$(git -C "$TOP" describe --tags --match 'v[0-9]*' 2>/dev/null)
		want=${want#v}
		# which commit it is, the release's VERSION as its first part
		[[ "$v" == "$(cat "$TOP/VERSION")"-* ]]
		[[ "$v" == "$want" || "$v" == "$want-dirty" ]]
	else
		[ "$v" = "$(cat "$TOP/VERSION")" ]
	fi
	run iso --report "$W/r.json" --junit "$W/j.xml" -- true
	[ "$status" -eq 0 ]
	python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["version"] == sys.argv[2]' \
		"$W/r.json" "$v"
	grep -qF "<property name=\"isorun.version\" value=\"$v\"/>" "$W/j.xml"
	assert_report_valid "$W/r.json"
}

# root's -v also names the capabilities its command lost (namespaces.bats tests that
# line), -v says what names processes in the exec record (attrib.bats tests that)
# and how the holders were ruled out, before and after the removal (holders.bats tests that)
drop_caps_line() {
	mapfile -t stderr_lines < <(printf '%s\n' "${stderr_lines[@]}" |
		grep -v -e '^isorun: capabilities: ' -e '^isorun: exec record: ' \
			-e '^isorun: holders: ' -e '^isorun: release: ')
}

@test "-v says where isorun's own time went; without it, a clean run says nothing" {
	run --separate-stderr iso -v --report "$W/v.json" -- true
	[ "$status" -eq 0 ]
	drop_caps_line
	# the removal's start (a sync point for tests and a hint for slow removals), what the
	# command used, then the timing
	[ "${#stderr_lines[@]}" -eq 3 ]
	[[ "${stderr_lines[0]}" == "isorun: removing $U/"* ]]
	[[ "${stderr_lines[1]}" == "isorun: resources: cpu "* ]]
	[[ "${stderr_lines[2]}" =~ ^isorun:\ timing:\ setup\ [0-9]+\.[0-9]{2}\ ms,\ start\ [0-9]+\.[0-9]{2}\ ms,\ command\ [0-9]+\.[0-9]{2}\ ms,\ holder\ scan\ [0-9]+\.[0-9]{2}\ ms,\ removal\ [0-9]+\.[0-9]{2}\ ms$ ]]
	run --separate-stderr iso -- true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# a kept tree was neither scanned nor removed: those phases are null, not 0
	run --separate-stderr iso -v --keep --report "$W/k.json" -- true
	[ "$status" -eq 0 ]
	drop_caps_line
	[[ "${stderr_lines[2]}" == "isorun: timing: setup "*", command "*" ms" ]]
	python3 - "$W/v.json" "$W/k.json" <<'PY'
import json, sys
v, k = (json.load(open(p))["timing_us"] for p in sys.argv[1:])
assert all(isinstance(x, int) for x in v.values()), v
assert k["scan"] is None and k["removal"] is None and isinstance(k["command"], int), k
PY
	force_remove "$(sed -n 's/^isorun: tree kept at //p' <<<"${stderr_lines[0]}")"
	assert_no_tree
}

@test "credential-shaped values never reach stderr or the report" {
	run env API_TOKEN=hunter2 DB_PASSWORD=hunter2 "$ISORUN" --root "$R" --settle 0 --report "$W/r.json" \
		--setenv MY_SECRET=hunter2 -- \
		bash -c "$H/daemonize -n $W/pid bash -c '$H/waitfor -t 600 $W/never; :' AWS_SECRET_ACCESS_KEY=hunter2 https://me:hunter2@example.invalid/x; exit 0" \
		x --password=hunter2 https://me:hunter2@example.invalid/x
	[ "$status" -eq 122 ]
	[[ "$output" == *"leaked: pid"* ]]
	[[ "$output" == *"AWS_SECRET_ACCESS_KEY=***"* ]]
	[[ "$output" == *"https://me:***@example.invalid/x"* ]]
	[[ "$output" != *hunter2* ]]
	! grep -q hunter2 "$W/r.json"
	grep -q -- '--password=\*\*\*' "$W/r.json"
	grep -q '"MY_SECRET"' "$W/r.json"
}

@test "a timed-out and a cancelled run say so in the report" {
	run iso --timeout 100ms --grace 100ms --report "$W/t.json" -- "$H/termignore"
	[ "$status" -eq 124 ]
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["result"]["timed_out"] and r["exit"]==124, r' "$W/t.json"
	"$ISORUN" --root "$R" --grace 100ms --report "$W/c.json" -- "$H/termignore" "$W/pid" 2>/dev/null 3>&- &
	isopid=$!
	"$H/waitfor" "$W/pid"
	kill -TERM "$isopid"
	wait "$isopid" || true
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["result"]["cancelled_by"]=="SIGTERM" and r["exit"]==143, r' "$W/c.json"
}

@test "an unwritable report path is a setup error, before anything runs" {
	run --separate-stderr iso --report "$W/no/such/dir/r.json" -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: --report: open '$W/no/such/dir/r.json': No such file or directory" ]
	[ ! -e "$W/ran" ]
	[ ! -e "$U" ] || assert_no_tree
}

@test "report v1: verdict and reason are the FAILED line's words; settings, absolute paths, severities" {
	mkdir "$W/co"
	cd "$W"
	run --separate-stderr iso --settle 0 --timeout 10m --watch co --report r.json -- \
		sh -c "$H/daemonize -n $W/pid; touch co/new; exit 0"
	[ "$status" -eq 122 ]
	reason=$(sed -n 's/^isorun: FAILED (exit 122): //p' <<<"$stderr")
	[ -n "$reason" ]
	python3 - "$W/r.json" "$reason" "$W" "$R" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
w, root = sys.argv[3], sys.argv[4]
assert r["schema"] == 1, r["schema"]
assert r["verdict"] == "failed" and r["reason"] == sys.argv[2], (r["verdict"], r["reason"])
assert r["error"] is None
s = r["settings"]
assert s["watch"] == [w + "/co"] and s["root"] == root and s["report"] == w + "/r.json", s
assert s["timeout_ms"] == 600000 and s["settle_ms"] == 0 and s["grace_ms"] == 5000, s
assert s["residue"] == "warn" and s["leaks"] == "fail" and s["protect_home"] == "off", s
assert s["pidns"] == "off" and s["policy"] == "default" and s["policy_mode"] == "enforce", s
assert s["stop_signal"] == "SIGTERM" and s["junit"] is None and s["config"] is None, s
assert r["residue"] == [{"dir": w + "/co", "path": "new", "severity": "warning"}], r["residue"]
(leak,) = r["leaks"]
assert leak["severity"] == "error" and leak["killed"] is True, leak
assert isinstance(leak["argv"], list) and "attribution" in leak, leak
assert r["timeout"] is None and "resources" in r
PY
}

@test "report v1: a clean run passes with no reason (control)" {
	run iso --report "$W/r.json" -- true
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert (r["verdict"], r["reason"], r["error"]) == ("passed", None, None), r' "$W/r.json"
}

@test "report v1: a setup failure before the start holds the error itself" {
	run iso --chdir "$W/none" --report "$W/r.json" -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ ! -e "$W/ran" ]
	python3 - "$W/r.json" "$W" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["exit"] == 125 and r["verdict"] == "failed", r
assert r["reason"] == "setup failed before the command ran", r["reason"]
assert r["error"] == {"when": "before_start", "message": "--chdir '%s/none'" % sys.argv[2],
                      "cause": "No such file or directory", "hint": None, "file": None,
                      "line": None, "column": None}, r["error"]
assert r["tree"]["state"] in ("removed", "none"), r["tree"]
PY
}

@test "report v1: a setup failure after the start holds the error and the stopped command" {
	run env ISORUN_TEST_FAULT=after-start "$ISORUN" --no-config --root "$R" --report "$W/r.json" -- \
		"$H/waitfor" -t 600 "$W/never"
	[ "$status" -eq 125 ]
	python3 - "$W/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = r["error"]
assert e["when"] == "after_start" and e["message"].startswith("supervise the command"), e
assert e["cause"] == "Too many open files", e
assert r["result"]["setup_error"].startswith(e["message"]), r["result"]
assert r["reason"].startswith("setup failed after the command started"), r["reason"]
PY
}

@test "report: fd:N writes to a descriptor of the caller's; - is refused with the fix" {
	run --separate-stderr bash -c '"$0" --no-config --root "$1" --report fd:3 -- echo out 3>"$2"' \
		"$ISORUN" "$R" "$W/fd.json"
	[ "$status" -eq 0 ]
	[ "$output" = out ]
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["output_tail"]["stdout"] == "out\n" and r["settings"]["report"] == "fd:3", r' "$W/fd.json"
	# through a pipe, as with bwrap's --json-status-fd
	# (a copy of what went through, for teardown's validation)
	run bash -c '"$0" --no-config --root "$1" --report fd:3 -- echo hi 3>&1 >/dev/null | tee "$2" | python3 -c "import json,sys; print(json.load(sys.stdin)[\"verdict\"])"' \
		"$ISORUN" "$R" "$W/piped"
	[ "$output" = passed ]
	run --separate-stderr iso --report - -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"--report -: stdout carries the command's output; give a file, or a descriptor as fd:N"* ]]
	run --separate-stderr iso --report fd:9 -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"isorun: --report: descriptor 9: Bad file descriptor"* ]]
	[ ! -e "$W/ran" ]
	run --separate-stderr iso --report fd:x -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"expected fd:N"* ]]
}

@test "report: an output tail that lost its start begins at a line; one huge line keeps its end" {
	run iso --report "$W/lines.json" -- seq 1 3000
	[ "$status" -eq 0 ]
	run iso --report "$W/huge.json" -- sh -c 'head -c 10000 /dev/zero | tr "\0" a; echo'
	[ "$status" -eq 0 ]
	run iso --report "$W/short.json" -- printf 'one\ntwo'
	python3 - "$W/lines.json" "$W/huge.json" "$W/short.json" <<'PY'
import json, sys
lines, huge, short = (json.load(open(p))["output_tail"] for p in sys.argv[1:])
t = lines["stdout"]
first = t.split("\n")[0]
# whole lines: the first is a complete number, the one after the line before it
assert lines["cut"]["stdout"] is True and t.endswith("3000\n"), lines["cut"]
assert first.isdigit(), t[:20]
assert ("\n".join(str(i) for i in range(int(first), 3001)) + "\n") == t, t[:40]
assert huge["cut"]["stdout"] is True and set(huge["stdout"]) == {"a", "\n"}, huge["stdout"][:20]
assert 4000 < len(huge["stdout"]) <= 4096, len(huge["stdout"])
assert short["cut"]["stdout"] is False and short["stdout"] == "one\ntwo", short
PY
}

@test "report: the validator refuses a report that breaks the schema (control)" {
	run iso --report "$W/r.json" -- true
	assert_report_valid "$W/r.json"
	bad=$(invalid_dir)
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
r["residue"] = [{"dir": "relative", "path": "x", "severity": "warning"}]
json.dump(r, open(sys.argv[2], "w"))
del r["verdict"]; json.dump(r, open(sys.argv[3], "w"))' "$W/r.json" "$bad/bad1" "$bad/bad2"
	run assert_report_valid "$bad/bad1"
	[ "$status" -ne 0 ]
	[[ "$output" == *"residue/0/dir: 'relative' does not match"* ]]
	run assert_report_valid "$bad/bad2"
	[ "$status" -ne 0 ]
	[[ "$output" == *"'verdict' is a required property"* ]]
	# teardown's scan finds a report by its content, whatever its name or place:
	# a copy of bad1 anywhere but the directory set aside for it fails the test
	mkdir -p "$R/elsewhere"
	cp "$bad/bad1" "$R/elsewhere/no-suffix"
	run validate_outputs
	[ "$status" -ne 0 ]
	[[ "$output" == *"elsewhere/no-suffix: residue/0/dir"* ]]
	rm "$R/elsewhere/no-suffix"
}

# issue 26 item 10: a real-time signal has a name (the C library's SIGRTMIN+N, as
# kill(1) counts), in every field that names a signal, and that name is accepted back
@test "real-time signals are SIGRTMIN+N in result, settings and timeout, and accepted as such" {
	# a command killed by one: SIGRTMIN+2 (36 with glibc), SIGRTMIN itself, SIGRTMAX
	for n in 2 0 30; do
		sig=$(python3 -c "import signal; print(signal.SIGRTMIN + $n)")
		run iso --report "$W/k$n.json" -- sh -c "kill -$sig \$\$"
		[ "$status" -eq $((128 + sig)) ]
		[[ "$output" == *"FAILED (exit $status): command killed by SIGRTMIN"* ]]
	done
	# the stop signal in every spelling: by name from either end, and by number
	for spelling in RTMIN+2 SIGRTMAX-1 35; do
		run iso --timeout 200ms --grace 5s --stop-signal "$spelling" --report "$W/t-$spelling.json" \
			-- "$H/waitfor" -t 600 "$W/never"
		[ "$status" -eq 124 ]
	done
	python3 - "$W" <<'PY'
import json, sys
w = sys.argv[1]
for n, name in [(2, "SIGRTMIN+2"), (0, "SIGRTMIN"), (30, "SIGRTMIN+30")]:
    r = json.load(open(f"{w}/k{n}.json"))
    assert r["result"]["signal"] == name, r["result"]
for spelling, name in [("RTMIN+2", "SIGRTMIN+2"), ("SIGRTMAX-1", "SIGRTMIN+29"),
                       ("35", "SIGRTMIN+1")]:
    r = json.load(open(f"{w}/t-{spelling}.json"))
    assert r["settings"]["stop_signal"] == name, r["settings"]["stop_signal"]
    assert r["timeout"]["signal"] == name, r["timeout"]
PY
	# what a run prints is what it reads back
	run "$ISORUN" config --no-config --stop-signal RTMAX-2
	[ "$status" -eq 0 ]
	[[ "$output" == *"stop-signal = SIGRTMIN+28 "* ]]
}

# issue 26 item 9: a policy file that cannot be read has a file but no position
@test "report: a --policy that cannot be loaded names the file, with line and column null" {
	printf 'policy inc\ninclude %s/none.policy\n' "$W" >"$W/inc.policy"
	mkdir "$W/adir"
	# missing, a directory, a name that is not UTF-8, an include that is missing
	# (that one has a position: the include's)
	for p in "$W/none.policy" "$W/adir" "$W/$(printf 'bad\377\033[2J.policy')" "$W/inc.policy"; do
		run --separate-stderr iso --policy "$p" --report "$W/r.json" --junit "$W/j.xml" -- touch "$W/ran"
		[ "$status" -eq 125 ]
		[ ! -e "$W/ran" ]
		assert_report_valid "$W/r.json"
		assert_junit_valid "$W/j.xml"
		python3 - "$W/r.json" "$p" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["when"] == "before_start" and e["message"].startswith("--policy: "), e
if sys.argv[2].endswith("inc.policy"):
    assert (e["line"], e["column"]) == (2, 9), e
else:
    assert e["line"] is None and e["column"] is None, e
    assert e["file"] == sys.argv[2].encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"), e
PY
	done
	assert_no_tree
}
