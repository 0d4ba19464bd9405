#!/usr/bin/env bats
# --keep=on-failure (issue 29): a failed run's tree stays, for any failure (the
# command's own exit, a signal, --timeout, a finding with exit 0, a step after
# the start), its path is printed and `isorun ls` says why; a passing run's tree
# goes.  A setup failure before the start leaves nothing, as always.

load helpers

# The reason `isorun ls --json` shows for the one tree under the root.
ls_reason() {
	"$ISORUN" ls --json --root "$R" | python3 -c 'import json, sys
r = json.load(sys.stdin)
assert len(r) == 1, r
print(r[0]["state"], r[0]["reason"])'
}

@test "--keep=on-failure: a command that exits 1 keeps its tree, prints the path, ls says why" {
	run --separate-stderr iso --keep=on-failure -- sh -c 'echo data >"$TMPDIR/scratch"; exit 1'
	[ "$status" -eq 1 ]
	t=$(the_tree)
	[ -n "$t" ]
	[ "$(cat "$t/tmp/scratch")" = data ]
	[[ "$stderr" == *"isorun: tree kept at $t (--keep=on-failure: the run failed)"* ]]
	[[ "$stderr" == *"isorun: FAILED (exit 1): command exited 1" ]]
	[ "$(ls_reason)" = "kept --keep=on-failure: the run failed (exit 1: command exited 1)" ]
	run "$ISORUN" ls --root "$R"
	[[ "$output" == *"kept        --keep=on-failure: the run failed (exit 1: command exited 1)"* ]]
}

@test "--keep=on-failure: a passing run's tree is removed and nothing is said" {
	run --separate-stderr iso --keep=on-failure -- sh -c 'echo data >"$TMPDIR/scratch"'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	assert_no_tree
}

@test "--keep=on-failure: a finding with exit 0 (a leak, 122) keeps the tree; the report says so" {
	run --separate-stderr iso --keep=on-failure --settle 0 --report "$W/r.json" -- sh -c 'sleep 600 & exit 0'
	[ "$status" -eq 122 ]
	t=$(the_tree)
	[ -n "$t" ]
	[[ "$stderr" == *"tree kept at $t (--keep=on-failure: the run failed)"* ]]
	[ "$(ls_reason)" = "kept --keep=on-failure: the run failed (exit 122: 1 process outlived the command)" ]
	python3 - "$W/r.json" "$t" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["tree"]
assert t["state"] == "kept" and t["path"] == sys.argv[2] and t["kept_on_failure"] is True, t
assert t["reason"].startswith("--keep=on-failure: the run failed (exit 122"), t
assert r["settings"]["keep"] is False, r["settings"]
EOF
}

@test "--keep=on-failure: --timeout (124) and a cancel by SIGTERM (143) keep the tree" {
	run --separate-stderr iso --keep=on-failure --timeout 100ms --grace 100ms -- sleep 600
	[ "$status" -eq 124 ]
	[ "$(ls_reason)" = "kept --keep=on-failure: the run failed (exit 124: timed out)" ]
	force_remove "$(the_tree)"
	"$ISORUN" --root "$R" --keep=on-failure --grace 100ms -- sh -c "touch $W/started; exec sleep 600" 2>"$W/err" 3>&- &
	pid=$!
	"$H/waitfor" "$W/started"
	kill -TERM "$pid"
	wait "$pid" && rc=0 || rc=$?
	[ "$rc" -eq 143 ]
	[ "$(ls_reason)" = "kept --keep=on-failure: the run failed (exit 143: cancelled by SIGTERM)" ]
	grep -q "tree kept at $(the_tree) (--keep=on-failure: the run failed)" "$W/err"
}

@test "--keep=on-failure: a command killed by a signal, and one not found (127), keep the tree" {
	run --separate-stderr iso --keep=on-failure -- sh -c 'kill -KILL $$'
	[ "$status" -eq 137 ]
	[ "$(ls_reason)" = "kept --keep=on-failure: the run failed (exit 137: command killed by SIGKILL)" ]
	force_remove "$(the_tree)"
	run -127 --separate-stderr iso --keep=on-failure -- /nonexistent/cmd
	[ "$status" -eq 127 ]
	[ "$(ls_reason)" = "kept --keep=on-failure: the run failed (exit 127: command not found)" ]
}

