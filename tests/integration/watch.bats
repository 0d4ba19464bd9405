#!/usr/bin/env bats
# Issue 29 items 5 and 6: --watch honours the checkout's .gitignore and
# --watch-ignore; what a run writes in its private home is reported.

load helpers

# A git checkout at $W/co whose .gitignore names a C project's build products,
# and whose make check builds them.
make_checkout() {
	mkdir -p "$W/co"
	git -C "$W/co" init -q
	printf 'int main(void) { return 0; }\n' >"$W/co/prog.c"
	printf 'check: prog\n\t./prog\nprog: prog.o\n\t$(CC) -o $@ prog.o\nprog.o: prog.c\n\t$(CC) -c prog.c\n' \
		>"$W/co/Makefile"
	printf '*.o\n/prog\nbuild/\n' >"$W/co/.gitignore"
	git -C "$W/co" add -A
	git -C "$W/co" -c user.name=t -c user.email=t@t commit -qm init
}

@test "--watch . --residue=fail -- make check passes when .gitignore names the build products; an unignored new file still fails" {
	require "git" git --version
	require "make and cc" sh -c 'command -v make && command -v cc'
	make_checkout
	cd "$W/co"
	run --separate-stderr iso --watch . --residue=fail --report "$W/r.json" -- make check
	[ "$status" -eq 0 ]
	[ -f prog.o ] && [ -f prog ]
	[[ "$stderr" != *residue* ]]
	python3 - "$W/r.json" "$W/co" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["residue"] == [], r["residue"]
got = {(e["dir"], e["path"], e["by"]) for e in r["residue_ignored"]["entries"]}
assert got == {(sys.argv[2], "prog.o", ".gitignore:1:*.o"), (sys.argv[2], "prog", ".gitignore:2:/prog")}, got
assert r["residue_ignored"]["not_applied"] == [], r
PY
	# the same build leaving a file .gitignore does not name: residue, and it fails
	make clean >/dev/null 2>&1 || rm -f prog prog.o
	run --separate-stderr iso --watch . --residue=fail -- sh -c 'make check >/dev/null && touch stray.log'
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"isorun: residue: 'stray.log' appeared in ."* ]]
	[[ "$stderr" != *prog* ]]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 122): 1 new entry in watched directories" ]
}

@test "gitignore: a new directory of ignored files is not residue; one with an unignored file is named once; a negation keeps an entry residue" {
	require "git" git --version
	make_checkout
	printf '!keep.o\n' >>"$W/co/.gitignore"
	run --separate-stderr iso --watch "$W/co" --residue=fail -v -- sh -c \
		"cd $W/co && mkdir -p objs/deep build mixed && touch objs/a.o objs/deep/b.o build/x mixed/m.o mixed/notes keep.o"
	[ "$status" -eq 122 ]
	grep -qxF "isorun: residue: 'mixed/' appeared in $W/co" <<<"$stderr"
	grep -qxF "isorun: residue: 'keep.o' appeared in $W/co" <<<"$stderr"
	[ "$(grep -c 'isorun: residue: ' <<<"$stderr")" -eq 2 ]
	# -v names what was ignored, with the rule, the topmost entry only
	grep -qxF "isorun: residue ignored: 'build/' in $W/co (.gitignore:3:build/)" <<<"$stderr"
	grep -qxF "isorun: residue ignored: 'objs/a.o' in $W/co (.gitignore:1:*.o)" <<<"$stderr"
	grep -qxF "isorun: residue ignored: 'mixed/m.o' in $W/co (.gitignore:1:*.o)" <<<"$stderr"
	[[ "$stderr" != *"'build/x'"* ]]
}

