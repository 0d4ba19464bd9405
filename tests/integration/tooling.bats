#!/usr/bin/env bats
# The project's own tooling: .ci/subjects (commit subjects), make soak and the
# suite's start (tests/run-all.sh).

load helpers

# A repository in $W/repo with one commit, its base; then one commit per subject.
subjects_repo() {
	local s
	git init -q "$W/repo"
	export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t.invalid
	export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t.invalid
	git -C "$W/repo" commit -q --allow-empty -m "an old subject, however long it was, before the rule"
	base=$(git -C "$W/repo" rev-parse HEAD)
	for s in "$@"; do
		git -C "$W/repo" commit -q --allow-empty -m "$s"
	done
}

@test "subjects: 'area: what changed' in 72 characters passes" {
	subjects_repo "ci: check the subjects" "holders.bats, contract.md: one runner" \
		"tree: $(printf '%066d' 0)"
	run env -C "$W/repo" "$TOP/.ci/subjects" "$base"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "subjects: a long subject, or one with no area, fails naming it" {
	long="tree: $(printf '%067d' 0)"
	subjects_repo "ci: fine" "$long"
	run env -C "$W/repo" "$TOP/.ci/subjects" "$base"
	[ "$status" -eq 1 ]
	[[ "$output" == *"73 characters, more than 72: $long"* ]]
	subjects_repo "just words with no area"
	run env -C "$W/repo" "$TOP/.ci/subjects" "$base"
	[ "$status" -eq 1 ]
	[[ "$output" == *"not 'area: what changed': just words with no area"* ]]
}

@test "subjects: a merge's subject is git's, not checked" {
	subjects_repo "ci: fine"
	git -C "$W/repo" checkout -q -b side
	git -C "$W/repo" commit -q --allow-empty -m "side: a change"
	git -C "$W/repo" checkout -q -
	git -C "$W/repo" merge -q --no-ff --no-edit side
	[[ "$(git -C "$W/repo" log -1 --format=%s)" == "Merge branch 'side'"* ]]
	run env -C "$W/repo" "$TOP/.ci/subjects" "$base"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "subjects: a base this clone lacks fails, saying so" {
	subjects_repo "ci: fine"
	run env -C "$W/repo" "$TOP/.ci/subjects" 0123456789012345678901234567890123456789
	[ "$status" -eq 1 ]
	[[ "$output" == *"is not in this clone"* ]]
}

@test "subjects: .ci/run checks them from a base in this history" {
	grep -q '^\.ci/subjects "\$subjects_base"$' "$TOP/.ci/run"
	b=$(sed -n 's/^subjects_base=//p' "$TOP/.ci/run")
	[[ "$b" =~ ^[0-9a-f]{40}$ ]]
}

@test "soak: one file N times under the gate, runs and failures counted" {
	# (bats would read an @test line of this file's own as one of its tests)
	local t=@test
	cat >"$W/flaky.bats" <<-EOF2
	$t "flaky: fails on the second run" {
		n=\$((\$(cat "$W/n" 2>/dev/null || echo 0) + 1))
		echo \$n >"$W/n"
		[ \$n -ne 2 ]
	}
	$t "steady" { true; }
	EOF2
	run env -u MAKEFLAGS TMPDIR="$W" J=1 "$TOP/tests/soak.sh" "$(dirname "$ISORUN")" 3 "$W/flaky.bats"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cat "$W/n")" = 3 ]
	[[ "${lines[1]}" == "soak: flaky.bats run 2/3: 2 passed, 1 failed in "*"(exit 1; $W/isorun-soak."*"/run-2.log)" ]]
	[ "${lines[3]}" = "soak: flaky.bats: 2 of 3 runs passed, 1 failed" ]
	[ "${lines[4]}" = "soak:   failed 1 of 3: flaky: fails on the second run" ]
	# the failing run's output is kept; a passing run's is not
	[ -f "$W"/isorun-soak.*/run-2.log ] && [ ! -e "$W"/isorun-soak.*/run-1.log ]
	grep -q '^ok - the integration suite left no process and no tree behind' "$W"/isorun-soak.*/run-2.log
	run env TMPDIR="$W" "$TOP/tests/soak.sh" "$(dirname "$ISORUN")" 0 "$W/flaky.bats"
	[ "$status" -eq 2 ]
	[ "$output" = "soak: N=0: not a number of runs from 1 to 9999" ]
}

@test "run-all.sh: a caller's ignored SIGINT and SIGQUIT are the suite's no more, and it says so" {
	local t=@test
	cat >"$W/sigs.bats" <<-EOF2
	$t "the tests get SIGINT and SIGQUIT at their default" {
		(( (16#\$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status) & 6) == 0 ))
	}
	EOF2
	# a background job of a shell without job control: started with both ignored
	run env -u MAKEFLAGS J=1 bash -c '"$@" & wait $!' sh \
		"$TOP/tests/run-all.sh" "$(dirname "$ISORUN")" integration "$W/sigs.bats"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "# SIGINT and SIGQUIT were ignored by the caller (a background job?): the suite gets them back" ]
	# control: the background job did start with them ignored
	run bash -c "sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status & wait \$!"
	(((16#$output & 6) == 6))
}
