#!/usr/bin/env bats
# --report and --junit are never empty or half written (issue 27 item 2): a
# provisional document at the start ("unfinished", an <error> "isorun did not
# finish"), replaced whole at the end by the rename of a synced temporary file, so
# a run killed by a CI runner's SIGKILL leaves files that parse and say so, and a
# previous run's green report never survives a killed run.

load helpers

# The report says unfinished with no exit, the JUnit file an <error> of `command`
# and every other case skipped; both parse (xmllint too, where it is installed).
assert_unfinished() {
	python3 - "$1" "$2" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "unfinished" and r["exit"] is None, (r["verdict"], r["exit"])
assert r["reason"] == "isorun did not finish", r["reason"]
assert r["isolation"]["leak_check"] == "not-measurable", r["isolation"]
assert r["not_measurable"] == [{"guard": "leak check", "dir": None,
                                "reason": "isorun did not finish", "severity": "error"}]
s = ET.parse(sys.argv[2]).getroot().find("testsuite")
cases = {c.get("name"): c for c in s.findall("testcase")}
err = cases["command"].find("error")
assert err is not None and err.get("message") == "isorun did not finish", ET.tostring(cases["command"])
assert all(c.find("skipped") is not None for n, c in cases.items() if n != "command")
assert s.get("errors") == "1" and s.get("failures") == "0", s.attrib
PY
	if command -v xmllint >/dev/null; then
		xmllint --noout "$2"
	fi
	assert_report_valid "$1"
	assert_junit_valid "$2"
}

assert_final() {
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["verdict"]==sys.argv[2] and r["exit"]==int(sys.argv[3]), (r["verdict"], r["exit"])' "$1" "$3" "$4"
	assert_report_valid "$1"
	assert_junit_valid "$2"
}

# No temporary file of isorun's left beside the outputs.
assert_no_temp() {
	local left
	left=$(find "$1" -name '.*.isorun-*' 2>/dev/null)
	[ -z "$left" ] || { echo "temporary files left: $left" >&2; return 1; }
}

# isorun killed with SIGKILL while its command runs (the command says it runs by
# writing its pid); the command is then stopped and gc removes the tree.
run_killed() {
	"$ISORUN" --no-config --root "$R" --policy=off "$@" -- \
		sh -c 'echo $$ >"$1.tmp"; mv "$1.tmp" "$1"; exec "$2" -t 600 "$1.never"' sh "$W/pid" "$H/waitfor" 3>&- &
	owner=$!
	"$H/waitfor" -t 60 "$W/pid"
	kill -9 "$owner"
	wait "$owner" || true
	kill -9 "$(cat "$W/pid")" 2>/dev/null || true
	"$ISORUN" gc --root "$R" >/dev/null 2>&1 || true
	rm -f "$W/pid"
}

@test "kill -9 of isorun while the command runs: the report and the JUnit file parse and say unfinished" {
	run_killed --report "$W/r.json" --junit "$W/j.xml"
	assert_unfinished "$W/r.json" "$W/j.xml"
	assert_no_temp "$W"
	# the same under --pidns, where the command runs in a namespace of its own
	if userns_ok >/dev/null 2>&1; then
		run_killed --pidns --report "$W/p.json" --junit "$W/p.xml"
		assert_unfinished "$W/p.json" "$W/p.xml"
	fi
	assert_no_tree
}

@test "a previous run's green report and JUnit file are replaced at the start: a killed run never leaves them" {
	run iso --report "$W/r.json" --junit "$W/j.xml" -- true
	[ "$status" -eq 0 ]
	assert_final "$W/r.json" "$W/j.xml" passed 0
	run_killed --report "$W/r.json" --junit "$W/j.xml"
	assert_unfinished "$W/r.json" "$W/j.xml"
	# through a symlink: the link stays a link, its target is replaced
	mkdir "$W/out"
	ln -s out/r2.json "$W/link.json"
	ln -s "$W/out/j2.xml" "$W/link.xml"
	run iso --report "$W/link.json" --junit "$W/link.xml" -- true
	[ "$status" -eq 0 ]
	[ -L "$W/link.json" ] && [ -L "$W/link.xml" ]
	assert_final "$W/out/r2.json" "$W/out/j2.xml" passed 0
	run_killed --report "$W/link.json" --junit "$W/link.xml"
	[ -L "$W/link.json" ] && [ -L "$W/link.xml" ]
	assert_unfinished "$W/out/r2.json" "$W/out/j2.xml"
	assert_no_temp "$W"
	assert_no_tree
}