@test "gitignore: a .gitignore the command writes or changes is never read: the rules that stood before the run are applied" {
	require "git" git --version
	make_checkout
	mkdir "$W/co/src"
	# a new .gitignore that ignores everything, itself included, in a new directory
	run --separate-stderr iso --watch "$W/co" --residue=fail -- sh -c \
		"mkdir $W/co/sub && echo '*' >$W/co/sub/.gitignore && touch $W/co/sub/junk"
	[ "$status" -eq 122 ]
	grep -qxF "isorun: residue: 'sub/' appeared in $W/co" <<<"$stderr"
	[[ "$stderr" != *"not applied"* ]]
	rm -rf "$W/co/sub"
	# ... and in a directory that was there before: the file and what it names are residue
	run --separate-stderr iso --watch "$W/co" --residue=fail -- sh -c \
		"echo '*' >$W/co/src/.gitignore && touch $W/co/src/junk $W/co/src/a.o"
	[ "$status" -eq 122 ]
	grep -qxF "isorun: residue: 'src/.gitignore' appeared in $W/co" <<<"$stderr"
	grep -qxF "isorun: residue: 'src/junk' appeared in $W/co" <<<"$stderr"
	[ "$(grep -c 'isorun: residue: ' <<<"$stderr")" -eq 2 ]
	[[ "$stderr" != *"not applied"* ]]
	rm -f "$W/co/src/.gitignore" "$W/co/src/junk" "$W/co/src/a.o"
	# the top one edited in place, and .git/info/exclude: the new line is not read, the old
	# lines still are (a.o stays ignored)
	for f in .gitignore .git/info/exclude; do
		run --separate-stderr iso --watch "$W/co" --residue=fail --report "$W/r.json" -- sh -c \
			"echo 'junk*' >>$W/co/$f && touch $W/co/junk.$RANDOM $W/co/a.o"
		[ "$status" -eq 122 ]
		[[ "$stderr" == *"isorun: residue: 'junk."* ]]
		[ "$(grep -c 'isorun: residue: ' <<<"$stderr")" -eq 1 ]
		[[ "$stderr" != *"not applied"* ]]
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert [e["by"] for e in r["residue_ignored"]["entries"]] == [".gitignore:1:*.o"], r; assert r["residue_ignored"]["not_applied"] == [], r' "$W/r.json"
		git -C "$W/co" checkout -q -- .gitignore 2>/dev/null || true
		rm -f "$W/co"/junk.* "$W/co/a.o"
	done
	# removed during the run: still applied as it was
	run --separate-stderr iso --watch "$W/co" --residue=fail -- sh -c "rm $W/co/.gitignore && touch $W/co/a.o"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"not applied"* ]]
}

@test "gitignore: a fresh pytest checkout passes --watch . --residue=fail: pytest's own .pytest_cache/.gitignore changes nothing" {
	require "git" git --version
	mkdir -p "$W/co/tests"
	git -C "$W/co" init -q
	printf '__pycache__/\n.pytest_cache/\n' >"$W/co/.gitignore"
	printf 'def test_x():\n    pass\n' >"$W/co/tests/test_x.py"
	cd "$W/co"
	# what pytest writes on its first run in a fresh checkout (not pytest itself: not needed)
	run --separate-stderr iso --watch . --residue=fail --report "$W/r.json" -v -- sh -c '
		mkdir -p __pycache__ tests/__pycache__ .pytest_cache/v/cache
		touch tests/__pycache__/test_x.cpython-311-pytest-8.0.0.pyc __pycache__/conftest.cpython-311.pyc
		printf "# Created by pytest automatically.\n*\n" >.pytest_cache/.gitignore
		printf "Signature: 8a477f597d28d172789f06886806bc55\n" >.pytest_cache/CACHEDIR.TAG
		printf "# pytest cache directory #\n" >.pytest_cache/README.md
		printf "[]\n" >.pytest_cache/v/cache/nodeids'
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"isorun: residue: "* ]]
	grep -qxF "isorun: residue ignored: '.pytest_cache/' in . (.gitignore:2:.pytest_cache/)" <<<"$stderr"
	grep -qxF "isorun: residue ignored: '__pycache__/' in . (.gitignore:1:__pycache__/)" <<<"$stderr"
	grep -qxF "isorun: residue ignored: 'tests/__pycache__/' in . (.gitignore:1:__pycache__/)" <<<"$stderr"
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["residue"] == [], r; assert r["residue_ignored"]["not_applied"] == [], r' "$W/r.json"
	# the same new .gitignore where the checkout does not name the directory: it is residue
	rm -rf .pytest_cache __pycache__ tests/__pycache__
	printf '__pycache__/\n' >"$W/co/.gitignore"
	run --separate-stderr iso --watch . --residue=fail -- sh -c '
		mkdir -p .pytest_cache/v && printf "*\n" >.pytest_cache/.gitignore && touch .pytest_cache/v/x'
	[ "$status" -eq 122 ]
	grep -qxF "isorun: residue: '.pytest_cache/' appeared in ." <<<"$stderr"
	[[ "$stderr" != *"not applied"* ]]
}

