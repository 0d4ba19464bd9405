#!/usr/bin/env bats
# The installed package: `make install DESTDIR=... PREFIX=/usr` puts every file
# in place and `make uninstall` takes it away; the installed binary, man pages
# and completions work; make deps installs only what is missing.  `make dist`
# and `make deb`: package_deb.bats; the CI snippets: package_ci.bats.

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
0644 usr/share/doc/isorun/contract.md
0644 usr/share/doc/isorun/architecture.md
0644 usr/share/doc/isorun/GRAMMAR.txt
0644 usr/share/isorun/apparmor/isorun
$(cd "$TOP/docs/use" && for f in *.md; do echo "0644 usr/share/doc/isorun/use/$f"; done)
$(cd "$TOP/docs/decisions" && for f in *.md; do echo "0644 usr/share/doc/isorun/decisions/$f"; done)"

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
	# the docs the README links to are there, and every link finds its file
	links_resolve "$D" "$D"/usr/share/doc/isorun/*.md "$D"/usr/share/doc/isorun/use/*.md \
		"$D"/usr/share/doc/isorun/decisions/*.md
	grep -q '](decisions/README.md)' "$D/usr/share/doc/isorun/README.md"
	grep -q '](contract.md)' "$D/usr/share/doc/isorun/README.md"
	grep -q '](use/README.md)' "$D/usr/share/doc/isorun/README.md"

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
	# the AppArmor profile covers this install's binary
	grep -qx 'profile isorun /opt/iso/sbin/isorun flags=(unconfined) {' \
		"$D/opt/iso/share/isorun/apparmor/isorun"
	[ ! -e "$D/usr" ]
}

@test "package: the installed isorun runs and ships the policies it has compiled in" {
	stage
	local bin="$D/usr/bin/isorun" p
	run "$bin" --version
	[ "$status" -eq 0 ]
	# the build's version: git describe in a checkout, VERSION in a copy (Makefile)
	[ "$output" = "isorun $(mk version)" ]
	[[ "$output" == "isorun $(cat "$TOP/VERSION")"* ]]
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

# aa_check FILE: apparmor_parser's verdict on FILE without a kernel (-K: no cache,
# -Q: nothing loaded), its includes from /etc/apparmor.d
aa_check() {
	"$AAP" -Q -K -b /etc/apparmor.d "$1"
}

@test "package: apparmor_parser reads the shipped AppArmor profile and refuses a broken one" {
	AAP=$(PATH=$PATH:/usr/sbin:/sbin command -v apparmor_parser) ||
		require apparmor_parser false
	stage
	local p="$D/usr/share/isorun/apparmor/isorun" t=$BATS_TEST_TMPDIR
	grep -qx 'profile isorun /usr/bin/isorun flags=(unconfined) {' "$p"
	grep -qx '  userns,' "$p"
	grep -qx '  include if exists <local/isorun>' "$p"
	if [ -e /etc/apparmor.d/abi/4.0 ]; then
		# a parser that knows `userns,` reads the profile as shipped
		run aa_check "$p"
		[ "$status" -eq 0 ]
		sed 's/^  userns,$/  userns/' "$p" >"$t/broken"
	else
		# an older one (Debian 12's 3.0) knows neither abi/4.0 nor `userns,`: it
		# refuses the profile, which the package then leaves out of
		# /etc/apparmor.d (postinst, package_deb.bats), and reads the rest of it
		run aa_check "$p"
		[ "$status" -ne 0 ]
		sed -e 's,<abi/4.0>,<abi/3.0>,' -e '/^  userns,$/d' "$p" >"$t/rest"
		run aa_check "$t/rest"
		[ "$status" -eq 0 ]
		sed 's/^profile isorun /profile isorun, /' "$t/rest" >"$t/broken"
	fi
	# the check can fail
	run aa_check "$t/broken"
	[ "$status" -ne 0 ]
	[[ "$output" == *"parser error"* ]]
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
	offers_bash "isorun rer" rerun
	offers_bash "isorun shell --li" --like
	offers_bash "isorun rerun r.json --pri" --private-tmp
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
		"isorun sel" "isorun policy " "isorun -- ech" "isorun gc --" "isorun --lea" \
		"isorun rer" "isorun shell --li"
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
	zsh_matches "isorun rer" "$all" | grep -qx rerun
	zsh_matches "isorun shell --li" "$all" | grep -qx -- --like
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
