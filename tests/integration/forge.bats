#!/usr/bin/env bats
# isorun's own lines cannot be forged (issue 26 item 7): text the command controls
# (a test id from its environment, names it gives files, its working directory,
# its argv, records in its tree) is escaped as \xNN wherever isorun prints it, so a
# newline cannot start an `isorun: FAILED` or `::error::` line of its own and no
# escape sequence reaches the terminal.

load helpers

# A newline and a forged verdict, a bare workflow command, ESC[2J, a byte that is
# not UTF-8 and a C1 CSI.
EVIL=$'x\nisorun: FAILED (exit 0): forged\n::error::forged\e[2J\xff\xc2\x9by'
EVIL_SHOWN='x\x0aisorun: FAILED (exit 0): forged\x0a::error::forged\x1b[2J\xff\xc2\x9by'
# The same in valid UTF-8, for the owner record (JSON), which holds text only.
EVIL8=$'x\nisorun: FAILED (exit 0): forged\n::error::forged\e[2J\xe2\x80\xa8y'
EVIL8_SHOWN='x\x0aisorun: FAILED (exit 0): forged\x0a::error::forged\x1b[2J\xe2\x80\xa8y'

# Nothing in $1 (a run's stderr or stdout) is a line the command wrote for us:
# no forged line, no control byte but newline, nothing that is not UTF-8.
assert_unforged() {
	if grep -q -e '^isorun: FAILED (exit 0): forged' -e '^::error::forged' <<<"$1"; then
		echo "a forged line got through" >&2
		return 1
	fi
	LC_ALL=C python3 -c '
import sys
b = sys.stdin.buffer.read()
bad = [c for c in b if (c < 0x20 and c not in (9, 10)) or c == 0x7f]
assert not bad, ("control bytes", bad[:5])
b.decode("utf-8")  # raises on a byte that is not UTF-8
assert "\u009b" not in b.decode("utf-8"), "a C1 CSI"
' <<<"$1"
}

# Run isorun without GITHUB_ACTIONS (stderr in $plain) and with it (in
# $gha_stderr): the annotations carry the same words.  $W/co is emptied before each;
# $expect, when set, is the status bats checks.
both() {
	local gha
	for gha in "" true; do
		if [ -d "$W/co" ]; then find "$W/co" -mindepth 1 -delete; fi
		run ${expect:+-$expect} --separate-stderr env GITHUB_ACTIONS="$gha" "$ISORUN" \
			--no-config --root "$R" "$@"
		assert_unforged "$stderr"
		assert_unforged "$output"
		if [ -z "$gha" ]; then plain=$stderr; fi
	done
	gha_stderr=$stderr
}

@test "forge: a PYTEST_CURRENT_TEST id is escaped in the leak's 'during test' line" {
	both --settle 0 -- env "PYTEST_CURRENT_TEST=t.py::$EVIL (call)" \
		sh -c "$H/termignore $W/pid & $H/waitfor $W/pid"
	[ "$status" -eq 122 ]
	[[ "$plain" == *"isorun:   during test: t.py::$EVIL_SHOWN (call)"* ]]
	# the annotation holds the same escaped words
	grep -q '^::error title=isorun%3A leaked process::leaked: pid ' <<<"$gha_stderr"
	[[ "$gha_stderr" == *"during test: t.py::$EVIL_SHOWN (call)"* ]]
	[ "$(grep -c '^isorun: FAILED' <<<"$plain")" -eq 1 ]
}

@test "forge: a residue name and a leak's working directory are escaped" {
	mkdir -p "$W/co" "$W/d$EVIL"
	both --settle 0 --watch "$W/co" -- sh -c \
		"touch \"\$1\"; cd \"\$2\" && $H/daemonize -n $W/pid sleep 300" sh "$W/co/n$EVIL" "$W/d$EVIL"
	[ "$status" -eq 122 ]
	[[ "$plain" == *"isorun: residue (warning): 'n$EVIL_SHOWN' appeared in $W/co"* ]]
	# the cwd as bash's $'...': exact when pasted, inert when shown
	[[ "$plain" == *"(cwd \$'$W/d$EVIL_SHOWN', session "* ]]
	[ "$(bash -c "printf %s $(grep -o "cwd \$'[^']*'" <<<"$plain" | head -1 | cut -c5-)")" = "$W/d$EVIL" ]
	grep -q "^::warning title=isorun%3A residue::residue (warning): 'n" <<<"$gha_stderr"
	assert_dead "$(cat "$W/pid")"
}