@test "gitignore: a new entry that no rule ignores is residue, and nothing says the rules were not applied" {
	require "git" git --version
	make_checkout
	run --separate-stderr iso --watch "$W/co" --report "$W/r.json" -- touch "$W/co/notes.txt"
	[ "$status" -eq 0 ]
	grep -qxF "isorun: residue (warning): 'notes.txt' appeared in $W/co" <<<"$stderr"
	[[ "$stderr" != *"not applied"* ]]
	[[ "$stderr" != *"check-ignore"* ]]
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["residue_ignored"]["not_applied"] == [], r; assert r["residue_ignored"]["entries"] == [], r' "$W/r.json"
	# the same with --residue=fail, and with one ignored entry beside it
	run --separate-stderr iso --watch "$W/co" --residue=fail --report "$W/r.json" -- touch "$W/co/more.txt" "$W/co/x.o"
	[ "$status" -eq 122 ]
	[[ "$stderr" != *"not applied"* ]]
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["residue_ignored"]["not_applied"] == [], r' "$W/r.json"
}

@test "gitignore: the checkout's git config cannot make isorun run a program (core.fsmonitor), nor point at another excludes file" {
	require "git" git --version
	make_checkout
	printf '#!/bin/sh\ntouch %s/pwned\n' "$W" >"$W/fsmonitor"
	chmod +x "$W/fsmonitor"
	git -C "$W/co" config core.fsmonitor "$W/fsmonitor"
	printf 'secret*\n' >"$W/excludes"
	git -C "$W/co" config core.excludesFile "$W/excludes"
	# control: the git here does run it for check-ignore, so the vector is real
	printf 'x.o\0' | git -C "$W/co" check-ignore --stdin -z >/dev/null
	[ -e "$W/pwned" ]
	rm "$W/pwned"
	run --separate-stderr iso --watch "$W/co" -- touch "$W/co/x.o" "$W/co/secret.txt"
	[ "$status" -eq 0 ]
	[ ! -e "$W/pwned" ]
	grep -qxF "isorun: residue (warning): 'secret.txt' appeared in $W/co" <<<"$stderr"
	[[ "$stderr" != *x.o* ]]
}

@test "gitignore: the command cannot steer git: a ./git it wrote is not run through a relative PATH entry; a name like :(top)prog is that name" {
	require "git" git --version
	make_checkout
	cd "$W/co"
	# the checkout's own ./git, and a PATH whose first entry is the working directory
	run --separate-stderr env PATH=".:$PATH" "$ISORUN" --no-config --root "$R" --watch . --residue=fail -- \
		sh -c 'printf "#!/bin/sh\ntouch %s/pwned\nexit 1\n" "$1" >git && chmod +x git && touch "./:(top)prog" a.o' sh "$W"
	[ "$status" -eq 122 ]
	[ ! -e "$W/pwned" ]
	# git answered (a.o is ignored); pathspec magic would have made the name "prog"
	[ "$(grep -c 'isorun: residue: ' <<<"$stderr")" -eq 2 ]
	grep -qxF "isorun: residue: ':(top)prog' appeared in ." <<<"$stderr"
	grep -qxF "isorun: residue: 'git' appeared in ." <<<"$stderr"
	[[ "$stderr" != *"not applied"* ]]
}

# plant NAME...: in $W/co/.venv/bin (a PATH entry inside the checkout, as an activated
# virtualenv is), a NAME that would leave $W/pwned-NAME if anything ran it
plant() {
	mkdir -p "$W/co/.venv/bin"
	for n in "$@"; do
		printf '#!/bin/sh\ntouch %s/pwned-%s\nexit 0\n' "$W" "$n" >"$W/co/.venv/bin/$n"
		chmod 755 "$W/co/.venv/bin/$n"
	done
}

