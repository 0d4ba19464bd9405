#!/usr/bin/env bats
# The installed package: `make install DESTDIR=... PREFIX=/usr` puts every file
# in place and `make uninstall` takes it away; the installed binary, man pages
# and completions work; `make dist` and `make deb` build a lintian-clean package
# from the tracked files; the CI snippets in packaging/ci are valid, and pass as
# shipped with the revision they pin, built by their own install steps.

# the longest files, started first (tests/run-all.sh)
# bats file_tags=slow

load helpers

TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
BUILDDIR=$(dirname "$ISORUN")

# What `make install PREFIX=/usr` installs, and with which mode.
INSTALLED="0755 usr/bin/isorun
0644 usr/share/man/man1/isorun.1
0644 usr/share/man/man5/isorun-policy.5
0644 usr/share/bash-completion/completions/isorun
0644 usr/share/zsh/vendor-completions/_isorun
0644 usr/share/isorun/default.policy
0644 usr/share/isorun/strict.policy
0644 usr/share/isorun/report.schema.json
0644 usr/share/doc/isorun/README.md
0644 usr/share/doc/isorun/design.md
0644 usr/share/doc/isorun/GRAMMAR.txt"

# make in the source tree: without the outer make's jobserver (its descriptors
# do not reach us through isorun), and never rebuilding the binary under test
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -s -C "$TOP" BUILD="$BUILDDIR" -o "$BUILDDIR/isorun" "$@"
}

# Install into $D (PREFIX=/usr) as whoever runs the test.
stage() {
	D="$BATS_TEST_TMPDIR/stage"
	mk install DESTDIR="$D" PREFIX=/usr
}

@test "package: make install DESTDIR PREFIX=/usr puts every file in place, uninstall removes it" {
	local mode path
	stage
	while read -r mode path; do
		[ -f "$D/$path" ] || {
			echo "not installed: $path" >&2
			return 1
		}
		[ "$(stat -c %a "$D/$path")" = "${mode#0}" ] || {
			echo "$path: mode $(stat -c %a "$D/$path"), want $mode" >&2
			return 1
		}
	done <<<"$INSTALLED"
	# nothing else
	[ "$(find "$D" -type f | wc -l)" -eq "$(wc -l <<<"$INSTALLED")" ]
	cmp "$ISORUN" "$D/usr/bin/isorun"
	cmp "$TOP/policy/default.policy" "$D/usr/share/isorun/default.policy"
	cmp "$TOP/docs/report.schema.json" "$D/usr/share/isorun/report.schema.json"

	run mk uninstall DESTDIR="$D" PREFIX=/usr
	[ "$status" -eq 0 ]
	[ -z "$(find "$D" -type f)" ]
	[ ! -e "$D/usr/share/isorun" ]
	[ ! -e "$D/usr/share/doc/isorun" ]
}

@test "package: make install honours PREFIX, BINDIR and MANDIR" {
	D="$BATS_TEST_TMPDIR/stage"
	run mk install DESTDIR="$D" PREFIX=/opt/iso BINDIR=/opt/iso/sbin MANDIR=/opt/man
	[ "$status" -eq 0 ]
	[ -x "$D/opt/iso/sbin/isorun" ]
	[ -f "$D/opt/man/man1/isorun.1" ]
	[ -f "$D/opt/man/man5/isorun-policy.5" ]
	[ -f "$D/opt/iso/share/isorun/strict.policy" ]
	[ -f "$D/opt/iso/share/bash-completion/completions/isorun" ]
	[ ! -e "$D/usr" ]
}

@test "package: the installed isorun runs and ships the policies it has compiled in" {
	stage
	local bin="$D/usr/bin/isorun" p
	run "$bin" --version
	[ "$status" -eq 0 ]
	[ "$output" = "isorun $(cat "$TOP/VERSION")" ]
	for p in default strict; do
		# the canonical forms agree, up to the `# from FILE` comments
		run --separate-stderr "$bin" policy show "$p"
		[ "$status" -eq 0 ]
		local compiled=$output
		run --separate-stderr "$bin" policy show "$D/usr/share/isorun/$p.policy"
		[ "$status" -eq 0 ]
		[ "$(grep -v '^# from ' <<<"$output")" = "$(grep -v '^# from ' <<<"$compiled")" ]
		run --separate-stderr "$bin" policy check "$D/usr/share/isorun/$p.policy"
		[ "$status" -eq 0 ]
		[[ "$output" == *": ok ("* ]]
	done
	# and it runs a command
	run "$bin" --root "$R" -- sh -c 'echo "$ISORUN_NAMESPACE"'
	[ "$status" -eq 0 ]
	[[ "$output" == "$U/"* ]]
	assert_no_tree
}

