#!/usr/bin/env bats
# --bind, --ro-bind and --tmpfs (issue 29 item 3): made in order in the run's
# mount namespace after isorun's own; a read-only bind is read-only all the way
# down; bad input and a mount that would undo a protection are one line and 125
# before anything exists.

load helpers

userns_ok() {
	unshare -Urpf --mount-proc --propagation slave true
}

# The one error line for `iso ARGS...`: 125, the command never ran, no tree stays.
refused() {
	local expect=$1
	shift
	rm -f "$W/ran"
	run --separate-stderr iso "$@" -- touch "$W/ran"
	if [ "$status" -ne 125 ] || [[ "${stderr_lines[0]}" != "$expect"* ]] ||
		[ "${#stderr_lines[@]}" -ne 2 ]; then
		echo "for '$*': status $status, stderr: $stderr" >&2
		return 1
	fi
	[ ! -e "$W/ran" ]
	[ ! -e "$U" ] || assert_no_tree
}

# A source with a file and a directory, and an empty destination.
tree_pair() {
	S=$W/src
	D=$W/dst
	mkdir -p "$S/sub" "$D"
	echo hello >"$S/file"
}

@test "--ro-bind: the source is seen at DEST and a write there fails with EROFS; the host is unchanged" {
	require "user and PID namespaces" userns_ok
	tree_pair
	run --separate-stderr iso --ro-bind "$S:$D" -- sh -c "
		cat '$D/file'
		touch '$D/new' 2>&1; echo rc=\$?
		{ echo x >>'$D/file'; } 2>&1; echo rc=\$?
		mkdir '$D/sub/deeper' 2>&1; echo rc=\$?"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = hello ]
	[[ "${lines[1]}" == *"Read-only file system" ]]
	[ "${lines[2]}" = rc=1 ]
	[[ "${lines[3]}" == *"Read-only file system" ]]
	[[ "${lines[5]}" == *"Read-only file system" ]]
	[ ! -e "$S/new" ] && [ ! -e "$S/sub/deeper" ] && [ "$(cat "$S/file")" = hello ]
	[ -z "$(ls -A "$D")" ]
	assert_no_tree
}

@test "--ro-bind: a mount below the source is read-only too (/dev and its /dev/shm)" {
	require "user and PID namespaces" userns_ok
	require "/dev/shm as a mount of its own" mountpoint -q /dev/shm
	mkdir -p "$W/dev"
	probe=isorun-mounts-probe.$$.$BATS_TEST_NUMBER
	run --separate-stderr iso --ro-bind "/dev:$W/dev" -- sh -c "
		touch '$W/dev/shm/$probe' 2>&1; echo rc=\$?"
	[ ! -e "/dev/shm/$probe" ] || { rm -f "/dev/shm/$probe" && false; }
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"Read-only file system" ]]
	[ "${lines[1]}" = rc=1 ]
	# control: a writable --bind of the same keeps the submount as it is
	run --separate-stderr iso --bind "/dev:$W/dev" -- sh -c "
		touch '$W/dev/shm/$probe' && rm '$W/dev/shm/$probe' && echo ok"
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
}

@test "--ro-bind and --tmpfs as root: the command cannot remount them writable nor unmount them" {
	[ "$(id -u)" -eq 0 ] || skip "root only: an ordinary user's command holds no such capability"
	tree_pair
	# --policy=off: its deny-socket masks would take the capabilities away anyway
	for m in "--ro-bind $S:$D" "--tmpfs $D"; do
		# shellcheck disable=SC2086
		run --separate-stderr iso --policy=off $m -- sh -c "
			mount -o remount,ro '$D' 2>/dev/null; echo rc=\$?
			umount '$D' 2>/dev/null; echo rc=\$?"
		[ "$status" -eq 0 ]
		[ "${lines[0]}" != rc=0 ] && [ "${lines[1]}" != rc=0 ]
	done
	run --separate-stderr iso --policy=off --ro-bind "$S:$D" -- sh -c "
		mount -o remount,rw '$D' 2>/dev/null; echo rc=\$?; touch '$D/new' 2>/dev/null; echo rc=\$?"
	[ "${lines[0]}" != rc=0 ] && [ "${lines[1]}" = rc=1 ]
	[ ! -e "$S/new" ]
	# control: a --bind is no protection, root keeps what undoes it
	run --separate-stderr iso --policy=off --bind "$S:$D" -- sh -c "umount '$D' && echo ok"
	[ "$status" -eq 0 ] && [ "$output" = ok ]
}

@test "--bind: writes at DEST reach the source; with SRC alone DEST is SRC" {
	require "user and PID namespaces" userns_ok
	tree_pair
	run --separate-stderr iso --bind "$S:$D" -- sh -c "echo w >'$D/new' && cat '$D/file'"
	[ "$status" -eq 0 ]
	[ "$output" = hello ]
	[ "$(cat "$S/new")" = w ]
	[ -z "$(ls -A "$D")" ]
	run --separate-stderr iso --tmpfs "$D" --ro-bind "$S" -- sh -c "ls '$D' | wc -l; cat '$S/file'"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = hello ]
	assert_no_tree
}