@test "helpers: a git, newuidmap or newgidmap planted in a PATH entry inside the checkout is never run; without git the rules still apply" {
	require "git" git --version
	make_checkout
	printf '.venv/\n' >>"$W/co/.gitignore"
	plant git newuidmap newgidmap
	# the command writes them too, during the run, as a suite that installs its tools does
	run --separate-stderr env PATH="$W/co/.venv/bin:$PATH" "$ISORUN" --no-config --root "$R" \
		--watch "$W/co" --residue=fail --report "$W/r.json" -- sh -c \
		"printf '#!/bin/sh\ntouch $W/pwned-late\n' >$W/co/.venv/bin/git; touch $W/co/a.o"
	[ -z "$(ls "$W" | grep pwned)" ]
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"not applied"* ]]
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert [e["by"] for e in r["residue_ignored"]["entries"]] == [".gitignore:1:*.o"], r' "$W/r.json"
	rm -f "$W/co/a.o"
	# --map-users looks for its setuid helpers where only root can write, never in PATH
	run --separate-stderr env PATH="$W/co/.venv/bin:$PATH" "$ISORUN" --no-config --root "$R" \
		--pidns=try --map-users=auto -- true
	[ -z "$(ls "$W" | grep pwned)" ]
	# no git anywhere in PATH: nothing is missing, nothing is said
	mkdir "$W/nogit"
	ln -s "$(command -v touch)" "$W/nogit/touch"
	run --separate-stderr env PATH="$W/nogit" "$ISORUN" --no-config --root "$R" \
		--watch "$W/co" --residue=fail -- touch "$W/co/a.o" "$W/co/b.txt"
	[ "$status" -eq 122 ]
	[ "$(grep -c 'isorun: residue: ' <<<"$stderr")" -eq 1 ]
	grep -qxF "isorun: residue: 'b.txt' appeared in $W/co" <<<"$stderr"
	[[ "$stderr" != *"not applied"* ]]
}

@test "gitignore: a rule file too large to read is not applied, with a note; a symlinked .gitignore is not read, as git does" {
	require "git" git --version
	make_checkout
	mkdir "$W/co/big" "$W/co/ln"
	head -c 1100000 /dev/zero | tr '\0' '\n' >"$W/co/big/.gitignore"
	run --separate-stderr iso --watch "$W/co" --residue=fail --report "$W/r.json" -- touch "$W/co/a.o"
	[ "$status" -eq 122 ]
	grep -qxF "isorun: residue: 'a.o' appeared in $W/co" <<<"$stderr"
	grep -qxF "isorun: residue: .gitignore not applied in $W/co ('big/.gitignore' is larger than 1048576 bytes)" <<<"$stderr"
	python3 - "$W/r.json" "$W/co" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["residue_ignored"]["not_applied"] == [{"dir": sys.argv[2], "reason": "'big/.gitignore' is larger than 1048576 bytes"}], r
PY
	rm -rf "$W/co/big" "$W/co/a.o"
	printf '*\n' >"$W/rules"
	ln -s "$W/rules" "$W/co/ln/.gitignore"
	run --separate-stderr iso --watch "$W/co" --residue=fail -- touch "$W/co/ln/x"
	[ "$status" -eq 122 ]
	grep -qxF "isorun: residue: 'ln/x' appeared in $W/co" <<<"$stderr"
	# control: git does not read it either
	! git -C "$W/co" check-ignore -q ln/x 2>/dev/null
}

@test "gitignore: isorun's verdict and rule are git check-ignore's, for every kind of pattern, in nested .gitignore files and info/exclude" {
	require "git" git --version
	make_checkout
	cd "$W/co"
	printf '%s\n' '!keep.o' '/anch' 'doc/*.txt' '**/deep' 'a/**/z' 'logs/**' '*.[ch]~' '[!m]x' \
		'\#hash' '\!bang' 'trail\ ' 'sp   ' '[[:digit:]]n' 'q?' '# comment' '' 'star*/in' \
		'[a-c]r' 'x[]]y' 'mid/**' '**/two/**/end' 'esc\*' 'dirs/' 'neg*' '!neg1' >>.gitignore
	printf 'excl*\n' >.git/info/exclude
	mkdir -p doc/s a/b/c logs/l sub/x mid/m dirs two/p/q starA neg
	printf '%s\r\n' '*.tmp' '!important.tmp' '/only' 'x/y' '*.o' 'logs' >sub/.gitignore
	printf '!*.o\n' >a/.gitignore
	paths=(a.o keep.o anch sub/anch doc/r.txt doc/s/r.txt deep doc/deep a/z a/b/c/z logs/f logs/l/g
		x.c~ ax mx '#hash' '!bang' 'trail ' sp 1n 9n qq q starA/in sub/t.tmp sub/important.tmp
		sub/only sub/x/y excl1 sub/excl2 a/k.o sub/k.o 'x]y' cr mid/m/f two/p/q/end two/end
		'esc*' escx dirs/f dirs2 neg1 neg2 neg/f sub/logs)
	run --separate-stderr iso --watch "$W/co" --report "$W/r.json" -- sh -c 'for p; do touch "$p"; done' sh "${paths[@]}"
	[ "$status" -eq 0 ]
	printf '%s\0' "${paths[@]}" | git check-ignore --stdin -z -v -n >"$W/git.out" || true
	python3 - "$W/r.json" "$W/git.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = open(sys.argv[2], "rb").read().decode().split("\0")[:-1]
want = {}
for i in range(0, len(f), 4):
    src, line, pat, path = f[i:i + 4]
    want[path] = f"{src}:{line}:{pat}" if src and not pat.startswith("!") else None
got = {e["path"]: e["by"] for e in r["residue_ignored"]["entries"]}
got.update({e["path"]: None for e in r["residue"]})
bad = {p: (want[p], got.get(p, "absent")) for p in want if want[p] != got.get(p, "absent")}
assert not bad, bad
assert sum(1 for v in want.values() if v) > 20, want
PY
}

