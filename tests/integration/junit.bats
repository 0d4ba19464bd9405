#!/usr/bin/env bats
# --junit FILE: one JUnit test case per guard, failing exactly when its finding
# counts against the verdict, with the stderr line's words; and GitHub Actions
# annotations under GITHUB_ACTIONS=true.  Every file is validated against
# tests/junit.xsd and read by junitparser (teardown, helpers.bash); these tests
# check which cases fail and with what.

load helpers

# "name status type message" per case, then the failure texts, from a real consumer.
cases() {
	/usr/bin/python3 - "$1" <<'PY'
import sys, junitparser
for suite in junitparser.JUnitXml.fromfile(sys.argv[1]):
    for c in suite:
        r = c.result[0] if c.result else None
        kind = type(r).__name__.lower() if r else "passed"
        print(f"{c.name}|{kind}|{getattr(r, 'type', '') or ''}|{getattr(r, 'message', '') or ''}")
PY
}

# The text of the failing case named $2.
failure_text() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import sys, junitparser
for suite in junitparser.JUnitXml.fromfile(sys.argv[1]):
    for c in suite:
        if c.name == sys.argv[2]:
            print(c.result[0].text)
PY
}

@test "junit: a leak fails the leak gate case with the stderr line; the other guards pass" {
	require "python3-junitparser" /usr/bin/python3 -c 'import junitparser'
	run --separate-stderr iso --settle 0 --timeout 10m --junit "$W/j.xml" -- \
		sh -c "$H/daemonize -n $W/pid; exit 0"
	[ "$status" -eq 122 ]
	assert_junit_valid "$W/j.xml"
	run cases "$W/j.xml"
	[ "${lines[0]}" = "command|passed||" ]
	[ "${lines[1]}" = "leak gate|failure|leak|1 process outlived the command" ]
	# no --watch: no residue case (a guard not asked for is no test case)
	[ "${lines[2]}" = "policy|passed||" ]
	[ "${lines[3]}" = "teardown|passed||" ]
	[ "${lines[4]}" = "timeout|passed||" ]
	[ "${#lines[@]}" -eq 5 ]
	# the words of the stderr lines (the leak and its attribution), without "isorun: "
	leak_text=$(sed -n 's/^isorun: //; /^leaked: /,/^[^ ]/{/^leaked: \|^  /p}' <<<"$stderr")
	[[ "$leak_text" == *$'\n  attribution incomplete: '* ]]
	run failure_text "$W/j.xml" "leak gate"
	[ "$output" = "$leak_text" ]
	[[ "$output" == "leaked: pid $(cat "$W/pid") "* ]]
}

@test "junit: a clean run has no failing case (control)" {
	run iso --settle 0 --junit "$W/j.xml" -- true
	[ "$status" -eq 0 ]
	assert_junit_valid "$W/j.xml"
	run cases "$W/j.xml"
	[[ "$output" != *"|failure|"* && "$output" != *"|error|"* ]]
	grep -q 'failures="0" errors="0"' "$W/j.xml"
}

@test "junit: a clean run skips nothing: a guard not asked for (--watch, --timeout, a policy) is no test case" {
	require "python3-junitparser" /usr/bin/python3 -c 'import junitparser'
	run iso --settle 0 --junit "$W/j.xml" -- true
	[ "$status" -eq 0 ]
	assert_junit_valid "$W/j.xml"
	grep -q '<testsuite name="isorun" tests="4" failures="0" errors="0" skipped="0" ' "$W/j.xml"
	run cases "$W/j.xml"
	[ "$output" = $'command|passed||\nleak gate|passed||\npolicy|passed||\nteardown|passed||' ]
	# each asked for: its case, passing
	mkdir "$W/watched"
	run iso --settle 0 --watch "$W/watched" --timeout 1h --junit "$W/j.xml" -- true
	[ "$status" -eq 0 ]
	run cases "$W/j.xml"
	[ "$output" = $'command|passed||\nleak gate|passed||\nresidue|passed||\npolicy|passed||\nteardown|passed||\ntimeout|passed||' ]
	# the policy turned off is not asked for either
	run iso --settle 0 --policy=off --junit "$W/j.xml" -- true
	[ "$status" -eq 0 ]
	run cases "$W/j.xml"
	[ "$output" = $'command|passed||\nleak gate|passed||\nteardown|passed||' ]
	grep -q 'tests="3" failures="0" errors="0" skipped="0"' "$W/j.xml"
}

