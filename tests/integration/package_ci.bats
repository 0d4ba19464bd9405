#!/usr/bin/env bats
# The CI snippets in packaging/ci are valid, and pass as shipped with the
# revision they pin, built by their own install steps.

# the longest files, started first (tests/run-all.sh)
# bats file_tags=slow

load helpers

TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
BUILDDIR=$(dirname "$ISORUN")

@test "package: the CI snippets are valid YAML, their shell parses, and they wrap the suite" {
	require python3-yaml python3 -c 'import yaml'
	local ci="$TOP/packaging/ci" s
	run python3 - "$ci/github-actions.yml" "$ci/gitlab-ci.yml" "$BATS_TEST_TMPDIR" <<'EOF'
import sys, yaml
gh, gl, out = sys.argv[1:4]
steps = yaml.safe_load(open(gh))["jobs"]["test"]["steps"]
job = yaml.safe_load(open(gl))["test:isorun"]
scripts = [s["run"] for s in steps if "run" in s] + job["before_script"] + job["script"]
for i, s in enumerate(scripts):
    open(f"{out}/ci{i}.sh", "w").write(s)
assert any(s.get("uses", "").startswith("actions/upload-artifact") for s in steps)
assert job["artifacts"]["when"] == "always" and "isorun.json" in job["artifacts"]["paths"]
assert job["artifacts"]["reports"]["junit"] == "isorun.xml"
print(len(scripts))
EOF
	[ "$status" -eq 0 ]
	[ "$output" -ge 5 ]
	for s in "$BATS_TEST_TMPDIR"/ci*.sh; do
		bash -n "$s"
		if command -v shellcheck >/dev/null; then
			shellcheck -s bash "$s"
		fi
	done
	grep -q 'isorun --pidns=try --protect-home=ro --writable "$GITHUB_WORKSPACE"' \
		"$ci/github-actions.yml"
	grep -q 'sysctl -w kernel.apparmor_restrict_unprivileged_userns=0' "$ci/github-actions.yml"
	grep -q 'sysctl -w user.max_user_namespaces=' "$ci/github-actions.yml"
	grep -q 'isorun --pidns=try ${protect:+"$protect"} --report isorun.json --junit isorun.xml' \
		"$ci/gitlab-ci.yml"
	grep -q -- '--junit "$GITHUB_WORKSPACE/isorun.xml" -- make check' "$ci/github-actions.yml"
}

