#!/usr/bin/env bats
# --watch DIR: entries that appeared in the checkout during the run.

load helpers

@test "a file written into a watched directory is reported as a warning by default" {
	mkdir -p "$W/checkout/src" "$W/checkout/.git"
	touch "$W/checkout/src/old.c"
	run --separate-stderr iso --watch "$W/checkout" -- sh -c "touch $W/checkout/src/new.log $W/checkout/.git/index.lock; mkdir -p $W/checkout/build/deep; touch $W/checkout/build/deep/x"
	[ "$status" -eq 0 ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[[ "$stderr" == *"isorun: residue (warning): 'build/' appeared in $W/checkout"* ]]
	[[ "$stderr" == *"isorun: residue (warning): 'src/new.log' appeared in $W/checkout"* ]]
}

@test "--residue=fail makes it a finding; a run that leaves nothing is quiet" {
	mkdir "$W/checkout"
	run --separate-stderr iso --watch "$W/checkout" --residue=fail -- touch "$W/checkout/junk"
	[ "$status" -eq 122 ]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 122): 1 new entry in watched directories" ]
	rm "$W/checkout/junk"
	run --separate-stderr iso --watch "$W/checkout" --residue=fail -- true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "isorun's own tree under a watched directory (--root inside the checkout) is not residue" {
	mkdir -p "$W/checkout/roots"
	# the root's isorun-UID directory and the tree both appear during the run
	run --separate-stderr "$ISORUN" --no-config --root "$W/checkout/roots" --keep \
		--watch "$W/checkout" --residue=fail -- true
	[ "$status" -eq 0 ]
	[[ "$stderr" != *residue* ]]
	# control: something the command leaves beside the tree still counts
	run --separate-stderr "$ISORUN" --no-config --root "$W/checkout/roots" \
		--watch "$W/checkout" --residue=fail -- touch "$W/checkout/roots/stray"
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"residue: 'roots/stray' appeared in $W/checkout"* ]]
	rm -rf "$W/checkout/roots"
}

# issue 26 item 8: a watched directory that cannot be checked is "not measurable" in
# every output, never an empty list that reads as clean, and --residue=fail fails.
# check_gap MODE WHY CMD...: run CMD with --watch $CO (default $W/co)
# --residue=MODE and check stderr, the annotation, the report and the JUnit file
# for the reason WHY.
check_gap() {
	local mode=$1 why=$2 code=0 level=warning co=${CO:-$W/co}
	shift 2
	[ "$mode" = fail ] && code=122 level=error
	run --separate-stderr env GITHUB_ACTIONS=true "$ISORUN" --no-config --root "$R" \
		--watch "$co" --residue="$mode" --report "$W/r.json" --junit "$W/j.xml" -- "$@"
	[ "$status" -eq "$code" ]
	grep -qxF "isorun: residue check: not measurable ($co: $why)" <<<"$stderr"
	grep -qxF "::$level title=isorun%3A residue check not measurable::residue check: not measurable ($co: $why)" <<<"$stderr"
	if [ "$mode" = fail ]; then
		[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 122): residue check not measurable" ]
	fi
	python3 - "$W" "$mode" "$why" "$co" <<'PY'
import json, sys, xml.etree.ElementTree as ET
w, mode, why, co = sys.argv[1:]
r = json.load(open(w + "/r.json"))
assert r["residue"] == [], r["residue"]
sev = "error" if mode == "fail" else "warning"
assert r["not_measurable"] == [{"guard": "residue", "dir": co, "reason": why,
                                "severity": sev}], r["not_measurable"]
assert r["verdict"] == ("failed" if mode == "fail" else "passed"), r["verdict"]
case = [c for c in ET.parse(w + "/j.xml").iter("testcase") if c.get("name") == "residue"][0]
out = case.find("system-out") if mode == "warn" else case.find("failure")
assert out is not None and f"residue check: not measurable ({co}: {why})" in out.text, ET.tostring(case)
if mode == "fail":
    assert case.find("failure").get("type") == "not-measurable", ET.tostring(case)
else:
    assert case.find("skipped") is not None, ET.tostring(case)  # never a pass
PY
}