@test "junit: timeout, residue, refused call and a failing command each fail their own case" {
	require "python3-junitparser" /usr/bin/python3 -c 'import junitparser'
	mkdir "$W/co"
	run iso --timeout 200ms --grace 100ms --junit "$W/t.xml" -- "$H/waitfor" -t 600 "$W/never"
	[ "$status" -eq 124 ]
	run cases "$W/t.xml"
	[[ "$output" == *"timeout|failure|timeout|timed out"* ]]
	run failure_text "$W/t.xml" timeout
	# the one line, then the tree as it was when the timer fired (stderr printed it then)
	[ "${lines[0]}" = "timed out after 200ms; stopped the whole tree" ]
	[[ "${lines[1]}" == "  timed out after "*"; the tree then:" ]]
	[[ "$output" == *"\`$H/waitfor -t 600 $W/never\`"* ]]
	run iso --watch "$W/co" --residue=fail --junit "$W/r.xml" -- touch "$W/co/new"
	[ "$status" -eq 122 ]
	run cases "$W/r.xml"
	[[ "$output" == *"residue|failure|residue|1 new entry in watched directories"* ]]
	run failure_text "$W/r.xml" residue
	[ "$output" = "residue: 'new' appeared in $W/co" ]
	run iso --junit "$W/p.xml" -- sh -c 'systemctl restart nginx; exit 0'
	[ "$status" -eq 122 ]
	run cases "$W/p.xml"
	[[ "$output" == *"policy|failure|policy|1 call refused"* ]]
	run failure_text "$W/p.xml" policy
	[[ "$output" == "refused: execve \`systemctl restart nginx\` (pid "* ]]
	run iso --junit "$W/c.xml" -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	run cases "$W/c.xml"
	[ "${lines[0]}" = "command|failure|command|command exited 3" ]
	[ "$(grep -c '<failure' "$W/c.xml")" -eq 1 ]
}

@test "junit: a warning passes its case and is kept as the case's output" {
	run iso --settle 0 --leaks=warn --junit "$W/j.xml" -- sh -c "$H/daemonize -n $W/pid; exit 0"
	[ "$status" -eq 0 ]
	grep -q '<system-out>leaked (warning): pid ' "$W/j.xml"
	! grep -q '<failure' "$W/j.xml"
}

@test "junit: a setup failure is an error of the command case; the guards are skipped" {
	require "python3-junitparser" /usr/bin/python3 -c 'import junitparser'
	run iso --chdir "$W/none" --junit "$W/j.xml" -- true
	[ "$status" -eq 125 ]
	run cases "$W/j.xml"
	[ "${lines[0]}" = "command|error|setup|setup failed before the command ran" ]
	[ "${lines[1]}" = "leak gate|skipped||the command did not run" ]
	# the guards asked for are skipped; the ones not asked for are no case at all
	[ "${lines[2]}" = "policy|skipped||the command did not run" ]
	[ "${lines[3]}" = "teardown|passed||" ]
	[ "${#lines[@]}" -eq 4 ]
	run iso --chdir "$W/none" --timeout 1h --junit "$W/j.xml" -- true
	run cases "$W/j.xml"
	[ "${lines[4]}" = "timeout|skipped||the command did not run" ]
	run failure_text "$W/j.xml" command
	[[ "$output" == *"--chdir '$W/none': No such file or directory"* ]]
}

@test "junit: markup, control characters and bytes that are not UTF-8 in a finding stay well-formed" {
	require "python3-junitparser" /usr/bin/python3 -c 'import junitparser'
	run iso --settle 0 --junit "$W/j.xml" -- sh -c \
		"$H/daemonize -n $W/pid sh -c '$H/waitfor -t 600 $W/never; :' '</failure>&\"x' \"\$(printf 'a\\001b')\" \"\$(printf 'c\\377d')\"; exit 0"
	[ "$status" -eq 122 ]
	assert_junit_valid "$W/j.xml"
	run failure_text "$W/j.xml" "leak gate"
	[[ "$output" == *'</failure>&"x'* ]]
	[[ "$output" != *$'\001'* ]]
}

