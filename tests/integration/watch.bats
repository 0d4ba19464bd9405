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

@test "gitignore: a .gitignore the command writes or changes is not applied, and the run says so" {
	require "git" git --version
	make_checkout
	# a new .gitignore that ignores everything, itself included
	run --separate-stderr iso --watch "$W/co" --residue=fail -- sh -c \
		"mkdir $W/co/sub && echo '*' >$W/co/sub/.gitignore && touch $W/co/sub/junk"
	[ "$status" -eq 122 ]
	grep -qxF "isorun: residue: 'sub/' appeared in $W/co" <<<"$stderr"
	grep -qxF "isorun: residue: .gitignore not applied in $W/co (a .gitignore or .git/info/exclude changed during the run)" <<<"$stderr"
	rm -rf "$W/co/sub"
	# the top one edited in place, and .git/info/exclude: the same
	for f in .gitignore .git/info/exclude; do
		run --separate-stderr iso --watch "$W/co" --residue=fail -- sh -c \
			"echo 'junk*' >>$W/co/$f && touch $W/co/junk.$RANDOM"
		[ "$status" -eq 122 ]
		[[ "$stderr" == *"isorun: residue: 'junk."* ]]
		[[ "$stderr" == *"changed during the run"* ]]
		git -C "$W/co" checkout -q -- .gitignore 2>/dev/null || true
		rm -f "$W/co"/junk.*
	done
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

# git_stub BODY: a directory holding a `git` that runs BODY (sh), first in PATH
git_stub() {
	mkdir -p "$W/stub"
	printf '#!/bin/sh\n%s\n' "$1" >"$W/stub/git"
	chmod +x "$W/stub/git"
}

@test "gitignore: git missing, failing or hanging: the residue is reported as before, with a note" {
	require "git" git --version
	make_checkout
	# missing: a PATH with the command's tools and no git
	mkdir "$W/nogit"
	ln -s "$(command -v touch)" "$W/nogit/touch"
	run --separate-stderr env PATH="$W/nogit" "$ISORUN" --no-config --root "$R" \
		--watch "$W/co" --residue=fail --report "$W/r.json" -- touch "$W/co/a.o"
	[ "$status" -eq 122 ]
	grep -qxF "isorun: residue: 'a.o' appeared in $W/co" <<<"$stderr"
	grep -qxF "isorun: residue: .gitignore not applied in $W/co (git not found in PATH)" <<<"$stderr"
	python3 - "$W/r.json" "$W/co" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["residue_ignored"]["not_applied"] == [{"dir": sys.argv[2], "reason": "git not found in PATH"}], r
PY
	rm "$W/co/a.o"
	# failing, with its message
	git_stub 'cat >/dev/null; echo "fatal: out of cheese" >&2; exit 128'
	run --separate-stderr env PATH="$W/stub:$PATH" "$ISORUN" --no-config --root "$R" \
		--watch "$W/co" -- touch "$W/co/b.o"
	[ "$status" -eq 0 ]
	grep -qxF "isorun: residue (warning): 'b.o' appeared in $W/co" <<<"$stderr"
	grep -qxF "isorun: residue: .gitignore not applied in $W/co (git check-ignore exited 128: fatal: out of cheese)" <<<"$stderr"
	rm "$W/co/b.o"
	# hanging, with a child of its own: killed at the deadline, group and all
	git_stub "sleep 1000 & echo \$! >$W/stub/child; wait"
	run --separate-stderr timeout 60 env PATH="$W/stub:$PATH" "$ISORUN" --no-config \
		--root "$R" --watch "$W/co" -- touch "$W/co/c.o"
	[ "$status" -eq 0 ]
	grep -qxF "isorun: residue: .gitignore not applied in $W/co (git check-ignore did not answer in 5000 ms)" <<<"$stderr"
	# gone, or a zombie its new parent has not reaped yet
	st=$(ps -o stat= -p "$(cat "$W/stub/child")" || true)
	[[ -z "$st" || "$st" == Z* ]]
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
