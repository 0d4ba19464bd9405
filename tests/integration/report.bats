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

# root's -v also names the capabilities its command lost (namespaces.bats tests that line)
drop_caps_line() {
	mapfile -t stderr_lines < <(printf '%s\n' "${stderr_lines[@]}" | grep -v '^isorun: capabilities: ')
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
	force_remove "$(sed -n 's/^isorun: namespace kept at //p' <<<"${stderr_lines[0]}")"
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
	"$ISORUN" --root "$R" --grace 100ms --report "$W/c.json" -- "$H/termignore" "$W/pid" 2>/dev/null &
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
