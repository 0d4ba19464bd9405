#!/usr/bin/env bats
# A root run inside another root run's shield (issue 35 item 2, decision 0064):
# its tree would lie on the outer run's overlay, which cannot be an upper layer,
# so it is a tmpfs of its own (tree/shield.h), whose end after the unmount the
# kernel reports: proven with no process read, one and two levels down, and
# every way in to it is still heard.

load helpers

# Serial: a namespace made by another file's run meanwhile shows trees bare.
# bats file_tags=serial

# The outer run's trees on /dev/shm (setup_shielded), out of the suite's own
# run: the outer wears an overlay shield, and the inner's tree lies on it.
setup() {
	setup_shielded
	export W_=$W H_=$H
	[ "$(id -u)" -eq 0 ] || skip "only root's tree wears a shield"
}

teardown() {
	show_last_run
	for f in "$W"/*.kill; do
		[ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	[ -f "$W/out" ] && cat "$W/out"
	for t in "${U:?}"/*; do
		[ -d "$t" ] && force_remove "$t"
	done
	validate_outputs
	teardown_shield_root
}

# An outer run whose command runs an inner isorun (its trees in the outer's tree)
# with INNER_ARGS..., whose command says its pid and home on $W/path and waits
# for $W/go (with $W/bind, after binding its tree over itself; with
# $W/unmount, it takes its tree's tmpfs off after the go).  The outer's
# output, an `isorun ls` after the inner run, and "inner=RC" go to $W/out.
start_nested() { # INNER_ARGS...
	mkfifo "$W/path"
	iso -- sh -c '"$0" --no-config "$@" -- sh -c "[ ! -e $W_/bind ] || mount --bind \"\$ISORUN_NAMESPACE\" \"\$ISORUN_NAMESPACE\"
		echo \$\$ \$HOME >$W_/path; $H_/waitfor -t 600 $W_/go
		[ ! -e $W_/unmount ] || umount -l \"\$ISORUN_NAMESPACE\""
		echo "inner=$?"; "$0" ls' "$ISORUN" "$@" >"$W/out" 2>&1 3>&- &
	isopid=$!
	read -r inner home <"$W/path"
}

holder_in() { # PATH [nsenter ARGS...]: a holder with its cwd at PATH
	local at=$1
	shift
	"$@" "$H/holdcwd" "$at" "$W/holder.pid" <&- 3>&- &
	"$H/waitfor" -t 60 "$W/holder.pid"
	holder=$(cat "$W/holder.pid")
	echo "$holder" >"$W/holder.kill"
	: >"$W/go"
	wait "$isopid" || true
}

@test "as root, a run inside another root run's shield is proven by the kernel, no process read; two levels down, and --pidns" {
	run --separate-stderr iso -- sh -c '"$0" -v --no-config -- true 2>&1; echo "inner=$?"' "$ISORUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"holders: proven by the kernel, no process read: the tree's shield ended with its unmount"*"inner=0" ]]
	[[ "$output" != *"processes read"* ]]
	run --separate-stderr iso -- sh -c '"$0" --no-config -- sh -c "\"$0\" -v --no-config -- true 2>&1; echo inner=\$?" "$0"' "$ISORUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"holders: proven by the kernel, no process read"*"inner=0" ]]
	run --separate-stderr iso -- sh -c '"$0" -v --no-config --pidns -- true 2>&1; echo "inner=$?"' "$ISORUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"holders: proven by the kernel, no process read"*"inner=0" ]]
	assert_no_tree
}

@test "control: without its tmpfs the run inside reads every process" {
	ISORUN_TEST_FAULT=no-nest run --separate-stderr iso -- sh -c '"$0" -v --no-config -- true 2>&1; echo "inner=$?"' "$ISORUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"holders: every process read: the tree is on another run's shield, and has no tmpfs of its own: turned off (ISORUN_TEST_FAULT)"*"inner=0" ]]
}

@test "as root, trees on an overlay that is no run's shield (a container's root) stay on its disk" {
	# on /dev/shm: an overlay's upper layer cannot lie on the suite's own run's
	mkdir -p "$R"/ov/{l,u,w,m}
	mount -t overlay overlay -o "lowerdir=$R/ov/l,upperdir=$R/ov/u,workdir=$R/ov/w" "$R/ov/m"
	run --separate-stderr "$ISORUN" --no-config --root "$R/ov/m" -v -- sh -c 'stat -f -c %T "$ISORUN_NAMESPACE"'
	umount_below "$R/ov/m"
	[ "$status" -eq 0 ]
	[ "$output" = overlayfs ]
	[[ "$stderr" == *"holders: every process read: the tree is on an overlay (a container's root, or a run inside another's shield)"* ]]
}

@test "as root, the inner tree is a tmpfs of its own at its path, on the outer run's shield; without the fault, an overlay" {
	start_nested
	[ "$(stat -f -c %T "$(dirname "$home")")" = tmpfs ]
	[ "$(stat -f -c %T "$(dirname "$(dirname "$(dirname "$home")")")")" = overlayfs ]
	: >"$W/go"
	wait "$isopid"
	grep -Fx "inner=0" "$W/out"
	assert_no_tree
}

@test "as root, a holder in the inner run's namespace keeps its tmpfs: 122, named, the tree retained with its files" {
	start_nested
	holder_in "$home" nsenter -t "$inner" -m
	grep -Fx "inner=122" "$W/out"
	# named where the outer run's Landlock domain lets the inner one read it
	grep -e "pid $holder \`" -e "a process outside isorun's reach could" "$W/out"
	# retained with its files, in the tmpfs still mounted
	grep -E "^/.* retained +the kernel says the tree is held" "$W/out"
	[ -d "/proc/$holder/cwd/." ]
}

@test "as root, a holder through /proc/PID/root of the inner command keeps its tmpfs: 122" {
	start_nested
	holder_in "/proc/$inner/root$home"
	grep -Fx "inner=122" "$W/out"
	grep -e "pid $holder \`" -e "a process outside isorun's reach could" "$W/out"
}

@test "as root, a holder in a private copy of the mount namespace: 122, retained, what could hold it said" {
	start_nested -v
	holder_in "$home" unshare -m --propagation private
	grep -Fx "inner=122" "$W/out"
	grep -F "holders: every process read: the tree's shield lives on after its unmount" "$W/out"
	grep -F "its tmpfs lives on after its unmount, with its files" "$W/out"
	# the files are with the holder
	[ -d "/proc/$holder/cwd/." ]
}

@test "as root, a kept inner tree is on disk, inside the outer's kept one" {
	run --separate-stderr iso --keep -- "$ISORUN" --no-config --keep -- sh -c 'echo hi >"$HOME/f"'
	[ "$status" -eq 0 ]
	outer=$(the_tree)
	[ "$(cat "$outer"/tmp/isorun-0/*/home/f)" = hi ]
}