@test "package: the installed man pages are found by man and render without a warning" {
	require man command -v man
	stage
	local p
	for p in man1/isorun.1 man5/isorun-policy.5; do
		run --separate-stderr env MANWIDTH=80 man --warnings -l "$D/usr/share/man/$p"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		[[ "$output" == *EXAMPLES* ]]
	done
	run env MANPATH="$D/usr/share/man" man -w isorun
	[ "$output" = "$D/usr/share/man/man1/isorun.1" ]
	run env MANPATH="$D/usr/share/man" man -w 5 isorun-policy
	[ "$output" = "$D/usr/share/man/man5/isorun-policy.5" ]
}

# complete_bash LINE: the words the installed bash completion offers with the
# cursor at the end of LINE, one per line.  Words are split as readline does
# with the default COMP_WORDBREAKS: at blanks, and `=` is a word of its own.
complete_bash() {
	cat >"$BATS_TEST_TMPDIR/complete.bash" <<'EOF'
source /usr/share/bash-completion/bash_completion
source "$1"
line=$2 w='' words=()
for ((i = 0; i < ${#line}; i++)); do
	c=${line:i:1}
	case $c in
	' ') [ -n "$w" ] && words+=("$w"); w='' ;;
	'=') [ -n "$w" ] && words+=("$w"); words+=("="); w='' ;;
	*) w+=$c ;;
	esac
done
[[ $line == *= ]] || words+=("$w")
COMP_LINE=$line COMP_POINT=${#line}
COMP_WORDS=("${words[@]}") COMP_CWORD=$((${#words[@]} - 1))
COMPREPLY=()
_isorun isorun "${words[COMP_CWORD]}" "${words[COMP_CWORD - 1]}" 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}"
EOF
	(cd "$W" && bash "$BATS_TEST_TMPDIR/complete.bash" \
		"$D/usr/share/bash-completion/completions/isorun" "$1")
}

# offers LINE WORD...: the completion of LINE offers every WORD
offers_bash() {
	local line=$1 w got
	shift
	got=$(complete_bash "$line")
	for w in "$@"; do
		grep -qxF -- "$w" <<<"$got" || {
			printf 'completing "%s": no "%s" among:\n%s\n' "$line" "$w" "$got" >&2
			return 1
		}
	done
}

@test "package: bash completion offers subcommands, options, their values and the command" {
	require bash-completion test -f /usr/share/bash-completion/bash_completion
	stage
	offers_bash "isorun s" shell selftest
	offers_bash "isorun policy " show check
	offers_bash "isorun policy show " default strict
	offers_bash "isorun --ne" --net=
	offers_bash "isorun --net=" host isolated
	[ "$(complete_bash "isorun --net=i")" = isolated ]
	offers_bash "isorun --protect-home " off ro hide
	offers_bash "isorun --protect-home=" off ro hide
	offers_bash "isorun --color=" auto always never
	offers_bash "isorun --leaks=" fail warn ignore
	offers_bash "isorun --residue=" warn fail
	offers_bash "isorun --policy-mode=" enforce log
	offers_bash "isorun --policy=" default strict off
	offers_bash "isorun --pidns=" try
	offers_bash "isorun --stop-signal SIGK" SIGKILL
	offers_bash "isorun --cap-keep CAP_CHOWN,CAP_NET_R" CAP_CHOWN,CAP_NET_RAW
	offers_bash "isorun selftest --" --json --pidns=try --policy= --leaks=
	offers_bash "isorun gc --" --dry-run --root
	offers_bash "isorun shell --pri" --private-tmp
	# after `--`, or after the first word of the command, it is the command's
	offers_bash "isorun --keep -- ech" echo
	offers_bash "isorun --root /tmp ech" echo
	[ -z "$(complete_bash "isorun --keep -- sh --ne")" ]
	# every option of --help
	local opts
	opts=$(complete_bash "isorun --")
	for o in $("$ISORUN" --help | grep -E '^ +-' | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -qE -- "^$o=?\$" <<<"$opts" || {
			echo "bash completion does not offer $o" >&2
			return 1
		}
	done
}

# complete_zsh LINE...: the matches the installed zsh completion adds for each
# LINE (TAB at its end), in an interactive `zsh -f` on a pty: "== LINE" and
# then one match per line.
complete_zsh() {
	cat >"$BATS_TEST_TMPDIR/complete.zsh" <<'EOF'
zmodload zsh/zpty || exit 2
compdir=$1 out=$2
shift 2
zpty z zsh -f -i || exit 2
zpty -w z "PS1='' PROMPT='' RPROMPT=''; fpath=(${(q)compdir} \$fpath); autoload -U compinit; compinit -u -D; zstyle ':completion:*' list-prompt ''"
zpty -w z "compadd() { local -a m; builtin compadd -O m \"\$@\"; print -rl -- \"\${m[@]}\" >>| ${(q)out}; builtin compadd \"\$@\"; }"
# comppostfuncs run once, when a completion is over: wait for that marker
# before typing on, since keys typed ahead of it would cut the completion short
zpty -w z "__n=0; __done() { (( __n++ )); print -n \"<C\${__n}C>\"; }"
n=0
for line in "$@"; do
	(( n++ ))
	print -r -- "== $line" >>| $out
	zpty -w z "comppostfuncs=(__done)"
	zpty -w -n z "$line"$'\t'
	zpty -r -m z junk "*<C${n}C>*" || exit 3
	zpty -w -n z $'\C-e\C-u'
done
zpty -d z
EOF
	local out="$BATS_TEST_TMPDIR/zsh.out"
	rm -f "$out"
	(cd "$W" && timeout -k 5 60 zsh -f "$BATS_TEST_TMPDIR/complete.zsh" \
		"$D/usr/share/zsh/vendor-completions" "$out" "$@" </dev/null >/dev/null 2>&1)
	grep -v '^$' "$out"
}

# The matches for one LINE out of complete_zsh's output.
zsh_matches() {
	awk -v l="== $1" '$0 == l { on = 1; next } /^== / { on = 0 } on' <<<"$2" | sort -u
}

@test "package: zsh completion loads under compinit and completes" {
	require zsh command -v zsh
	stage
	# loads: compinit maps isorun to the installed _isorun
	run zsh -f -c 'fpath=("$1" $fpath); autoload -U compinit; compinit -u -D;
		print -r -- "$_comps[isorun]"; autoload +X _isorun && print loaded' _ \
		"$D/usr/share/zsh/vendor-completions"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = _isorun ]
	[ "${lines[1]}" = loaded ]

	run complete_zsh "isorun --net=" "isorun --protect-home=" "isorun --pidns=" \
		"isorun sel" "isorun policy " "isorun -- ech" "isorun gc --" "isorun --lea"
	[ "$status" -eq 0 ]
	local all=$output
	[ "$(zsh_matches "isorun --net=" "$all" | tr '\n' ' ')" = "host isolated " ]
	[ "$(zsh_matches "isorun --protect-home=" "$all" | tr '\n' ' ')" = "hide off read-only ro " ]
	[ "$(zsh_matches "isorun --pidns=" "$all")" = try ]
	zsh_matches "isorun sel" "$all" | grep -qx selftest
	[ "$(zsh_matches "isorun policy " "$all" | tr '\n' ' ')" = "check show " ]
	zsh_matches "isorun -- ech" "$all" | grep -qx echo
	zsh_matches "isorun gc --" "$all" | grep -qx -- --dry-run
	zsh_matches "isorun --lea" "$all" | grep -qx -- --leaks
}

@test "package: make dist and make deb build a lintian-clean package of the tracked files" {
	require dpkg-buildpackage command -v dpkg-buildpackage
	require lintian command -v lintian
	local B="$BATS_TEST_TMPDIR/build" v arch deb
	v=$(cat "$TOP/VERSION")
	arch=$(dpkg --print-architecture)
	# its own build directory, so the tree under test is not touched
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$TOP" BUILD="$B" deb
	[ "$status" -eq 0 ]
	local make_output=$output
	[[ "$make_output" == *"lintian --fail-on error "* ]]

	tar -tzf "$B/isorun-$v.tar.gz" | grep -v '/$' | LC_ALL=C sort >"$BATS_TEST_TMPDIR/list"
	! grep -v "^isorun-$v/" "$BATS_TEST_TMPDIR/list"
	! grep -q "^isorun-$v/build/" "$BATS_TEST_TMPDIR/list"
	for f in Makefile VERSION LICENSE docs/man/isorun.1 packaging/debian/rules \
		packaging/completions/_isorun cli/main.c; do
		grep -qx "isorun-$v/$f" "$BATS_TEST_TMPDIR/list"
	done
	if [ "$(git -C "$TOP" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$TOP" && pwd -P)" ]; then
		diff <(git -C "$TOP" ls-files | sed "s,^,isorun-$v/," | LC_ALL=C sort) \
			"$BATS_TEST_TMPDIR/list"
	fi

	deb=$(echo "$B"/deb/isorun_"$v"-*_"$arch".deb)
	[ -f "$deb" ]
	[ "$(dpkg-deb -f "$deb" Package)" = isorun ]
	[[ "$(dpkg-deb -f "$deb" Version)" == "$v"-* ]]
	[ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ]
	[[ "$(dpkg-deb -f "$deb" Depends)" == *libseccomp* ]]
	dpkg-deb -c "$deb" >"$BATS_TEST_TMPDIR/contents"
	for f in usr/bin/isorun usr/share/man/man1/isorun.1.gz usr/share/man/man5/isorun-policy.5.gz \
		usr/share/bash-completion/completions/isorun usr/share/zsh/vendor-completions/_isorun \
		usr/share/isorun/default.policy usr/share/isorun/strict.policy \
		usr/share/isorun/report.schema.json usr/share/doc/isorun/copyright; do
		grep -q " \./$f\$" "$BATS_TEST_TMPDIR/contents" || {
			echo "not in the package: $f" >&2
			return 1
		}
	done
	dpkg-deb -x "$deb" "$BATS_TEST_TMPDIR/x"
	run "$BATS_TEST_TMPDIR/x/usr/bin/isorun" --version
	[ "$output" = "isorun $v" ]
	# lintian's verdict on what was built, from make deb's own run of it
	# (--fail-on error made its status): not one error line either
	! grep -q '^E: ' <<<"$make_output"
}

@test "package: make deb refuses a changelog that disagrees with VERSION" {
	require dpkg-parsechangelog command -v dpkg-parsechangelog
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "$TOP" BUILD="$BATS_TEST_TMPDIR/build" VERSION=9.9.9 deb
	[ "$status" -ne 0 ]
	[[ "$output" == *"packaging/debian/changelog is at "*", VERSION is 9.9.9"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/build/deb" ]
}

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

@test "package: the CI snippets pin a full commit id on this repository's history; the placeholder URL is refused" {
	snippet_steps
	[[ "$REF" =~ ^[0-9a-f]{40}$ ]]
	require_history
	git -C "$TOP" cat-file -e "$REF^{commit}"
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

# make deps' installer, with dpkg-query, id, sudo and apt-get as stand-ins in a
# PATH of its own: what it installs is recorded, never done
deps_stand_ins() { # INSTALLED UID [sudo]
	mkdir -p "$W/bin"
	printf '#!/bin/sh\ncase " %s " in *" $3 "*) echo "install ok installed";; *) exit 1;; esac\n' \
		"$1" >"$W/bin/dpkg-query"
	printf '#!/bin/sh\necho %s\n' "$2" >"$W/bin/id"
	printf '#!/bin/sh\necho "apt-get $*" >>"%s"\n' "$W/ran" >"$W/bin/apt-get"
	if [ "${3:-}" = sudo ]; then
		printf '#!/bin/sh\necho "sudo $1" >>"%s"; exec "$@"\n' "$W/ran" >"$W/bin/sudo"
	fi
	chmod +x "$W"/bin/*
	for t in sh cat grep; do ln -s "$(command -v $t)" "$W/bin/$t"; done
}

@test "make deps installs only what is missing, and without root or sudo prints the line root has to run" {
	# everything there: nothing to do, for anyone
	deps_stand_ins "a b" 1000
	run env PATH="$W/bin" "$TOP/packaging/deps.sh" a b
	[ "$status" -eq 0 ]
	[ "$output" = "deps: all 2 packages are installed" ]
	[ ! -e "$W/ran" ]
	# an ordinary user without sudo: the one line, exit 1, nothing run
	run env PATH="$W/bin" "$TOP/packaging/deps.sh" a b c
	[ "$status" -eq 1 ]
	[[ "$output" == *"not installed: c"* ]]
	[[ "$output" == *"as root, run: apt-get update && apt-get install -y --no-install-recommends c"* ]]
	[ ! -e "$W/ran" ]
	# with sudo: the missing one only, through it
	rm -rf "$W/bin"
	deps_stand_ins "a" 1000 sudo
	run env PATH="$W/bin" "$TOP/packaging/deps.sh" a b
	[ "$status" -eq 0 ]
	grep -qx "sudo apt-get" "$W/ran"
	grep -q "apt-get install -y -qq --no-install-recommends b$" "$W/ran"
	# root: apt-get itself
	rm -rf "$W/bin" "$W/ran"
	deps_stand_ins "" 0
	run env PATH="$W/bin" "$TOP/packaging/deps.sh" a
	[ "$status" -eq 0 ]
	! grep -q sudo "$W/ran"
	grep -q "apt-get install -y -qq --no-install-recommends a$" "$W/ran"
}