@test "residue: a watched directory removed during the run is not measurable; --residue=fail fails" {
	for mode in fail warn; do
		mkdir -p "$W/co/sub"
		check_gap "$mode" "the directory was removed during the run" rm -rf "$W/co"
	done
	assert_no_tree
}

@test "residue: a watched directory replaced during the run is not measurable" {
	for mode in fail warn; do
		rm -rf "$W/co" "$W/co.old"
		mkdir -p "$W/co"
		check_gap "$mode" "the directory was replaced during the run" \
			sh -c "mv $W/co $W/co.old && mkdir $W/co && touch $W/co/new"
	done
}

@test "residue: more than 200,000 entries is not measurable; --residue=fail fails" {
	# on the tmpfs of $R, made by mknod: the entries, not the file system, are
	# what is counted, and ext4 under a loaded suite took minutes to make them
	CO=$R/co
	mkdir -p "$CO/many"
	python3 -c 'import os, sys
d = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
for i in range(200001): os.mknod(str(i), dir_fd=d)' "$CO/many"
	CO=$CO check_gap fail "more than 200000 entries" touch "$CO/new"
	rm -rf "$CO"
}

@test "residue: a directory of the checkout that cannot be read is not measurable (ordinary user)" {
	[ "$(id -u)" -ne 0 ] || skip "root reads every directory"
	mkdir -p "$W/co/sub"
	check_gap fail "'sub/' could not be read: Permission denied" \
		sh -c "touch $W/co/sub/hidden && chmod 000 $W/co/sub"
	chmod 700 "$W/co/sub"
}

@test "residue: a mount that appears in the checkout is not looked into: a file system that stopped answering there holds nothing" {
	[ "$(id -u)" -eq 0 ] || skip "mounting FUSE is root's on this host"
	require "FUSE" test -c /dev/fuse
	mkdir -p "$W/co/mnt"
	"$ISORUN" --no-config --root "$R" --watch "$W/co" --residue=fail -- \
		sh -c "touch $W/started; exec $H/waitfor -t 600 $W/go" >"$W/out" 2>&1 3>&- &
	isopid=$!
	"$H/waitfor" "$W/started"
	"$H/fusestall" "$W/co/mnt" "$W/ready" --here 3>&- &
	fp=$!
	"$H/waitfor" "$W/ready"
	: >"$W/go"
	# the safety net turns a hang into a failure
	timeout -k 5 30 tail --pid="$isopid" -f /dev/null || kill -KILL "$isopid"
	wait "$isopid" && rc=0 || rc=$?
	kill "$fp"
	wait "$fp" || true
	umount -l "$W/co/mnt"
	cat "$W/out"
	[ "$rc" -eq 122 ]
	grep -qxF "isorun: residue check: not measurable ($W/co: 'mnt/' is a mount point: not looked into)" "$W/out"
}

@test "leak check not measurable under --leaks=warn: said in the report, the JUnit file and an annotation" {
	require "seccomp filters" "$H/nosubreaper" true
	run --separate-stderr env GITHUB_ACTIONS=true "$H/nosubreaper" "$ISORUN" --no-config \
		--root "$R" --settle 0 --leaks=warn --report "$W/r.json" --junit "$W/j.xml" -- true
	[ "$status" -eq 122 ] # the tree is retained: the join could not be proven
	grep -q '^::warning title=isorun%3A leak check not measurable::leak check: not measurable (' <<<"$stderr"
	python3 - "$W" <<'PY'
import json, sys, xml.etree.ElementTree as ET
w = sys.argv[1]
r = json.load(open(w + "/r.json"))
nm = r["not_measurable"]
assert [(e["guard"], e["dir"], e["severity"]) for e in nm] == [("leak check", None, "warning")], nm
case = [c for c in ET.parse(w + "/j.xml").iter("testcase") if c.get("name") == "leak gate"][0]
assert case.find("skipped") is not None, ET.tostring(case)
assert "leak check: not measurable (" in case.find("skipped").get("message"), ET.tostring(case)
PY
	force_remove "$(the_tree)"
}