@test "as root, gc inside the outer run removes a killed inner run's tmpfs tree, proven by the kernel" {
	run --separate-stderr iso -- sh -c '"$0" --no-config -- sh -c "echo \$\$ >$W_/in.pid; exec sleep 600" 3>&- &
		"$H_/waitfor" -t 60 "$W_/in.pid"; kill -KILL $!; wait $!; echo "inner=$?"
		"$0" ls; "$0" gc -v; echo "gc=$?"; ls -A "$TMPDIR/isorun-0"' "$ISORUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"inner=137"* ]]
	[[ "$output" == *"a tmpfs of its own (a run inside another's)"* ]]
	[[ "$output" == *"removed "*"no process has a file, cwd or root in it; its tmpfs (a run inside another's) ended with its unmount, and its files with it"*"gc=0"* ]]
	[[ "$output" != *".w"* ]]
}

@test "as root, a decoy the inner command mounts over its own tree comes off, and the proof is the kernel's" {
	run --separate-stderr iso -- sh -c '"$0" -v --no-config -- sh -c "mount -t tmpfs decoy \"\$ISORUN_NAMESPACE\" && mount -t tmpfs decoy2 \"\$ISORUN_NAMESPACE\"" 2>&1; echo "inner=$?"' "$ISORUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"holders: proven by the kernel, no process read"*"inner=0" ]]
	assert_no_tree
}

@test "as root, an inner command that takes its own tree's tmpfs off while a holder is in it: 122, never proven" {
	start_nested -v
	: >"$W/unmount"
	holder_in "$home"
	grep -Fx "inner=122" "$W/out"
	! grep -F "holders: proven by the kernel" "$W/out"
}