@test "--watch-ignore GLOB: a name at any depth, a path from the watched directory, directories only with a trailing slash; without git" {
	mkdir -p "$W/co/src"
	run --separate-stderr iso --watch "$W/co" --residue=fail \
		--watch-ignore '*.pyc' --watch-ignore /out --watch-ignore 'cache/' --watch-ignore 'src/gen-*' \
		--report "$W/r.json" -- sh -c "cd $W/co && mkdir -p out pkg/__pycache__ src/cache && touch a.pyc pkg/__pycache__/b.pyc out/x src/gen-1.c src/gen-2.c src/out cache src/cache/z"
	# src/out: /out is anchored; the file cache: cache/ is for directories; pkg/
	# holds only ignored files: neither residue nor named, its ignored file is
	[ "$status" -eq 122 ]
	[ "$(grep -c 'isorun: residue: ' <<<"$stderr")" -eq 2 ]
	grep -qxF "isorun: residue: 'src/out' appeared in $W/co" <<<"$stderr"
	grep -qxF "isorun: residue: 'cache' appeared in $W/co" <<<"$stderr"
	python3 - "$W/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
got = {(e["path"], e["by"]) for e in r["residue_ignored"]["entries"]}
want = {("a.pyc", "--watch-ignore *.pyc"), ("pkg/__pycache__/b.pyc", "--watch-ignore *.pyc"),
        ("out/", "--watch-ignore /out"), ("src/cache/", "--watch-ignore cache/"),
        ("src/gen-1.c", "--watch-ignore src/gen-*"), ("src/gen-2.c", "--watch-ignore src/gen-*")}
assert got == want, got
PY
}

@test "watch-ignore = in isorun.conf is taken under a command-line --residue=fail, and the report names its file and line" {
	mkdir -p "$W/co"
	printf 'watch = .\n# products\nwatch-ignore = *.o\n' >"$W/co/isorun.conf"
	cd "$W/co"
	run --separate-stderr "$ISORUN" --root "$R" --residue=fail --report "$W/r.json" -- touch a.o b.txt
	[ "$status" -eq 122 ]
	grep -qxF "isorun: residue: 'b.txt' appeared in $W/co" <<<"$stderr"
	python3 - "$W/r.json" "$W/co" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = r["residue_ignored"]["entries"]
assert e == [{"dir": sys.argv[2], "path": "a.o", "by": sys.argv[2] + "/isorun.conf:3: watch-ignore = *.o"}], e
PY
	run "$ISORUN" config
	[[ "$output" == *"watch-ignore"*"*.o"* ]]
}

@test "--watch-ignore: an empty glob or a negation is refused with 125 naming it; without --watch it is said to do nothing" {
	run --separate-stderr iso --watch "$W" --watch-ignore '' -- true
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: --watch-ignore: empty glob (give a name, e.g. build/ or *.o)" ]
	run --separate-stderr iso --watch "$W" --watch-ignore '!keep.o' -- true
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: --watch-ignore '!keep.o': a negation is not taken"* ]]
	printf 'watch-ignore = !x\n' >"$W/bad.conf"
	run --separate-stderr "$ISORUN" --config "$W/bad.conf" --root "$R" -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"bad.conf:1"*"watch-ignore '!x': a negation is not taken"* ]]
	run --separate-stderr iso --watch-ignore '*.o' -- true
	[ "$status" -eq 0 ]
	[ "$stderr" = "isorun: warning: --watch-ignore has no effect without --watch" ]
}