@test "junit: written after a report that could not be, it carries the verdict with that failure" {
	require "python3-junitparser" /usr/bin/python3 -c 'import junitparser'
	run --separate-stderr iso --settle 0 --report /dev/full --junit "$W/j.xml" -- true
	[ "$status" -eq 122 ]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 122): report not written" ]
	assert_junit_valid "$W/j.xml"
	grep -qF '<property name="isorun.exit" value="122"/>' "$W/j.xml"
	grep -qF '<property name="isorun.reason" value="report not written"/>' "$W/j.xml"
	run cases "$W/j.xml"
	[ "${lines[3]}" = "teardown|failure|delivery|report not written" ]
	run failure_text "$W/j.xml" teardown
	[ "$output" = "--report: write '/dev/full': No space left on device" ]
	# a failing command keeps its code there too
	run --separate-stderr iso --settle 0 --report /dev/full --junit "$W/j.xml" -- sh -c 'exit 4'
	[ "$status" -eq 4 ]
	grep -qF '<property name="isorun.exit" value="4"/>' "$W/j.xml"
	grep -qF '<property name="isorun.reason" value="command exited 4, report not written"/>' "$W/j.xml"
}

@test "junit: an unwritable path is a setup error before anything runs" {
	run --separate-stderr iso --junit "$W/no/dir/j.xml" -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: --junit: open '$W/no/dir/j.xml': No such file or directory" ]
	[ ! -e "$W/ran" ]
}

@test "annotations: under GITHUB_ACTIONS=true findings become ::error and ::warning lines" {
	mkdir "$W/co"
	run --separate-stderr env GITHUB_ACTIONS=true "$ISORUN" --no-config --root "$R" --settle 0 \
		--watch "$W/co" -- sh -c "$H/daemonize -n $W/pid; touch $W/co/new; exit 0"
	[ "$status" -eq 122 ]
	# the leak and its attribution lines, one annotation: the newline escaped as %0A
	leak_line=$(grep '^isorun: leaked: ' <<<"$stderr")
	attrib_line=$(grep -A1 '^isorun: leaked: ' <<<"$stderr" | sed -n '2s/^isorun: //p')
	[[ "$attrib_line" == "  attribution incomplete: "* ]]
	grep -qxF "::error title=isorun%3A leaked process::${leak_line#isorun: }%0A$attrib_line" <<<"$stderr"
	grep -qxF "::warning title=isorun%3A residue::residue (warning): 'new' appeared in $W/co" <<<"$stderr"
	# stdout stays the command's own
	[ -z "$output" ]
	# control: without GITHUB_ACTIONS (or with another value) no workflow command
	for v in "" false; do
		run --separate-stderr env GITHUB_ACTIONS="$v" "$ISORUN" --no-config --root "$R" \
			--settle 0 -- sh -c "$H/daemonize -n $W/pid2; exit 0"
		[ "$status" -eq 122 ]
		! grep -q '^::' <<<"$stderr"
	done
}

@test "annotations: a policy file's mistake names its file, line and column" {
	printf 'policy broken\nallow execve\nfrobnicate x\n' >"$W/bad.policy"
	run --separate-stderr env GITHUB_ACTIONS=true "$ISORUN" --no-config --root "$R" \
		--policy "$W/bad.policy" --report "$W/r.json" -- true
	[ "$status" -eq 125 ]
	line=$(grep '^::error ' <<<"$stderr")
	[[ "$line" =~ ^::error\ file=([^,]*),line=([0-9]+),col=([0-9]+),title=isorun%3A\ bad\ policy::--policy:\  ]]
	python3 - "$W/r.json" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["when"] == "before_start" and e["file"] == sys.argv[2], e
assert e["line"] == int(sys.argv[3]) and e["column"] == int(sys.argv[4]), e
assert e["message"].startswith("--policy: "), e
PY
}
