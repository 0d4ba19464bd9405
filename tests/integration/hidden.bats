#!/usr/bin/env bats
# What the run's mounts hide from the command is named (issue 27 item 3):
# --private-tmp covers /tmp and /var/tmp but for the tree and the working
# directory, --protect-home=hide covers the real home but for the tree and each
# --writable DIR.  A command found there fails with 127 and the line names the
# option; paths in the arguments, PATH and LD_LIBRARY_PATH that it hides get one
# line per option before the start.  Controls: a path outside the covered
# directories, one that does not exist on the host, --protect-home=ro (hides
# nothing) and the runs without the option say nothing of the kind.

load helpers

userns_ok() {
	unshare -Urpf --mount-proc --propagation slave true
}

# A directory under /tmp (or /var/tmp), outside the tree and the working
# directory: bats' own temporary directory lies there unless TMPDIR moves it.
hidden_dir() {
	case $BATS_TEST_TMPDIR in
	/tmp/* | /var/tmp/*) ;;
	*) skip "BATS_TEST_TMPDIR ($BATS_TEST_TMPDIR) is not under /tmp" ;;
	esac
	T="$BATS_TEST_TMPDIR/hid"
	mkdir -p "$T"
	printf '#!/bin/sh\necho hidden-tool\n' >"$T/tool"
	chmod +x "$T/tool"
}

TMP_WHY="(of /tmp and /var/tmp only the working directory and the tree stay visible)"

warned() {
	grep -c "hides from the command" <<<"$stderr" || true
}

@test "--private-tmp: a command under /tmp fails with 127 and the line names the option" {
	require "user and PID namespaces" userns_ok
	hidden_dir
	cd /
	run -127 --separate-stderr iso --private-tmp -- "$T/tool"
	[ "$status" -eq 127 ]
	[ "${stderr_lines[0]}" = "isorun: cannot run the command: $T/tool: No such file or directory; --private-tmp hides $T from the command $TMP_WHY" ]
	[ "${stderr_lines[1]}" = "isorun: FAILED (exit 127): command not found" ]
	# the report carries the same words
	run -127 --separate-stderr iso --private-tmp --report "$W/r.json" -- "$T/tool"
	[ "$status" -eq 127 ]
	[[ "$(jq -r .result.exec_error "$W/r.json")" == *"--private-tmp hides $T from the command"* ]]
	# control: without the option it runs and nothing is said
	run --separate-stderr iso -- "$T/tool"
	[ "$status" -eq 0 ]
	[ "$output" = hidden-tool ]
	[ -z "$stderr" ]
	# control: a command that is nowhere keeps the plain line
	run -127 --separate-stderr iso --private-tmp -- "$T/nosuch"
	[ "$status" -eq 127 ]
	[ "${stderr_lines[0]}" = "isorun: cannot run the command: $T/nosuch: No such file or directory" ]
	assert_no_tree
}

@test "--private-tmp: found through PATH under /tmp: 127 names it; a visible match further on runs" {
	require "user and PID namespaces" userns_ok
	hidden_dir
	cd /
	run -127 --separate-stderr env PATH="$T:/usr/bin:/bin" "$ISORUN" --no-config --root "$R" --private-tmp -- tool
	[ "$status" -eq 127 ]
	[ "${stderr_lines[0]}" = "isorun: --private-tmp hides from the command: $T (PATH)" ]
	[ "${stderr_lines[1]}" = "isorun: cannot run the command: tool: No such file or directory in the run; PATH finds $T/tool, but --private-tmp hides $T from the command $TMP_WHY" ]
	# the command's own search would pass over the hidden entry: so does isorun's
	V=$(home_scratch)
	printf '#!/bin/sh\necho visible-tool\n' >"$V/tool"
	chmod +x "$V/tool"
	run --separate-stderr env PATH="$T:$V:/usr/bin:/bin" "$ISORUN" --no-config --root "$R" --private-tmp -- tool
	[ "$status" -eq 0 ]
	[ "$output" = visible-tool ]
	[ "$stderr" = "isorun: --private-tmp hides from the command: $T (PATH)" ]
	# control: without the option the first match runs, nothing said
	run --separate-stderr env PATH="$T:$V:/usr/bin:/bin" "$ISORUN" --no-config --root "$R" -- tool
	[ "$output" = hidden-tool ]
	[ -z "$stderr" ]
	assert_no_tree
}

@test "--private-tmp: arguments and LD_LIBRARY_PATH it hides are named before the start, one line" {
	require "user and PID namespaces" userns_ok
	hidden_dir
	echo data >"$T/data"
	cd /
	run --separate-stderr env LD_LIBRARY_PATH="$T:/usr/lib" "$ISORUN" --no-config --root "$R" --private-tmp -- \
		sh -c 'cat "$1" 2>/dev/null; exit 0' sh "$T/data" --input="$T/data" /etc/hostname "$T/not-yet" /tmp
	[ "$status" -eq 0 ]
	[ "$stderr" = "isorun: --private-tmp hides from the command: $T/data (argument 4), $T/data (argument 5), $T/not-yet (argument 7), $T (LD_LIBRARY_PATH)" ]
	# controls: what does not exist on the host (a file the suite will make in its
	# private /tmp), a path outside /tmp, /tmp itself: nothing said
	run --separate-stderr iso --private-tmp -- sh -c 'echo x >"$1" && cat "$1" /etc/hostname >/dev/null' sh /tmp/made-in-the-run
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# without the option: nothing
	run --separate-stderr env LD_LIBRARY_PATH="$T" "$ISORUN" --no-config --root "$R" -- cat "$T/data"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# -q: nothing
	run --separate-stderr iso -q --private-tmp -- cat "$T/data"
	[ "$(warned)" -eq 0 ]
	assert_no_tree
}

@test "--private-tmp: the working directory under /tmp stays visible (no word); a relative path out of it is named" {
	require "user and PID namespaces" userns_ok
	hidden_dir
	mkdir "$T/sub"
	cp "$T/tool" "$T/sub/tool"
	cd "$T/sub"
	run --separate-stderr iso --private-tmp -- ./tool "$T/sub/tool"
	[ "$status" -eq 0 ]
	[ "$output" = hidden-tool ]
	[ -z "$stderr" ]
	run -127 --separate-stderr iso --private-tmp -- ../tool
	[ "$status" -eq 127 ]
	[ "${stderr_lines[0]}" = "isorun: cannot run the command: ../tool: No such file or directory; --private-tmp hides $T/tool from the command $TMP_WHY" ]
	# --chdir keeps its directory visible as the working directory does
	cd /
	run --separate-stderr iso --private-tmp --chdir "$T/sub" -- ./tool
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	run -127 --separate-stderr iso --private-tmp --chdir "$T/sub" -- ../tool
	[ "$status" -eq 127 ]
	[[ "${stderr_lines[0]}" == *"--private-tmp hides $T/tool from the command"* ]]
	assert_no_tree
}

@test "--private-tmp: symlinks are followed as the kernel follows them" {
	require "user and PID namespaces" userns_ok
	hidden_dir
	V=$(home_scratch)
	ln -s "$T/tool" "$V/to-hidden"
	ln -s "$(type -P true)" "$T/to-visible"
	ln -s "$(type -P true)" "$V/plain"
	cd /
	# a visible link to a hidden file
	run -127 --separate-stderr iso --private-tmp -- "$V/to-hidden"
	[ "$status" -eq 127 ]
	[ "${stderr_lines[0]}" = "isorun: cannot run the command: $V/to-hidden: No such file or directory; --private-tmp hides $T from the command $TMP_WHY" ]
	# a hidden link to a visible file: the link itself is gone
	run -127 --separate-stderr iso --private-tmp -- "$T/to-visible"
	[ "$status" -eq 127 ]
	[[ "${stderr_lines[0]}" == *"; --private-tmp hides $T from the command"* ]]
	# a script whose interpreter is hidden: the kernel says ENOENT for that too
	printf '#!%s\n' "$T/tool" >"$V/script"
	chmod +x "$V/script"
	run -127 --separate-stderr iso --private-tmp -- "$V/script"
	[ "$status" -eq 127 ]
	[ "${stderr_lines[0]}" = "isorun: cannot run the command: $V/script: No such file or directory; its interpreter $T/tool: --private-tmp hides $T from the command $TMP_WHY" ]
	# relative to --chdir, not to isorun's own directory
	run -127 --separate-stderr iso --private-tmp --chdir "$V" -- ./script
	[ "${stderr_lines[0]}" = "isorun: cannot run the command: ./script: No such file or directory; its interpreter $T/tool: --private-tmp hides $T from the command $TMP_WHY" ]
	# control: a visible link to a visible file
	run --separate-stderr iso --private-tmp -- "$V/plain"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	assert_no_tree
}

@test "126 stays 126: a visible file that is not executable; a hidden one is 127 and named" {
	require "user and PID namespaces" userns_ok
	hidden_dir
	V=$(home_scratch)
	echo 'echo x' >"$V/noexec"
	echo 'echo x' >"$T/noexec"
	cd /
	run --separate-stderr iso --private-tmp -- "$V/noexec"
	[ "$status" -eq 126 ]
	[ "${stderr_lines[0]}" = "isorun: cannot run the command: $V/noexec: Permission denied" ]
	run -127 --separate-stderr iso --private-tmp -- "$T/noexec"
	[ "$status" -eq 127 ]
	[[ "${stderr_lines[0]}" == *"No such file or directory; --private-tmp hides $T from the command"* ]]
	# through PATH: the visible non-executable one is still 126, as a shell says
	run --separate-stderr env PATH="$T:$V:/usr/bin:/bin" "$ISORUN" --no-config --root "$R" --private-tmp -- noexec
	[ "$status" -eq 126 ]
	assert_no_tree
}

@test "--protect-home=hide: a command in the home is named with the fixes, and each fix works" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	printf '#!/bin/sh\necho home-tool\n' >"$D/tool"
	chmod +x "$D/tool"
	echo data >"$D/data"
	cd /
	P=$(path_outside_home)
	run -127 --separate-stderr env PATH="$P" "$ISORUN" --no-config --root "$R" --protect-home=hide -- "$D/tool"
	[ "$status" -eq 127 ]
	[ "${stderr_lines[0]}" = "isorun: cannot run the command: $D/tool: No such file or directory; --protect-home=hide hides $D from the command; add --writable $D, or use --protect-home=ro (the home visible, read-only)" ]
	# the hint's options, each added to the same command line, work
	run --separate-stderr env PATH="$P" "$ISORUN" --no-config --root "$R" --protect-home=hide --writable "$D" -- "$D/tool"
	[ "$status" -eq 0 ]
	[ "$output" = home-tool ]
	[ -z "$stderr" ]
	run --separate-stderr env PATH="$P" "$ISORUN" --no-config --root "$R" --protect-home=ro -- "$D/tool"
	[ "$status" -eq 0 ]
	[ "$output" = home-tool ]
	[ -z "$stderr" ]
	# PATH and arguments in the hidden home: one line before the start
	run --separate-stderr env PATH="$D:$P" "$ISORUN" --no-config --root "$R" --protect-home=hide -- cat "$D/data"
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = "isorun: --protect-home=hide hides from the command: $D/data (argument 1), $D (PATH)" ]
	# control: ro hides nothing; so neither line
	run --separate-stderr env PATH="$D:$P" "$ISORUN" --no-config --root "$R" --protect-home=ro -- cat "$D/data"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	assert_no_tree
}

@test "--protect-home=hide: a --chdir into the hidden home keeps its own line, not an echo of every relative path" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	echo data >"$D/data"
	cd /
	run --separate-stderr env PATH="$(path_outside_home)" "$ISORUN" --no-config --root "$R" --protect-home=hide --chdir "$D" -- cat ./data
	[ "$status" -eq 125 ]
	[ "$(warned)" -eq 0 ]
	[[ "$stderr" == *"enter the working directory '$D' under --protect-home=hide"* ]]
	assert_no_tree
}

@test "isorun shell: a SHELL under /tmp that --private-tmp hides is named" {
	require "user and PID namespaces" userns_ok
	hidden_dir
	cp "$(type -P sh)" "$T/mysh"
	cd /
	run -127 --separate-stderr env SHELL="$T/mysh" "$ISORUN" shell --no-config --root "$R" --private-tmp </dev/null
	[ "$status" -eq 127 ]
	[[ "$stderr" == *"isorun: cannot run the command: $T/mysh: No such file or directory; --private-tmp hides $T from the command $TMP_WHY"* ]]
	# the shell's tree is always kept: remove it
	rm -rf "${U:?}"/*
	# control: a visible SHELL starts
	run --separate-stderr env SHELL="$(type -P sh)" "$ISORUN" shell --no-config --root "$R" --private-tmp </dev/null
	[ "$status" -eq 0 ]
	[ "$(warned)" -eq 0 ]
	rm -rf "${U:?}"/*
	assert_no_tree
}

# Issue 39 item 16: a /tmp path inside an argument (an `sh -c` string, a list)
# was hidden without a word, and a failing run got no line tying it to
# --private-tmp, where --protect-home gets one.

tmp_note() {
	printf '%s' "isorun: /tmp and /var/tmp were the run's own (--private-tmp: of the host's files there only the working directory and the tree stayed visible); if it failed on a file of the host's there (\"No such file or directory\"), run it from a working directory that holds the file, or without --private-tmp"
}

@test "--private-tmp: paths inside an argument (an sh -c string, a list, an option's value) are named before the start" {
	require "user and PID namespaces" userns_ok
	hidden_dir
	echo data >"$T/data"
	mkdir "$T/tests"
	cd /
	run --separate-stderr iso --private-tmp -- sh -c "cat '$T/data' 2>/dev/null; for t in $T/tests/*.sh; do :; done; exit 0"
	[ "$status" -eq 0 ]
	[ "$stderr" = "isorun: --private-tmp hides from the command: $T/data (argument 2), $T/tests/ (argument 2)" ]
	run --separate-stderr iso --private-tmp -- true "--paths=/etc:$T/data" "x=$T,/usr" "<$T/data>"
	[ "$status" -eq 0 ]
	[ "$stderr" = "isorun: --private-tmp hides from the command: $T/data (argument 1), $T (argument 2), $T/data (argument 3)" ]
	# --protect-home=hide: the same for the home
	D=$(home_scratch)
	echo data >"$D/data"
	run --separate-stderr env PATH="$(path_outside_home)" "$ISORUN" --no-config --root "$R" --protect-home=hide -- sh -c "cat $D/data"
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = "isorun: --protect-home=hide hides from the command: $D/data (argument 2)" ]
	# controls: a path that does not exist on the host (the run's own to make),
	# /tmp itself, a path outside /tmp, a URL, no option: nothing said
	run --separate-stderr iso --private-tmp -- sh -c 'echo x >/tmp/made-in-the-run.$$; ls /tmp /etc/hostname >/dev/null; : http://host/tmp/x'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	run --separate-stderr iso -- sh -c "cat '$T/data'"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# -q: nothing
	run --separate-stderr iso -q --private-tmp -- sh -c "cat '$T/data' 2>/dev/null; exit 0"
	[ -z "$stderr" ]
	assert_no_tree
}

@test "--private-tmp: a failing command gets one line tying it to the option, as --protect-home's; a script's own paths too" {
	require "user and PID namespaces" userns_ok
	hidden_dir
	echo data >"$T/data"
	V=$(home_scratch)
	# a script that reads a file in the host's /tmp: no argument names it
	printf '#!/bin/sh\nexec cat %s\n' "$T/data" >"$V/suite.sh"
	chmod +x "$V/suite.sh"
	cd /
	run --separate-stderr iso --private-tmp -- "$V/suite.sh"
	[ "$status" -eq 1 ]
	[[ "${stderr_lines[0]}" == *"$T/data: No such file or directory" ]]
	[ "${stderr_lines[1]}" = "$(tmp_note)" ]
	[ "${stderr_lines[2]}" = "isorun: FAILED (exit 1): command exited 1" ]
	# the fix it names works: from a working directory that holds the file
	cd "$T"
	run --separate-stderr iso --private-tmp -- "$V/suite.sh"
	[ "$status" -eq 0 ]
	[ "$output" = data ]
	[ -z "$stderr" ]
	cd /
	# with --protect-home too: both lines, the home's first
	run --separate-stderr iso --private-tmp --protect-home=ro -- false
	[ "$status" -eq 1 ]
	[[ "${stderr_lines[0]}" == "isorun: the real home "*" was read-only for the command"* ]]
	[ "${stderr_lines[1]}" = "$(tmp_note)" ]
	# GITHUB_ACTIONS=true: an annotation too, which -q keeps
	GITHUB_ACTIONS=true run --separate-stderr iso -q --private-tmp -- false
	[ "$status" -eq 1 ]
	grep -qxF -- "::warning title=isorun%3A private tmp::$(tmp_note | sed 's/^isorun: //')" <<<"$stderr"
	[[ "$stderr" != *"$(tmp_note)"* ]]
	# controls: a passing run, no --private-tmp, a command never run, isorun's own stop
	run --separate-stderr iso --private-tmp -- true
	[ -z "$stderr" ]
	run --separate-stderr iso --pidns -- false
	[ "$stderr" = "isorun: FAILED (exit 1): command exited 1" ]
	run -127 --separate-stderr iso --private-tmp -- /nonexistent/cmd
	[[ "$stderr" != *"were the run's own"* ]]
	run --separate-stderr iso --private-tmp --timeout 1s -- "$H/waitfor" -t 600 "$V/never"
	[ "$status" -eq 124 ]
	[[ "$stderr" != *"were the run's own"* ]]
	assert_no_tree
}
