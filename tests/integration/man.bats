#!/usr/bin/env bats
# The man pages: they render without a warning, carry the sections we promise,
# document every option of --help, and every command of their EXAMPLES runs and
# ends with the exit code the page states.
#
# The EXAMPLES convention (also written at the top of docs/man/isorun.1): in an
# .EX/.EE block of the EXAMPLES section, a line starting with "$ " is a command;
# "  # exit N" at its end states its exit code (else 0); a command ending in
# <<'EOF' takes the following lines up to EOF as its input; other lines are
# output, shown to the reader and not checked.  The commands of a page run in
# order, in one scratch directory, with the built isorun first on PATH and
# ISORUN_ROOT pointing at this test's root.

load helpers

MANDIR=${TOP:-$BATS_TEST_DIRNAME/../..}/docs/man
PAGES="isorun.1 isorun-policy.5"

# extract PAGE OUTDIR: write each example command to OUTDIR/N.sh and its
# expected exit code to OUTDIR/N.code (N = 1, 2, ...).  A troff escape the
# extractor does not know is written as a command that fails, naming it.
extract() {
	mkdir -p "$2"
	awk -v out="$2" '
	function unescape(s,    r, i, c, t) {
		r = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c != "\\") { r = r c; continue }
			t = substr(s, i + 1, 1)
			if (t == "-") { r = r "-"; i++ }
			else if (t == "e") { r = r "\\"; i++ }
			else if (t == "&") { i++ }
			else if (substr(s, i + 1, 3) == "(aq") { r = r "\047"; i += 3 }
			else if (substr(s, i + 1, 3) == "(ga") { r = r "`"; i += 3 }
			else if (substr(s, i + 1, 3) == "(dq") { r = r "\""; i += 3 }
			else if (substr(s, i + 1, 3) == "(rs") { r = r "\\"; i += 3 }
			else { bad = bad " " substr(s, i, 4); r = r c }
		}
		return r
	}
	function emit(cmd, code) {
		n++
		if (bad != "") {
			cmd = "cat >&2 <<\047EOX\047\nunknown troff escape(s):" bad " in:\n" cmd "\nEOX\nexit 99"
			code = 0
			bad = ""
		}
		printf "%s\n", cmd > (out "/" n ".sh")
		close(out "/" n ".sh")
		printf "%s\n", code > (out "/" n ".code")
		close(out "/" n ".code")
	}
	/^\.SH/ { inex = ($0 ~ /^\.SH "?EXAMPLES"?$/); block = 0; next }
	!inex { next }
	/^\.EX/ { block = 1; next }
	/^\.EE/ { block = 0; next }
	!block { next }
	heredoc != "" {
		line = unescape($0)
		pending = pending "\n" line
		if (line == heredoc) { emit(pending, pcode); heredoc = "" }
		next
	}
	/^\$ / {
		cmd = unescape(substr($0, 3))
		code = 0
		if (match(cmd, /[ \t]+# exit [0-9]+$/)) {
			code = substr(cmd, RSTART, RLENGTH)
			sub(/.*# exit /, "", code)
			cmd = substr(cmd, 1, RSTART - 1)
		}
		if (match(cmd, /<<-?[\047"]?[A-Za-z_]+[\047"]?$/)) {
			heredoc = substr(cmd, RSTART, RLENGTH)
			gsub(/[<\047"-]/, "", heredoc)
			pending = cmd
			pcode = code
			next
		}
		emit(cmd, code)
	}
	END { if (heredoc != "") { bad = bad " (no " heredoc " line)"; emit(pending, 0) } }
	' "$1"
}

# run_examples PAGE: run the page's examples; print every mismatch.
run_examples() {
	local page=$1 dir="$BATS_TEST_TMPDIR/ex-$1" bin="$BATS_TEST_TMPDIR/bin"
	local n=1 want got failed=0 out
	extract "$MANDIR/$page" "$dir"
	mkdir -p "$bin"
	ln -sf "$ISORUN" "$bin/isorun"
	while [ -f "$dir/$n.sh" ]; do
		want=$(cat "$dir/$n.code")
		got=0
		out=$(cd "$W" && PATH="$bin:$PATH" ISORUN_ROOT="$R" \
			timeout -k 10 300 sh "$dir/$n.sh" </dev/null 2>&1) || got=$?
		if [ "$got" != "$want" ]; then
			printf '%s example %d exited %s, the page says %s:\n$ %s%s\n\n' \
				"$page" "$n" "$got" "$want" "$(cat "$dir/$n.sh")" \
				"$(printf '\n%s' "$out" | sed 's/^/    /')" >&2
			failed=$((failed + 1))
		fi
		n=$((n + 1))
	done
	echo "$((n - 1))"
	return "$failed"
}

@test "man: both pages render without a warning (groff -ww, man --warnings)" {
	require groff command -v groff
	for p in $PAGES; do
		run --separate-stderr groff -man -ww -z -Tutf8 "$MANDIR/$p"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		run --separate-stderr env MANWIDTH=80 man --warnings -l "$MANDIR/$p"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		[ -n "$output" ]
	done
}

@test "man: both pages pass mandoc's lint, style messages included (mandoc -T lint)" {
	# groff and man take a stray byte (a form feed where \f was meant) without a
	# word; mandoc names it with its line and column
	require mandoc command -v mandoc
	for p in $PAGES; do
		run mandoc -T lint "$MANDIR/$p"
		[ "$status" -eq 0 ]
		[ -z "$output" ]
	done
}

# Bytes below space other than tab and newline, and DEL: in a page they are
# garbage where an escape was meant (a shell's printf or echo -e turns \f, \b,
# \e into the control byte); in rendered text they reach the reader's terminal.
CONTROL_BYTES='[\x00-\x08\x0b-\x1f\x7f]'

@test "man: no control byte in the pages, in their rendering or in the other docs" {
	local top=$MANDIR/../.. bad p
	bad=$(LC_ALL=C grep -rlP "$CONTROL_BYTES" "$top/docs" "$top/README.md" \
		"$top/packaging" "$top/examples") || true
	[ -z "$bad" ] || {
		echo "control bytes in: $bad" >&2
		LC_ALL=C grep -rnP "$CONTROL_BYTES" $bad | cat -A | head -5 >&2
		return 1
	}
	for p in $PAGES; do
		# no pager, no overstrike: what a reader gets in a pipe
		env MANWIDTH=80 MAN_KEEP_FORMATTING= man -l "$MANDIR/$p" >"$BATS_TEST_TMPDIR/$p.txt" 2>/dev/null
		[ -s "$BATS_TEST_TMPDIR/$p.txt" ]
		if LC_ALL=C grep -qP "$CONTROL_BYTES" "$BATS_TEST_TMPDIR/$p.txt"; then
			echo "$p renders control bytes:" >&2
			LC_ALL=C grep -nP "$CONTROL_BYTES" "$BATS_TEST_TMPDIR/$p.txt" | cat -A | head -5 >&2
			return 1
		fi
	done
}

@test "man: both pages have the promised sections and this version" {
	local version s
	version=$(cat "$MANDIR/../../VERSION")
	for p in $PAGES; do
		for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES \
			"SEE ALSO"; do
			grep -Eqx "\.SH \"?$s\"?" "$MANDIR/$p" || {
				echo "$p: no section $s" >&2
				return 1
			}
		done
		grep -q "^\.TH .* \"isorun $version\"" "$MANDIR/$p" || {
			echo "$p: .TH does not say isorun $version" >&2
			return 1
		}
	done
}

@test "man: isorun(1) documents every option of --help and every subcommand" {
	local opt missing=''
	run "$ISORUN" --help
	[ "$status" -eq 0 ]
	for opt in $(grep -o -- '--[a-z][a-z-]*' <<<"$output" | sort -u); do
		grep -qF -- "${opt//-/'\-'}" "$MANDIR/isorun.1" || missing="$missing $opt"
	done
	for opt in --config --no-config shell selftest config ls gc report "policy show" "policy check" \
		--dry-run --json ISORUN_ROOT TMPDIR SHELL NO_COLOR USERPROFILE XDG_RUNTIME_DIR \
		ISORUN_NAMESPACE isorun.conf default.policy strict.policy owner lock; do
		grep -qF -- "${opt//-/'\-'}" "$MANDIR/isorun.1" || missing="$missing $opt"
	done
	[ -z "$missing" ] || {
		echo "not in isorun.1:$missing" >&2
		return 1
	}
}

@test "man: the extractor finds commands, exit codes and here-documents" {
	cat >"$BATS_TEST_TMPDIR/t.1" <<-'MAN'
	.TH T 1
	.SH DESCRIPTION
	.EX
	$ not an example
	.EE
	.SH EXAMPLES
	.EX
	$ echo \(aqa\-b\(aq  # exit 3
	output line
	$ cat > f <<\(aqEOF\(aq
	x\ey
	EOF
	$ printf \(dq%s\en\(dq \-\-x
	.EE
	.SH SEE ALSO
	.EX
	$ not an example either
	.EE
	MAN
	extract "$BATS_TEST_TMPDIR/t.1" "$BATS_TEST_TMPDIR/t"
	[ "$(cat "$BATS_TEST_TMPDIR/t/1.sh")" = "echo 'a-b'" ]
	[ "$(cat "$BATS_TEST_TMPDIR/t/1.code")" = 3 ]
	[ "$(cat "$BATS_TEST_TMPDIR/t/2.sh")" = "cat > f <<'EOF'
x\\y
EOF" ]
	[ "$(cat "$BATS_TEST_TMPDIR/t/2.code")" = 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/t/3.sh")" = 'printf "%s\n" --x' ]
	[ ! -e "$BATS_TEST_TMPDIR/t/4.sh" ]
	# an escape it does not know fails the example instead of being misread
	printf '.SH EXAMPLES\n.EX\n$ echo \\fBx\\fR\n.EE\n' >"$BATS_TEST_TMPDIR/u.1"
	extract "$BATS_TEST_TMPDIR/u.1" "$BATS_TEST_TMPDIR/u"
	run sh "$BATS_TEST_TMPDIR/u/1.sh"
	[ "$status" -eq 99 ]
	[[ "$output" == *"unknown troff escape(s): "'\fBx \fR in:'* ]]
}

@test "man: the examples of isorun-policy(5) run as shown" {
	run --separate-stderr run_examples isorun-policy.5
	[ "$status" -eq 0 ]
	[ "$output" -ge 5 ]
}

@test "man: the examples of isorun(1) run as shown" {
	run --separate-stderr run_examples isorun.1
	[ "$status" -eq 0 ]
	[ "$output" -ge 15 ]
}