@test "as root, an inner command that binds its own tree over itself: the binds come off, the tmpfs proven" {
	run --separate-stderr iso -- sh -c '"$0" -v --no-config -- sh -c "mount --bind \"\$ISORUN_NAMESPACE\" \"\$ISORUN_NAMESPACE\" && mount --bind \"\$ISORUN_NAMESPACE\" \"\$ISORUN_NAMESPACE\" && mount --bind \"\$HOME\" \"\$ISORUN_NAMESPACE\"" 2>&1; echo "inner=$?"' "$ISORUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"holders: proven by the kernel, no process read"*"inner=0" ]]
	assert_no_tree
}

@test "as root, a holder through the inner command's bind of its tree over itself: 122, never proven" {
	: >"$W/bind"
	start_nested -v
	holder_in "$home"
	grep -Fx "inner=122" "$W/out"
	! grep -F "holders: proven by the kernel" "$W/out"
	grep -e "pid $holder \`" -e "a process outside isorun's reach could" "$W/out"
}

@test "as root, a holder of an inner run's retained tmpfs holds the outer run's tree too: never proven" {
	start_nested
	"$H/holdcwd" "$home" "$W/holder.pid" <&- 3>&- &
	"$H/waitfor" -t 60 "$W/holder.pid"
	cat "$W/holder.pid" >"$W/holder.kill"
	: >"$W/go"
	rc=0
	wait "$isopid" || rc=$?
	# the inner run said so, and its command (then `isorun ls`) went on
	grep -Fx "inner=122" "$W/out"
	# the inner's files, made in the outer's tree, are still held: so is the outer's
	[ -d "/proc/$(cat "$W/holder.pid")/cwd/." ]
	[ "$rc" -eq 122 ]
	outer=$(dirname "$(dirname "$(dirname "$(dirname "$home")")")")
	grep -F "isorun: tree retained at $outer: the kernel says the tree is held" "$W/out"
}

@test "as root, a setup that fails before any tree is made asks no shield for a proof" {
	# until a tree was made its nest watch was 0, not -1: fd 0 taken for a tmpfs's watch
	run --separate-stderr "$ISORUN" --no-config --root "$R" -v --chdir /nonexistent -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"--chdir '/nonexistent': No such file or directory"* ]]
	[[ "$stderr" != *"holders:"* ]]
	run --separate-stderr iso -- sh -c '"$0" -v --no-config --watch /nonexistent -- true 2>&1; echo "inner=$?"' "$ISORUN"
	[[ "$output" == *"inner=125" ]]
	[[ "$output" != *"holders:"* ]]
}

@test "as root, gc keeps a killed inner run's tmpfs tree while an outside holder is in it, and says it is a tmpfs" {
	run --separate-stderr iso -- sh -c '"$0" --no-config -- sh -c "echo \$\$ \$HOME >$W_/in.pid; exec sleep 600" 3>&- &
		ip=$!; "$H_/waitfor" -t 60 "$W_/in.pid"; read -r pid home <"$W_/in.pid"
		"$H_/holdcwd" "$home" "$W_/holder.pid" <&- 3>&- & "$H_/waitfor" -t 60 "$W_/holder.pid"
		cat "$W_/holder.pid" >"$W_/holder.kill"
		kill -KILL $ip; wait $ip; echo "inner=$?"
		"$0" gc; echo "gc=$?"; kill -KILL "$(cat "$W_/holder.pid")"' "$ISORUN"
	[[ "$output" == *"inner=137"* ]]
	[[ "$output" == *"kept "*"has its cwd in it"*"a tmpfs of its own (a run inside another's)"*"gc=0"* ]]
	[[ "$output" != *"an overlay"* ]]
}

@test "as root, a detached copy of an inner run's tmpfs (open_tree) holds the outer run's tree too: never proven" {
	skip "bug: the inner unmounts its tmpfs (ELSEWHERE, 122), so the outer's proof cannot see the copy: 0"
	start_nested
	# open_tree(AT_FDCWD, home, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC), x86_64's 428
	python3 -c 'import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.syscall(428, -100, sys.argv[1].encode(), 1 | os.O_CLOEXEC) < 0:
    sys.exit("open_tree: " + os.strerror(ctypes.get_errno()))
open(sys.argv[2] + ".tmp", "w").write(str(os.getpid()))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
signal.pause()' "$home" "$W/holder.pid" <&- 3>&- &
	"$H/waitfor" -t 60 "$W/holder.pid"
	cat "$W/holder.pid" >"$W/holder.kill"
	: >"$W/go"
	rc=0
	wait "$isopid" || rc=$?
	grep -Fx "inner=122" "$W/out"
	[ "$rc" -eq 122 ]
}