@test "--tmpfs: empty and writable, gone after the run; it implies --pidns" {
	require "user and PID namespaces" userns_ok
	tree_pair
	echo host >"$D/there"
	run --separate-stderr iso --tmpfs "$D" -- sh -c "
		ls -A '$D' | wc -l
		echo in >'$D/x' && cat '$D/x'
		echo pid=\$\$"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = in ]
	[ "${lines[2]}" = pid=2 ]
	[ ! -e "$D/x" ] && [ "$(cat "$D/there")" = host ]
	assert_no_tree
}

@test "mounts apply in command-line order; a DEST inside an earlier --tmpfs is made there" {
	require "user and PID namespaces" userns_ok
	tree_pair
	run --separate-stderr iso --tmpfs "$D" --ro-bind "$S:$D/a/b" --bind "$S/file:$D/f" \
		--ro-bind "$S:$D" -- sh -c "ls '$D'"
	[ "$status" -eq 0 ]
	# the last one covers the rest
	[ "$output" = "$(ls "$S")" ]
	run --separate-stderr iso --tmpfs "$D" --ro-bind "$S:$D/a/b" --bind "$S/file:$D/f" \
		-- sh -c "cat '$D/a/b/file' '$D/f'; touch '$D/a/b/n' 2>/dev/null; echo rc=\$?; touch '$D/a/n' && echo tmpfs-ok"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = hello ] && [ "${lines[1]}" = hello ]
	[ "${lines[2]}" = rc=1 ] && [ "${lines[3]}" = tmpfs-ok ]
	# nothing was made on the host
	[ -z "$(ls -A "$D")" ]
	assert_no_tree
}

@test "refused: a missing source, and a DEST that is missing or of the other type" {
	tree_pair
	refused "isorun: --bind $W/nope:$D: the source '$W/nope': No such file or directory" \
		--bind "$W/nope:$D"
	refused "isorun: --ro-bind $S:$W/nope: the destination '$W/nope' does not exist" \
		--ro-bind "$S:$W/nope"
	refused "isorun: --tmpfs $W/nope: the destination '$W/nope' does not exist" --tmpfs "$W/nope"
	refused "isorun: --bind $S/file:$D: the destination '$D' is a directory and the source is not" \
		--bind "$S/file:$D"
	refused "isorun: --tmpfs $S/file: the destination '$S/file' is not a directory" --tmpfs "$S/file"
}

@test "refused: a relative or non-canonical DEST (.., //, a trailing / or /., a symlink, /)" {
	tree_pair
	ln -s "$D" "$W/link"
	refused "isorun: --bind $S:dst: the destination 'dst' is not an absolute path" --bind "$S:dst"
	refused "isorun: --bind src: the destination 'src' is not an absolute path" --bind src
	refused "isorun: --ro-bind $S:$W/../work/dst: the destination '$W/../work/dst' is not canonical" \
		--ro-bind "$S:$W/../work/dst"
	refused "isorun: --tmpfs /${D}: the destination '/$D' is not canonical" --tmpfs "/$D"
	refused "isorun: --tmpfs $D/: the destination '$D/' is not canonical" --tmpfs "$D/"
	refused "isorun: --tmpfs $D/.: the destination '$D/.' is not canonical" --tmpfs "$D/."
	refused "isorun: --tmpfs $W/link: the destination '$W/link' is not canonical: it resolves to '$D'" \
		--tmpfs "$W/link"
	refused "isorun: --tmpfs /: the destination '/' is / itself" --tmpfs /
	refused "isorun: --bind ':$D': empty path" --bind ":$D"
}

@test "refused: a DEST that is /proc or lies in it (the run's procfs is isorun's)" {
	tree_pair
	refused "isorun: --tmpfs /proc: the destination is /proc, the run's own procfs" --tmpfs /proc
	refused "isorun: --bind $S:/proc: the destination is /proc, the run's own procfs" --bind "$S:/proc"
	refused "isorun: --ro-bind $S:/proc/sys: the destination lies in /proc, the run's own procfs" \
		--ro-bind "$S:/proc/sys"
	refused "isorun: --tmpfs /proc/1: the destination lies in /proc, the run's own procfs" --tmpfs /proc/1
	refused "isorun: --bind /proc/version:/proc/uptime: the destination lies in /proc" \
		--bind /proc/version:/proc/uptime
}