@test "a normal run replaces the provisional files with the final ones; a file replaced keeps its mode" {
	# what the command sees of them is the provisional document
	run iso --report "$W/r.json" --junit "$W/j.xml" -- sh -c 'cp "$1/r.json" "$1/seen.json"; cp "$1/j.xml" "$1/seen.xml"; exit 3' sh "$W"
	[ "$status" -eq 3 ]
	assert_unfinished "$W/seen.json" "$W/seen.xml"
	assert_final "$W/r.json" "$W/j.xml" failed 3
	# a new file has the mode open(0644) would give it under the umask
	[ "$(stat -c %a "$W/r.json")" = 644 ]
	run bash -c 'umask 077; "$0" --no-config --root "$1" --report "$2/u.json" -- true' "$ISORUN" "$R" "$W"
	[ "$status" -eq 0 ]
	[ "$(stat -c %a "$W/u.json")" = 600 ]
	# an existing file keeps its own
	chmod 640 "$W/r.json"
	chmod 604 "$W/j.xml"
	run iso --report "$W/r.json" --junit "$W/j.xml" -- true
	[ "$status" -eq 0 ]
	[ "$(stat -c %a "$W/r.json")" = 640 ]
	[ "$(stat -c %a "$W/j.xml")" = 604 ]
	assert_final "$W/r.json" "$W/j.xml" passed 0
	assert_no_temp "$W"
	assert_no_tree
}

# A reader that polls both files for the whole run: every content it sees parses;
# it tells the command (by a file) once it has read the provisional documents, and
# ends when it has read the final ones.
@test "a reader polling during the run never sees an empty or a partial file" {
	cat >"$W/poll.py" <<'PY'
import json, os, sys
import xml.etree.ElementTree as ET
rep, jun, seen = sys.argv[1:4]
reads = 0
told = False
while True:
    docs = []
    for p in (rep, jun):
        try:
            text = open(p, "rb").read()
        except FileNotFoundError:
            break
        reads += 1
        try:
            docs.append(json.loads(text) if p == rep else ET.fromstring(text))
        except Exception as e:
            print(f"{p}: read {len(text)} bytes that do not parse: {e}: {text[:80]!r}")
            sys.exit(1)
    if len(docs) < 2:
        continue
    unfinished = docs[0]["verdict"] == "unfinished"
    if unfinished and not told:
        open(seen, "w").close()
        told = True
    if told and not unfinished:
        print(f"ok after {reads} reads")
        sys.exit(0)
PY
	for i in 1 2 3 4 5; do
		rm -f "$W/seen" "$W/r.json" "$W/j.xml"
		timeout 120 python3 "$W/poll.py" "$W/r.json" "$W/j.xml" "$W/seen" >"$W/poll.out" 3>&- &
		poller=$!
		run iso --report "$W/r.json" --junit "$W/j.xml" -- "$H/waitfor" -t 60 "$W/seen"
		[ "$status" -eq 0 ]
		wait "$poller" || { cat "$W/poll.out" >&2; false; }
	done
	assert_final "$W/r.json" "$W/j.xml" passed 0
	assert_no_temp "$W"
	assert_no_tree
}