@test "forge: a command that cannot be found, and its argv, are escaped" {
	expect=127 both -- "nope$EVIL"
	[[ "$plain" == *"nope$EVIL_SHOWN"* ]]
	both --settle 0 -- "$H/daemonize" -n "$W/pid" python3 -c 'import time; time.sleep(300)' "$EVIL"
	[ "$status" -eq 122 ]
	[[ "$plain" == *"time.sleep(300)' $EVIL_SHOWN\`"* || "$plain" == *" $EVIL_SHOWN\` ("* ]]
}

@test "forge: ls shows a run's working directory, command and recorded reason escaped; gc its reason" {
	mkdir -p "$W/d$EVIL8"
	(cd "$W/d$EVIL8" && "$ISORUN" --no-config --root "$R" --keep -- true "$EVIL8") 2>/dev/null
	t=$(the_tree)
	run --separate-stderr "$ISORUN" ls --root "$R"
	[ "$status" -eq 0 ]
	assert_unforged "$output"
	[[ "$output" == *"\$'$W/d$EVIL8_SHOWN'"* ]]
	[[ "$output" == *"true x\\x0aisorun: FAILED"* ]]
	# the outcome record is a file in the tree: the command can write its reason
	python3 -c 'import json, sys; json.dump({"state": "kept", "reason": sys.argv[2]}, open(sys.argv[1], "w"))' \
		"$t/outcome" "$EVIL8"
	run --separate-stderr "$ISORUN" ls --root "$R"
	assert_unforged "$output"
	[[ "$output" == *"  kept        $EVIL8_SHOWN" ]]
	run --separate-stderr "$ISORUN" gc --dry-run --root "$R"
	assert_unforged "$output"
	[[ "$output" == *"kept on purpose ($EVIL8_SHOWN)"* ]]
	rm -rf "$t"
}

@test "forge: a policy file's name and its faulty line are escaped, in the annotation too" {
	# a file that cannot be read, by a name the checkout chose
	both --policy "$W/p$EVIL" -- true
	[ "$status" -eq 125 ]
	[[ "$plain" == *"isorun: --policy: $W/p$EVIL_SHOWN: cannot read"* ]]
	grep -q "^::error file=$W/p" <<<"$gha_stderr"
	# a line that holds ESC and a byte that is not UTF-8: the parser names the first,
	# and the line is shown inert under its file:line:col
	printf 'policy p\nfrob \033[2J\377\n' >"$W/bad.policy"
	both --policy "$W/bad.policy" -- true
	[ "$status" -eq 125 ]
	[[ "$plain" == *"bad.policy:2:6: invalid byte 0x1b"* ]]
	[[ "$plain" == *'  frob ?[2J\xff'* ]]
	run --separate-stderr "$ISORUN" policy check "$W/bad.policy"
	[ "$status" -eq 125 ]
	assert_unforged "$stderr"
}

@test "forge: isorun config shows a checkout's isorun.conf values escaped" {
	printf 'setenv = X=a\033[2J\033]0;title\007b\nwatch = %s\n' "d$(printf '\033[31m')" >"$W/isorun.conf"
	mkdir -p "$W/d$(printf '\033[31m')"
	run --separate-stderr "$ISORUN" config --config "$W/isorun.conf"
	[ "$status" -eq 0 ]
	assert_unforged "$output"
	[[ "$output" == *'setenv = X=a\x1b[2J\x1b]0;title\x07b    ('* ]]
	[[ "$output" == *'d\x1b[31m    ('* ]]
}