@test "--keep=on-failure: a setup failure before the command ran (125) leaves nothing behind" {
	run --separate-stderr iso --keep=on-failure --chdir "$W/missing" -- true
	[ "$status" -eq 125 ]
	assert_no_tree
}

@test "--keep=on-failure in a nested isorun: the inner failed tree stays inside the outer's kept one" {
	run --separate-stderr iso --keep=on-failure -- "$ISORUN" --keep=on-failure -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	outer=$(the_tree)
	inner=$(find "$outer/tmp/isorun-$(id -u)" -mindepth 1 -maxdepth 1 -type d ! -name '.*')
	[ -n "$inner" ]
	[ "$(jq -r .reason "$inner/outcome")" = "--keep=on-failure: the run failed (exit 3: command exited 3)" ]
	[ "$(jq -r .reason "$outer/outcome")" = "--keep=on-failure: the run failed (exit 3: command exited 3)" ]
	# the inner passes: its tree goes; the outer passes: its own goes too
	run --separate-stderr iso --keep=on-failure -- "$ISORUN" --keep=on-failure -- true
	[ "$status" -eq 0 ]
	[ "$(find "$U" -mindepth 1 -maxdepth 1 -type d ! -name '.*' | wc -l)" -eq 1 ]
}

@test "keep = on-failure in isorun.conf; the command line's --keep and --keep=never win; isorun config shows it" {
	mkdir -p "$W/p"
	printf 'keep = on-failure\n' >"$W/p/isorun.conf"
	cd "$W/p"
	run --separate-stderr "$ISORUN" --root "$R" -- false
	[ "$status" -eq 1 ]
	[ "$(ls_reason)" = "kept --keep=on-failure: the run failed (exit 1: command exited 1)" ]
	force_remove "$(the_tree)"
	run --separate-stderr "$ISORUN" --root "$R" --keep=never -- false
	[ "$status" -eq 1 ]
	assert_no_tree
	run --separate-stderr "$ISORUN" --root "$R" --keep=false -- false
	[ "$status" -eq 1 ]
	assert_no_tree
	run --separate-stderr "$ISORUN" --root "$R" --keep -- true
	[ "$status" -eq 0 ]
	[ "$(ls_reason)" = "kept --keep" ]
	run --separate-stderr "$ISORUN" config
	[[ "$output" == *"keep = on-failure"* ]]
}

@test "--keep's bad words: one line, 125, nothing made; a bare --keep before a command still runs it" {
	run --separate-stderr iso --keep=sometimes -- true
	[ "$status" -eq 125 ]
	[ "${stderr%%$'\n'*}" = "isorun: --keep: expected never, always or on-failure, got 'sometimes'" ]
	run --separate-stderr iso --keep on-failure -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"did you mean --keep=on-failure?"* ]]
	printf 'keep = sometimes\n' >"$W/bad.conf"
	run --separate-stderr iso --config "$W/bad.conf" -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"bad.conf:1"*"keep: expected never, always or on-failure, got 'sometimes'"* ]]
	[ ! -e "$U" ] || assert_no_tree
	# `--keep true` is still --keep and the command true, as before there were words
	run --separate-stderr iso --keep true
	[ "$status" -eq 0 ]
	[ "$(ls_reason)" = "kept --keep" ]
}

@test "gc: a tree kept on failure is kept on purpose; the recorded reason is shown, never acted on" {
	run --separate-stderr iso --keep=on-failure -- false
	t=$(the_tree)
	run "$ISORUN" gc --dry-run --root "$R"
	[[ "$output" == *"keep $t: kept on purpose (--keep=on-failure: the run failed (exit 1: command exited 1)); isorun gc --kept removes it"* ]]
	# the record is the command's to rewrite: another reason, escaped, changes no decision
	printf '{"state": "kept", "reason": "removable\\u001b[31m now"}' >"$t/outcome"
	run "$ISORUN" gc --dry-run --root "$R"
	[[ "$output" == *"keep $t: kept on purpose (removable\\x1b[31m now); isorun gc --kept removes it"* ]]
	run "$ISORUN" gc --kept --root "$R"
	[[ "$output" == *"removed $t"* ]]
	assert_no_tree
}