@test "a disk that fills during the run: the final report fails the run (122) and the provisional one stays" {
	require "user and mount namespaces" unshare -rm --propagation slave true
	mkdir "$W/small"
	run --separate-stderr unshare -rm --propagation slave sh -c '
		mount -t tmpfs -o size=64k none "$1" || exit 9
		"$2" --no-config --root "$3" --report "$1/r.json" --junit "$1/j.xml" -- \
			sh -c "head -c 1M /dev/zero >\"\$1/fill\" 2>/dev/null; exit 0" sh "$1"
		echo "rc=$?"
		cp "$1/r.json" "$1/j.xml" "$4/"
		ls -A "$1"' _ "$W/small" "$ISORUN" "$R" "$W"
	[ "${lines[0]}" = "rc=122" ]
	[[ "$stderr" == *"isorun: --report: write '$W/small/r.json': No space left on device"* ]]
	[[ "$stderr" == *"isorun: --junit: write '$W/small/j.xml': No space left on device"* ]]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 122): report not written, JUnit file not written" ]
	assert_unfinished "$W/r.json" "$W/j.xml"
	# nothing of isorun's but the two files and the command's
	[ "${lines[1]}" = fill ] && [ "${lines[2]}" = j.xml ] && [ "${lines[3]}" = r.json ] && [ "${#lines[@]}" -eq 4 ]
	assert_no_tree
}

@test "a directory isorun cannot create in: the existing files are rewritten in place, provisional first" {
	[ "$(id -u)" -ne 0 ] || skip "root creates in any directory"
	mkdir "$W/ro"
	echo '{"verdict": "passed"}' >"$W/ro/r.json"
	echo '<old/>' >"$W/ro/j.xml"
	chmod 555 "$W/ro"
	run_killed --report "$W/ro/r.json" --junit "$W/ro/j.xml"
	assert_unfinished "$W/ro/r.json" "$W/ro/j.xml"
	run iso --report "$W/ro/r.json" --junit "$W/ro/j.xml" -- true
	[ "$status" -eq 0 ]
	assert_final "$W/ro/r.json" "$W/ro/j.xml" passed 0
	# a file still to be made there cannot be: a setup error, as before
	run --separate-stderr iso --report "$W/ro/new.json" -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: --report: open '$W/ro/new.json': Permission denied" ]
	[ ! -e "$W/ran" ]
	chmod 755 "$W/ro"
	assert_no_tree
}

@test "a stream (/dev/stdout, a FIFO, fd:N) gets the final document only, once" {
	run --separate-stderr bash -c '"$0" --no-config --root "$1" --report /dev/stdout -- true | cat >"$2/out.json"' "$ISORUN" "$R" "$W"
	[ "$status" -eq 0 ]
	# one document, the final one: json.load refuses two
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["verdict"]=="passed", r' "$W/out.json"
	mkfifo "$W/fifo"
	cat "$W/fifo" >"$W/fifo.json" 3>&- &
	reader=$!
	run iso --report "$W/fifo" -- true
	[ "$status" -eq 0 ]
	wait "$reader"
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["verdict"]=="passed", r' "$W/fifo.json"
	run bash -c '"$0" --no-config --root "$1" --junit fd:3 -- true 3>"$2/fd.xml"' "$ISORUN" "$R" "$W"
	[ "$status" -eq 0 ]
	assert_junit_valid "$W/fd.xml"
	[ "$(grep -c '<testsuites' "$W/fd.xml")" -eq 1 ]
	assert_no_temp "$W"
	assert_no_tree
}

@test "the schema ties an unfinished verdict to a null exit (control)" {
	run iso --report "$W/r.json" -- true
	[ "$status" -eq 0 ]
	bad=$(invalid_dir)
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
r["exit"] = None
json.dump(r, open(sys.argv[2], "w"))
r["exit"] = 0; r["verdict"] = "unfinished"
json.dump(r, open(sys.argv[3], "w"))
r["exit"] = None; r["verdict"] = "lost"
json.dump(r, open(sys.argv[4], "w"))' "$W/r.json" "$bad/b1" "$bad/b2" "$bad/b3"
	for b in b1 b2 b3; do
		run assert_report_valid "$bad/$b"
		[ "$status" -ne 0 ]
	done
	[[ "$output" == *"verdict: 'lost' is not one of ['passed', 'failed', 'unfinished']"* ]]
}
