#!/usr/bin/env bats
# docs/use/*.md: every example a page shows is run as the page shows it
# (docs_use.bash); the pages of real toolchains are docs_pytest, docs_go and
# docs_cargo.bats.  Here: every scenario is run by some test, run-page's control,
# and the pages ci-shell, guard-home, ci-reports, ci-matrix and git.

load helpers
load docs_use

@test "docs/use: every console and ini block is run or says why not, and every scenario is run here" {
	local page id n=0
	for page in "$PAGES"/*.md; do
		run --separate-stderr "$RUN_PAGE" --list "$page"
		[ "$status" -eq 0 ]
		for id in $output; do
			grep -q "run_page $(basename "$page") $id\$" "$BATS_TEST_DIRNAME"/docs_*.bats ||
				{ echo "$(basename "$page"): scenario $id is run by no test" >&2 && return 1; }
			n=$((n + 1))
		done
	done
	[ "$n" -ge 15 ]
	# the control: an unmarked block is refused
	printf '# x\n\n```console\n$ true\n```\n' >"$W/unmarked.md"
	run --separate-stderr "$RUN_PAGE" --list "$W/unmarked.md"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"unmarked.md:3: console or ini block without a run/file/not run marker"* ]]
}

@test "docs/use: run-page fails a page whose output or exit code drifted" {
	# the control for every test below: a wrong line or code must turn run-page red
	mkdir -p "$W/docs/use"
	cp -r "$TOP/examples" "$W/"
	printf '<!-- run: a exit=0,3 -->\n```console\n$ echo 12 apples\n1 apple\n$ sh -c "exit 3"\n```\n' >"$W/docs/use/p.md"
	run --separate-stderr env RUN_PAGE_WORK="$W/w1" ISORUN="$ISORUN" ISORUN_ROOT="$R" "$RUN_PAGE" "$W/docs/use/p.md" a
	[ "$status" -eq 1 ]
	[[ "$output" == *'run-page: a: `echo 12 apples` did not print (in this order): 1 apple'* ]]
	sed -i 's/^1 apple$/1 apples/; s/exit=0,3/exit=0,4/' "$W/docs/use/p.md"
	run --separate-stderr env RUN_PAGE_WORK="$W/w2" ISORUN="$ISORUN" ISORUN_ROOT="$R" "$RUN_PAGE" "$W/docs/use/p.md" a
	[ "$status" -eq 1 ]
	[[ "$output" != *"did not print"* ]]
	[[ "$output" == *'run-page: a: `sh -c "exit 3"` exited 3, the page says 4'* ]]
	sed -i 's/exit=0,4/exit=0,3/' "$W/docs/use/p.md"
	run --separate-stderr env RUN_PAGE_WORK="$W/w3" ISORUN="$ISORUN" ISORUN_ROOT="$R" "$RUN_PAGE" "$W/docs/use/p.md" a
	[ "$status" -eq 0 ]
}


# --- ci-shell.md ------------------------------------------------------------

@test "ci-shell.md: isorun config shows the committed settings; a run and isorun shell, also interactive, use them (needs isorun.conf support)" {
	require "cargo" debian_tool cargo
	require "user and PID namespaces" userns_ok
	run_page ci-shell.md ci-conf
	assert_page_ok
	# what an interactive `isorun shell` in the crate does with a typed command
	run --separate-stderr bash -c "cd '$W/examples/use/cargo' &&
		printf '%s\n' 'echo \"target=\$CARGO_TARGET_DIR\"' exit |
		env ISORUN_ROOT='$R' SHELL=/bin/sh '$ISORUN' shell"
	[ "$status" -eq 0 ]
	[[ "$output" == *"target=$U/"*"/target"* ]]
	[[ "$stderr" == *"isorun: tree kept at $U/"* ]]
	# the two shells kept their trees, as isorun shell does; the runs did not
	[ "$(find "$U" -mindepth 1 -maxdepth 1 ! -name '.*' | wc -l)" -eq 2 ]
	local t
	for t in "$U"/*; do force_remove "$t"; done
	assert_checkout cargo isorun.conf
}

# --- guard-home.md ----------------------------------------------------------

@test "guard-home.md: --protect-home=ro turns a write to the real home into EROFS" {
	require "user and PID namespaces" userns_ok
	require "make" debian_tool make
	assert_real_home_untouched
	assert_home_guarded ro
	run_page guard-home.md guard-ro
	assert_page_ok
	assert_real_home_untouched
	assert_no_tree
}

@test "guard-home.md: the write reaches the home's directory when it is not guarded (control, by access(2))" {
	require "user and PID namespaces" userns_ok
	local home
	home=$(real_home)
	# without the guard the directory the example writes to is writable, so the
	# EROFS above is isorun's doing; access(2) asks without writing
	run iso -- test -w "$home"
	[ "$status" -eq 0 ]
	run iso --protect-home=ro -- test -w "$home"
	[ "$status" -eq 1 ]
	assert_no_tree
}

@test "guard-home.md: --protect-home=hide puts an empty unwritable directory over it" {
	require "user and PID namespaces" userns_ok
	require "make" debian_tool make
	assert_home_guarded hide
	run_page guard-home.md guard-hide
	assert_page_ok
	assert_real_home_untouched
	assert_no_tree
}

@test "guard-home.md: --watch . --residue=fail names what the suite left in the checkout" {
	require "user and PID namespaces" userns_ok
	require "make" debian_tool make
	run_page guard-home.md guard-watch
	assert_page_ok
	assert_checkout guard-home results.txt
	assert_no_tree
}

@test "guard-home.md: --watch-home names what the suite wrote in its private home" {
	run_page guard-home.md guard-home-writes
	assert_page_ok
	assert_no_tree
}

@test "guard-home.md: isorun.conf (needs isorun.conf support)" {
	require "user and PID namespaces" userns_ok
	require "make" debian_tool make
	assert_home_guarded ro
	# the page checks `isorun config` first; run-page stops there if the file's
	# protect-home is not in effect, before make check can write anything
	run_page guard-home.md guard-conf
	assert_page_ok
	assert_real_home_untouched
	assert_checkout guard-home isorun.conf results.txt
	assert_no_tree
}

@test "guard-home.md: where namespaces are refused, --pidns=try falls back and --protect-home fails with 125" {
	require "user and PID namespaces" userns_ok
	require "make" debian_tool make
	[ -x "$H/denyns" ]
	run_page guard-home.md guard-denyns
	assert_page_ok
	assert_real_home_untouched
	assert_no_tree
}

@test "guard-home.md: --ro-bind of the checkout turns the suite's write there into EROFS" {
	require "user and PID namespaces" userns_ok
	require "make" debian_tool make
	run_page guard-home.md guard-robind
	assert_page_ok
	assert_checkout guard-home
	assert_no_tree
}

@test "ci-reports.md: under GITHUB_ACTIONS=true a leak is also an ::error annotation and a failed JUnit case" {
	run_page ci-reports.md annotate
	assert_page_ok
	assert_leaks_dead
	assert_junit_valid "$W/isorun.xml"
}

@test "ci-matrix.md: two shards' report directories merge into one summary, exit 122 and one valid JUnit file" {
	run_page ci-matrix.md merge
	assert_page_ok
	assert_leaks_dead
	assert_junit_valid "$W/isorun.xml"
	[ "$(grep -c '<testsuite ' "$W/isorun.xml")" -eq 2 ]
}

@test "ci-reports.md: the full example report validates against the shipped schema" {
	sed -n '/^```json$/,/^```$/p' "$PAGES/ci-reports.md" | sed '1d;$d' >"$W/example.json"
	[ -s "$W/example.json" ]
	assert_report_valid "$W/example.json"
}

# --- git.md -----------------------------------------------------------------

# git makes up an identity (user@host.domain) where the host's name has a domain:
# the failure the page shows needs a host where it cannot.
git_cannot_guess() {
	! env -i PATH=/usr/bin:/bin HOME=/nonexistent git var GIT_COMMITTER_IDENT >/dev/null 2>&1
}

@test "git.md: under isorun the global identity is not read: git commit fails with git's words, exit 128" {
	require "git" debian_tool git
	git_cannot_guess || skip "this host's name has a domain: git makes up an identity instead of failing"
	run_page git.md git-fail
	assert_page_ok
	assert_no_tree
}

@test "git.md: GIT_CONFIG_GLOBAL on the command line and in isorun.conf, or git's identity variables: the commit is the page's" {
	require "git" debian_tool git
	local top=$W
	W=$top/fix
	run_page git.md git-fix
	assert_page_ok
	W=$top/env
	run_page git.md git-env
	assert_page_ok
	W=$top/conf
	run_page git.md git-conf
	assert_page_ok
	# control: the page's command line without the setting fails as git-fail does
	W=$top/control
	mkdir -p "$W/docs/use"
	sed 's/ --setenv GIT_CONFIG_GLOBAL="$HOME\/.gitconfig"//' "$PAGES/git.md" >"$W/docs/use/git.md"
	! grep -q 'GIT_CONFIG_GLOBAL="' "$W/docs/use/git.md"
	cp -r "$TOP/examples" "$W/"
	run --separate-stderr env RUN_PAGE_WORK="$W/w" ISORUN="$ISORUN" ISORUN_ROOT="$R" \
		"$RUN_PAGE" "$W/docs/use/git.md" git-fix
	[ "$status" -eq 1 ]
	[[ "$output" == *"run-page: git-fix: \`isorun -- git commit -q --allow-empty -m 'from the suite'\` exited 128, the page says 0"* ]]
	assert_no_tree
}