# The steps of both snippets, each as a script in $CI (gh-install, gh-userns,
# gh-test; gl-install, gl-selftest, gl-script), the shell block of
# packaging/README.md as readme-test, and the revision both pin as $REF.
snippet_steps() {
	require python3-yaml python3 -c 'import yaml'
	local ci="$TOP/packaging/ci"
	CI_STEPS="$BATS_TEST_TMPDIR/steps"
	mkdir -p "$CI_STEPS"
	REF=$(sed -n 's/^ *ISORUN_REF: *//p' "$ci/github-actions.yml")
	[ "$REF" = "$(sed -n 's/^ *ISORUN_REF: *//p' "$ci/gitlab-ci.yml")" ]
	python3 - "$ci/github-actions.yml" "$ci/gitlab-ci.yml" "$TOP/packaging/README.md" \
		"$CI_STEPS" <<'PY'
import re, sys, yaml
gh, gl, readme, out = sys.argv[1:5]
def put(name, text):
    open(f"{out}/{name}.sh", "w").write(text)
steps = {s.get("name"): s.get("run") for s in yaml.safe_load(open(gh))["jobs"]["test"]["steps"]}
put("gh-install", steps["Install isorun"])
put("gh-userns", steps["Allow unprivileged user namespaces"])
put("gh-test", steps["Test under isorun"])
job = yaml.safe_load(open(gl))["test:isorun"]
put("gl-install", [s for s in job["before_script"] if "ISORUN_DEB" in s][0])
put("gl-selftest", [s for s in job["before_script"] if s.startswith("isorun selftest")][0])
assert len(job["script"]) == 1
put("gl-script", job["script"][0])
blocks = re.findall(r"```sh\n(.*?)```", open(readme).read(), re.S)
put("readme-test", [b for b in blocks if b.startswith("isorun ")][0])
PY
	# the runner's tools: apt-get installs nothing, sudo runs as the caller,
	# sysctl changes nothing on this host
	CI_BIN="$BATS_TEST_TMPDIR/ci-bin"
	mkdir -p "$CI_BIN"
	printf '#!/bin/sh\nexit 0\n' >"$CI_BIN/apt-get"
	printf '#!/bin/sh\nexec "$@"\n' >"$CI_BIN/sudo"
	printf '#!/bin/sh\necho "sysctl $*"\n' >"$CI_BIN/sysctl"
	chmod +x "$CI_BIN"/*
}

# The revision the snippets pin can be fetched only from a git checkout of
# this repository (CI's ordinary-user run works on a plain copy of the files).
require_history() {
	require git command -v git
	git -C "$TOP" rev-parse --verify -q "HEAD^{commit}" >/dev/null ||
		skip "not a git checkout: the pinned revision cannot be fetched here"
}

# pinned_install SNIPPET: run SNIPPET's own install step (gh or gl) as a user's
# job does, fetching $REF alone from this repository, building and installing
# it; print the installed isorun.  Building a revision takes most of a minute,
# so the result is kept under the build directory, keyed by the revision and
# the step's text (both fixed once committed).
# A runner's compiler cache (Debian's ccache, the cc of /usr/lib/ccache): both
# snippets build the same revision from the same sources, one after the other,
# and the second compiles nothing again (hash_dir off: their checkouts differ).
ccache_dir() {
	if [ -x /usr/lib/ccache/cc ]; then
		echo /usr/lib/ccache
	elif [ "${CI:-}" = true ]; then
		echo "ccache missing under CI (make deps installs it)" >&2
		return 1
	fi
}

pinned_install() {
	local s=$1 key dest tmp cc
	key=$(cat <(echo "$REF") "$CI_STEPS/$s-install.sh" | sha256sum | cut -c1-16)
	dest="$BUILDDIR/pinned/$s-$key"
	if [ ! -x "$dest/usr/local/bin/isorun" ]; then
		mkdir -p "$BUILDDIR/pinned" "$BATS_TEST_TMPDIR/runner-$s"
		cc=$(ccache_dir) || return 1
		tmp=$(mktemp -d "$BUILDDIR/pinned/.new.XXXXXX")
		# without the outer make's flags (BUILD, SANITIZE, WERROR, its
		# jobserver): the revision is built as a user's job builds it
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL DESTDIR="$tmp" \
			PATH="$CI_BIN:${cc:+$cc:}$tmp/usr/local/bin:$PATH" \
			CCACHE_DIR="$BATS_FILE_TMPDIR/ccache" CCACHE_NOHASHDIR=1 \
			RUNNER_TEMP="$BATS_TEST_TMPDIR/runner-$s" TMPDIR="$BATS_TEST_TMPDIR/runner-$s" \
			ISORUN_DEB= ISORUN_GIT="file://$TOP" ISORUN_REF="$REF" \
			bash -e "$CI_STEPS/$s-install.sh" >"$BATS_TEST_TMPDIR/$s-install.log" 2>&1 || {
			echo "$s's install step failed at $REF:" >&2
			tail -20 "$BATS_TEST_TMPDIR/$s-install.log" >&2
			rm -rf "$tmp"
			return 1
		}
		mv -T "$tmp" "$dest" 2>/dev/null || rm -rf "$tmp"
	fi
	echo "$dest/usr/local/bin/isorun"
}

# a project whose `make check` leaves a mark in its (writable) workspace
workspace() {
	mkdir -p "$1"
	printf 'check:\n\techo checked >ran\n' >"$1/Makefile"
}

@test "package: the CI snippets pin a release tag on this repository's history; the placeholder URL is refused" {
	snippet_steps
	# a release (issue 39): v + VERSION's form, a tag that exists here, whose
	# VERSION is its name, so a CI log's `isorun --version` names the release
	[[ "$REF" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]
	require_history
	[ "$(git -C "$TOP" for-each-ref --format='%(objecttype)' "refs/tags/$REF")" = tag ]
	git -C "$TOP" cat-file -e "$REF^{commit}"
	[ "v$(git -C "$TOP" show "$REF:VERSION")" = "$REF" ]
	# reachable from what is checked out, so a clean clone of main has it
	git -C "$TOP" merge-base --is-ancestor "$REF" HEAD
	# as shipped, the URL says what to change instead of failing in git
	run env PATH="$CI_BIN:$PATH" RUNNER_TEMP="$BATS_TEST_TMPDIR/r2" ISORUN_DEB= \
		ISORUN_GIT=https://git.example.org/isorun.git ISORUN_REF="$REF" \
		bash -e "$CI_STEPS/gh-install.sh"
	[ "$status" -eq 1 ]
	[[ "$output" == *"set ISORUN_GIT (and ISORUN_REF) to your isorun repository"* ]]
}

# The pinned revision's report and JUnit file: valid against that revision's own
# schema (checked here), not necessarily HEAD's, so teardown's scan against HEAD's
# schema is spared them (they move to invalid_dir).
pinned_outputs_valid() {
	local d schema="$BATS_TEST_TMPDIR/pinned-schema.json"
	git -C "$TOP" show "$REF:docs/report.schema.json" >"$schema"
	for d in "$@"; do
		python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' \
			"$d/isorun.json" "$schema"
		mv "$d/isorun.json" "$(invalid_dir)/$(basename "$d").json"
	done
}

@test "package: GitHub's snippet, as shipped: its steps build the pinned revision, and its selftest and test command pass with it" {
	local bin ws="$BATS_TEST_TMPDIR/workspace"
	snippet_steps
	require_history
	bin=$(pinned_install gh)
	[ "$("$bin" --version)" = "isorun $(git -C "$TOP" show "$REF:VERSION")" ]
	# a build from this checkout says which commit it is: a CI log tells them apart
	[ "$("$ISORUN" --version)" != "$("$bin" --version)" ]
	workspace "$ws"
	# each step as the runner runs it (bash -e), the pinned isorun first on PATH
	run env PATH="$(dirname "$bin"):$CI_BIN:$PATH" ISORUN_ROOT="$R" \
		bash -e "$CI_STEPS/gh-userns.sh"
	[ "$status" -eq 0 ]
	run env -C "$ws" PATH="$(dirname "$bin"):$CI_BIN:$PATH" ISORUN_ROOT="$R" \
		GITHUB_WORKSPACE="$ws" GITHUB_ACTIONS=true bash -e "$CI_STEPS/gh-test.sh"
	[ "$status" -eq 0 ]
	[ "$(cat "$ws/ran")" = checked ]
	python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["verdict"] == "passed"' \
		"$ws/isorun.json"
	python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$ws/isorun.xml"
	pinned_outputs_valid "$ws"
	assert_no_tree
}

@test "package: GitLab's snippet and packaging/README.md's command, as shipped, pass with the pinned revision" {
	local bin ws="$BATS_TEST_TMPDIR/workspace" rs="$BATS_TEST_TMPDIR/readme"
	snippet_steps
	require_history
	bin=$(pinned_install gl)
	[ "$("$bin" --version)" = "isorun $(git -C "$TOP" show "$REF:VERSION")" ]
	# a build from this checkout says which commit it is: a CI log tells them apart
	[ "$("$ISORUN" --version)" != "$("$bin" --version)" ]
	workspace "$ws"
	run env -C "$ws" PATH="$(dirname "$bin"):$CI_BIN:$PATH" ISORUN_ROOT="$R" \
		bash -e "$CI_STEPS/gl-selftest.sh"
	[ "$status" -eq 0 ]
	run env -C "$ws" PATH="$(dirname "$bin"):$CI_BIN:$PATH" ISORUN_ROOT="$R" \
		bash -e "$CI_STEPS/gl-script.sh"
	[ "$status" -eq 0 ]
	[ "$(cat "$ws/ran")" = checked ]
	python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["verdict"] == "passed"' \
		"$ws/isorun.json"
	python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$ws/isorun.xml"
	# the README's line, the one a reader copies, with the same binary
	workspace "$rs"
	run env -C "$rs" PATH="$(dirname "$bin"):$PATH" ISORUN_ROOT="$R" bash -e "$CI_STEPS/readme-test.sh"
	[ "$status" -eq 0 ]
	[ -s "$rs/isorun.json" ] && [ -s "$rs/isorun.xml" ] && [ -e "$rs/ran" ]
	pinned_outputs_valid "$ws" "$rs"
	assert_no_tree
}