@test "an ignored entry whose name holds a newline and a terminal escape: escaped on stderr, exact in the report" {
	mkdir -p "$W/co"
	run --separate-stderr iso --watch "$W/co" --watch-ignore '*.tmp' -v --report "$W/r.json" \
		--junit "$W/j.xml" -- sh -c "touch \"$W/co/a\$(printf '\\n\\033[2J')b.tmp\""
	[ "$status" -eq 0 ]
	[[ "$stderr" != *$'\033'* ]]
	[[ "$stderr" == *"residue ignored: "*"b.tmp"* ]]
	python3 - "$W/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [e["path"] for e in r["residue_ignored"]["entries"]] == ["a\n\x1b[2Jb.tmp"], r
PY
}

# ---- item 6: the private home ----

@test "home: a file written through \$HOME is in the report (not ~/.cache); --watch-home names it on stderr" {
	run --separate-stderr iso --report "$W/r.json" -- sh -c \
		'git config --global user.name x 2>/dev/null || echo x >"$HOME/.gitconfig"; mkdir -p "$HOME/.cache/pip" "$XDG_CONFIG_HOME/tool"; touch "$HOME/.cache/pip/wheel" "$XDG_CONFIG_HOME/tool/rc"'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	python3 - "$W/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["home_writes"] == {"paths": [".config/tool/rc", ".gitconfig"], "more": 0, "incomplete": None}, r["home_writes"]
PY
	run --separate-stderr iso --watch-home -- sh -c 'echo x >"$HOME/.gitconfig"'
	[ "$status" -eq 0 ]
	[ "$stderr" = "isorun: home write: '.gitconfig' written in the private home" ]
	# a run that writes nothing there: an empty list, and nothing said
	run --separate-stderr iso --watch-home --report "$W/r.json" -- true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["home_writes"]; assert h == {"paths": [], "more": 0, "incomplete": None}, h' "$W/r.json"
}

@test "home: under --protect-home=ro and --pidns the private home's writes are reported the same" {
	require "user namespaces" "$ISORUN" --no-config --root "$R" --pidns -- true
	for opt in --pidns --protect-home=ro; do
		run --separate-stderr iso "$opt" --watch-home --report "$W/r.json" -- sh -c 'echo x >"$HOME/.npmrc"'
		[ "$status" -eq 0 ]
		[[ "$stderr" == *"isorun: home write: '.npmrc' written in the private home"* ]]
		python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["home_writes"]; assert h["paths"] == [".npmrc"], h' "$W/r.json"
	done
}

@test "home: a symlink is named, never followed; a name with a newline is escaped on stderr and exact in the report and JUnit" {
	mkdir -p "$W/outside/deep"
	touch "$W/outside/deep/f"
	run --separate-stderr iso --watch-home --report "$W/r.json" --junit "$W/j.xml" -- sh -c \
		"ln -s $W/outside \"\$HOME/out\"; touch \"\$HOME/a\$(printf '\\n\\033[2J')b\""
	[ "$status" -eq 0 ]
	[[ "$stderr" != *$'\033'* ]]
	grep -qxF "isorun: home write: 'out' written in the private home" <<<"$stderr"
	[ "$(grep -c 'home write' <<<"$stderr")" -eq 2 ]
	python3 - "$W/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["home_writes"]["paths"] == ["a\n\x1b[2Jb", "out"], r["home_writes"]
PY
}

@test "home: the walk is bounded: too many entries or too deep says incomplete; the files past 1000 are counted" {
	run --separate-stderr iso --watch-home --report "$W/r.json" -- sh -c \
		'mkdir "$HOME/many" && cd "$HOME/many" && seq 1 20001 | xargs touch'
	[ "$status" -eq 0 ]
	grep -qxF "isorun: home write: not all seen (more than 20000 entries)" <<<"$stderr"
	python3 - "$W/r.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["home_writes"]
assert len(h["paths"]) == 1000 and h["more"] > 0 and h["incomplete"] == "more than 20000 entries", (len(h["paths"]), h["more"], h["incomplete"])
PY
	run --separate-stderr iso --report "$W/r.json" -- sh -c \
		'd="$HOME"; for i in $(seq 1 40); do d="$d/d"; done; mkdir -p "$d" && touch "$d/f" "$HOME/top"'
	[ "$status" -eq 0 ]
	python3 - "$W/r.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["home_writes"]
assert h["paths"] == ["top"] and h["incomplete"] == "deeper than 32 levels", h
PY
}
