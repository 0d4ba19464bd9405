#!/usr/bin/env bats
# The installed package: `make install DESTDIR=... PREFIX=/usr` puts every file
# in place and `make uninstall` takes it away; the installed binary, man pages
# and completions work; `make dist` and `make deb` build a lintian-clean package
# from the tracked files; the CI snippets in packaging/ci are valid.

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
	# lintian's verdict, again, on what was built: no error
	run lintian --fail-on error "$B"/deb/isorun_"$v"-*_"$arch".changes
	[ "$status" -eq 0 ]
	! grep -q '^E: ' <<<"$output"
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

@test "package: the CI snippets' install steps build the pinned kind of revision from a local clone; the placeholder URL is refused" {
	require python3-yaml python3 -c 'import yaml'
	require "git" command -v git
	local ci="$TOP/packaging/ci" t="$BATS_TEST_TMPDIR" ref
	# the pinned revision, as shipped, is a full commit id (or a tag) of this repository
	ref=$(sed -n 's/^ *ISORUN_REF: *//p' "$ci/github-actions.yml")
	[ "$ref" = "$(sed -n 's/^ *ISORUN_REF: *//p' "$ci/gitlab-ci.yml")" ]
	[[ "$ref" =~ ^[0-9a-f]{40}$ ]]
	if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$TOP" cat-file -e "$ref^{commit}"
	fi
	# a repository of this tree, to fetch from as the snippets do (by commit id)
	make -C "$TOP" BUILD="$t/dist" dist >/dev/null
	mkdir "$t/repo"
	tar -xzf "$t"/dist/isorun-*.tar.gz -C "$t/repo" --strip-components=1
	git -C "$t/repo" init -q
	git -C "$t/repo" add -A
	git -C "$t/repo" -c user.name=t -c user.email=t@t.invalid commit -qm snapshot
	local head
	head=$(git -C "$t/repo" rev-parse HEAD)
	python3 - "$ci/github-actions.yml" "$ci/gitlab-ci.yml" "$t" <<'PY'
import sys, yaml
gh, gl, out = sys.argv[1:4]
steps = yaml.safe_load(open(gh))["jobs"]["test"]["steps"]
install = [s["run"] for s in steps if s.get("name") == "Install isorun"][0]
open(f"{out}/gh-install.sh", "w").write(install)
job = yaml.safe_load(open(gl))["test:isorun"]
open(f"{out}/gl-install.sh", "w").write([s for s in job["before_script"] if "ISORUN_DEB" in s][0])
PY
	# root's tools stay as they are; apt-get and sudo are the runner's
	mkdir "$t/bin"
	printf '#!/bin/sh\nexit 0\n' >"$t/bin/apt-get"
	printf '#!/bin/sh\nexec "$@"\n' >"$t/bin/sudo"
	chmod +x "$t/bin/apt-get" "$t/bin/sudo"
	local s
	for s in gh gl; do
		mkdir -p "$t/runner-$s"
		run env PATH="$t/bin:$t/dest-$s/usr/local/bin:$PATH" DESTDIR="$t/dest-$s" \
			RUNNER_TEMP="$t/runner-$s" TMPDIR="$t/runner-$s" ISORUN_DEB= \
			ISORUN_GIT="file://$t/repo" ISORUN_REF="$head" bash -e "$t/$s-install.sh"
		[ "$status" -eq 0 ]
		# the installed binary itself, not make's echo (which `make -s` silences)
		[ "$("$t/dest-$s/usr/local/bin/isorun" --version)" = "isorun $(cat "$TOP/VERSION")" ]
	done
	# as shipped, the URL says what to change instead of failing in git
	run env PATH="$t/bin:$PATH" RUNNER_TEMP="$t/r2" ISORUN_DEB= \
		ISORUN_GIT=https://git.example.org/isorun.git ISORUN_REF="$ref" bash -e "$t/gh-install.sh"
	[ "$status" -eq 1 ]
	[[ "$output" == *"set ISORUN_GIT (and ISORUN_REF) to your isorun repository"* ]]
}