@test "refused under --protect-home: a DEST in or above the home, a --bind of or above it, a hidden source" {
	require "user and PID namespaces" userns_ok
	tree_pair
	real=$(real_home) && real=$(realpath "$real")
	refused "isorun: --tmpfs $real: the destination lies in the home that --protect-home=ro protects" \
		--protect-home=ro --tmpfs "$real"
	if [ "$(dirname "$real")" != / ]; then
		refused "isorun: --tmpfs $(dirname "$real"): the destination covers the home that --protect-home=hide protects" \
			--protect-home=hide --tmpfs "$(dirname "$real")"
	fi
	refused "isorun: --bind $real:$D: the source is the home that --protect-home=ro makes read-only" \
		--protect-home=ro --bind "$real:$D"
	refused "isorun: --bind /:$D: the source contains the home that --protect-home=ro protects" \
		--protect-home=ro --bind "/:$D"
	refused "isorun: --ro-bind $real:$D: the source is the home that --protect-home=hide hides" \
		--protect-home=hide --ro-bind "$real:$D"
	H=$(home_scratch)
	refused "isorun: --bind $H:$D: the source lies in the home that --protect-home=ro makes read-only; to keep a directory of it writable: --writable $H" \
		--protect-home=ro --bind "$H:$D"
	# each fix as the line says it
	run --separate-stderr iso --protect-home=ro --writable "$H" --bind "$H:$D" -- touch "$D/w"
	[ "$status" -eq 0 ] && [ -e "$H/w" ]
	run --separate-stderr iso --protect-home=ro --ro-bind "$real:$D" -- true
	[ "$status" -eq 0 ]
	# a read-only view of the read-only home is no widening
	run --separate-stderr iso --protect-home=ro --ro-bind "$H:$D" -- sh -c "touch '$D/x' 2>/dev/null; echo rc=\$?"
	[ "$status" -eq 0 ] && [ "$output" = rc=1 ]
	assert_no_tree
}

@test "refused under --private-tmp: a DEST in /tmp, a source in it, a --bind above it" {
	tree_pair
	case $S in /tmp/*) ;; *) skip "the test's directory is not in /tmp" ;; esac
	tmp=$(realpath /tmp)
	refused "isorun: --tmpfs $tmp: the destination lies in $tmp, the run's own under --private-tmp" \
		--private-tmp --tmpfs "$tmp"
	# a destination outside /tmp: the refusal is the source's
	out=$(realpath /usr)
	refused "isorun: --ro-bind $S:$out: the source lies in $tmp, which --private-tmp replaces" \
		--private-tmp --ro-bind "$S:$out"
	refused "isorun: --bind /:$out: the source contains $tmp, which --private-tmp replaces" \
		--private-tmp --bind "/:$out"
	refused "isorun: --bind $S:$D: the destination lies in $tmp, the run's own under --private-tmp" \
		--private-tmp --bind "$S:$D"
}

@test "refused: a DEST over isorun's trees or over the working directory; a source in an earlier mount" {
	tree_pair
	mkdir -p "$U"
	cd "$S/sub"
	refused "isorun: --tmpfs $S: the command's working directory $S/sub would lie in the empty tmpfs; give --chdir DIR outside it" \
		--tmpfs "$S"
	refused "isorun: --tmpfs $W: the command's working directory $W/dst would lie in the empty tmpfs" \
		--chdir "$D" --tmpfs "$W"
	cd "$W"
	refused "isorun: --tmpfs $R: the destination covers isorun's trees ($U)" --tmpfs "$R"
	refused "isorun: --tmpfs $U: the destination lies in isorun's trees ($U)" --tmpfs "$U"
	refused "isorun: --ro-bind $D/x:$D: the source '$D/x'" --tmpfs "$D" --ro-bind "$D/x:$D"
	mkdir "$D/x"
	refused "isorun: --ro-bind $D/x:$D: the source '$D/x' lies in what the earlier --tmpfs $D mounts" \
		--tmpfs "$D" --ro-bind "$D/x:$D"
	rmdir "$D/x"
}

@test "isorun.conf: bind, ro-bind and tmpfs are refused at their line; the command line's are taken" {
	require "user and PID namespaces" userns_ok
	tree_pair
	mkdir -p "$W/p"
	for k in bind ro-bind tmpfs; do
		printf 'keep = false\n%s = %s\n' "$k" "$D" >"$W/p/isorun.conf"
		run --separate-stderr bash -c 'cd "$1" && shift && exec "$@"' _ "$W/p" \
			"$ISORUN" --root "$R" -- touch "$W/ran"
		[ "$status" -eq 125 ]
		[ "${stderr_lines[0]}" = "isorun: $W/p/isorun.conf:2: $k: only on the command line, not in isorun.conf (a mount widens what the command reaches; a project file cannot add one)" ]
		[ ! -e "$W/ran" ]
	done
	# under a command-line --ro-bind, the file cannot keep what would undo it
	printf 'keep = false\ncap-keep = CAP_SYS_ADMIN\n' >"$W/p/isorun.conf"
	run --separate-stderr bash -c 'cd "$1" && shift && exec "$@"' _ "$W/p" \
		"$ISORUN" --root "$R" --ro-bind "$S:$D" -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: $W/p/isorun.conf:2: cap-keep = CAP_SYS_ADMIN: keeps a capability that undoes it (--ro-bind on the command line; a project file cannot widen it)" ]
	[ ! -e "$W/ran" ]
	printf 'keep = false\n' >"$W/p/isorun.conf"
	run --separate-stderr bash -c 'cd "$1" && shift && exec "$@"' _ "$W/p" \
		"$ISORUN" --root "$R" --tmpfs "$D" -- sh -c "touch '$D/x' && echo ok"
	[ "$status" -eq 0 ] && [ "$output" = ok ]
	[ ! -e "$U" ] || assert_no_tree
}
