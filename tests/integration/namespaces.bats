#!/usr/bin/env bats
# --pidns and the namespace options: PID 1 owns everything; private /proc and
# /tmp; the real home guarded; an isolated network.

load helpers

userns_ok() {
	unshare -Urpf --mount-proc --propagation slave true
}

@test "--pidns: the command is PID 2 under isorun's init and /proc shows only the namespace" {
	require "user and PID namespaces" userns_ok
	run --separate-stderr iso --pidns -- sh -c 'echo "pid=$$"; ls /proc | grep -c "^[0-9]"'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "pid=2" ]
	# init, the shell, ls and grep at most
	[ "${lines[1]}" -le 4 ]
	[ -z "$stderr" ]
	assert_no_tree
}

@test "--pidns: as an ordinary user the command keeps its own uid; --map-root makes it 0" {
	require "user and PID namespaces" userns_ok
	run iso --pidns -- id -u
	[ "$output" = "$(id -u)" ]
	run iso --pidns --map-root -- id -u
	[ "$output" = 0 ]
}

@test "--pidns: a setsid daemon, a double fork and a TERM ignorer are named (inside and outside pids) and killed" {
	require "user and PID namespaces" userns_ok
	run --separate-stderr iso --pidns --settle 0 --report "$W/r.json" -- sh -c "
		$H/daemonize -n $W/d1 $H/termignore
		$H/termignore $W/t1 >/dev/null 2>&1 3>&- &
		$H/waitfor $W/t1"
	[ "$status" -eq 122 ]
	[ "$(grep -c 'isorun: leaked: pid' <<<"$stderr")" -eq 2 ]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 122): 2 processes outlived the command" ]
	python3 - "$W/r.json" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
assert r["isolation"]["pidns"] is True and r["isolation"]["leak_check"] == "pidns", r["isolation"]
assert len(r["leaks"]) == 2, r["leaks"]
for l in r["leaks"]:
    assert l["pid_in_namespace"] > 2 and l["pid"] != l["pid_in_namespace"], l
    assert not os.path.exists("/proc/%d" % l["pid"]), l
PY
	assert_no_tree
}

@test "--pidns: a clean command prints nothing and removes its tree" {
	require "user and PID namespaces" userns_ok
	run --separate-stderr iso --pidns -- true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	assert_no_tree
}

@test "--pidns: exit codes are the command's, 128+N, 126/127 as without it" {
	require "user and PID namespaces" userns_ok
	run iso --pidns -q -- sh -c 'exit 7'
	[ "$status" -eq 7 ]
	run iso --pidns -- sh -c 'kill -KILL $$'
	[ "$status" -eq 137 ]
	run -127 iso --pidns -- no-such-command-anywhere
	[[ "$output" == *"FAILED (exit 127): command not found"* ]]
	assert_no_tree
}

@test "--pidns: SIGKILL of the outer isorun leaves nothing of the namespace alive" {
	require "user and PID namespaces" userns_ok
	"$ISORUN" --root "$R" --pidns -- sh -c "$H/daemonize -n $W/dpid $H/termignore $W/pid; $H/waitfor -t 600 $W/never" 3>&- &
	isopid=$!
	"$H/waitfor" "$W/pid"
	# the namespace's processes as the host numbers them: its init (isorun's
	# child) and what carries this test's markers
	ns=$(pgrep -P "$isopid"; pgrep -f "$W/never|$H/termignore $W/pid")
	[ -n "$ns" ]
	kill -KILL "$isopid"
	wait "$isopid" || true
	# the kernel ends them after isorun's death, not before wait returns
	pids_gone $ns
	run pgrep -f "$W/never"
	[ "$status" -eq 1 ]
	run pgrep -f "$H/termignore $W/pid"
	[ "$status" -eq 1 ]
	force_remove "$(the_tree)"
}

@test "control: without --pidns a daemon does survive SIGKILL of isorun" {
	# the pid file of termignore itself: written after its exec, which the seccomp
	# listener of the isorun about to be killed must have let through
	"$ISORUN" --root "$R" -- sh -c "$H/daemonize -n $W/dpid $H/termignore $W/pid; $H/waitfor -t 600 $W/never" 3>&- &
	isopid=$!
	"$H/waitfor" "$W/pid"
	kill -KILL "$isopid"
	wait "$isopid" || true
	pid=$(cat "$W/pid")
	kill -0 "$pid"
	kill -KILL "$pid"
	pkill -f "$W/never" || true
	force_remove "$(the_tree)"
}

@test "--pidns: SIGTERM cancels, the TERM ignorer dies after the grace, the tree is removed" {
	require "user and PID namespaces" userns_ok
	"$ISORUN" --root "$R" --pidns --grace 200ms -- sh -c "$H/termignore $W/pid & wait" >"$W/out" 2>&1 3>&- &
	isopid=$!
	"$H/waitfor" "$W/pid"
	kill -TERM "$isopid"
	wait "$isopid" && rc=0 || rc=$?
	[ "$rc" -eq 143 ]
	run pgrep -f "$H/termignore $W/pid"
	[ "$status" -eq 1 ]
	assert_no_tree
}

@test "--pidns --timeout gives 124 and leaves nothing" {
	require "user and PID namespaces" userns_ok
	run iso --pidns --timeout 200ms --grace 100ms -- "$H/termignore"
	[ "$status" -eq 124 ]
	assert_no_tree
}

@test "--pidns: the outer waits for init's start with a deadline: past it init is killed, 125, nothing ran or stays" {
	require "user and PID namespaces" userns_ok
	# init never answers; the fault puts the deadline at the start of the wait
	ISORUN_TEST_FAULT=stalled-start run --separate-stderr iso --pidns -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: the namespace's init did not start the command within 30s; killed it" ]
	[ ! -e "$W/ran" ]
	assert_no_tree
}

# Options under which the command may mount in its namespace: root's --pidns keeps
# CAP_SYS_ADMIN; an ordinary user's command is root of its user namespace with them.
mounter() {
	if [ "$(id -u)" -eq 0 ]; then
		echo --pidns
	else
		echo --pidns --map-root --cap-keep all
	fi
}

# A TERM ignorer double-forked into its own session, then COVER, the command's
# mount: init still names the survivor (report and stderr) and kills it.  $WRAP:
# a program isorun runs under (denycall).
survivor_under() {
	mkdir -p "$W/empty"
	# shellcheck disable=SC2046,SC2086
	run --separate-stderr $WRAP "$ISORUN" --no-config --root "$R" $(mounter) --settle 0 \
		--report "$W/r.json" -- sh -c "
		$H/daemonize -n $W/d $H/termignore || exit 9
		$1 || exit 8"
	if [ "$status" -ne 122 ] || [ "$(grep -c 'isorun: leaked: pid.*termignore' <<<"$stderr")" -ne 1 ]; then
		echo "under '$1': status $status, stderr: $stderr" >&2
		return 1
	fi
	python3 - "$W/r.json" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
assert r["isolation"]["leak_check"] == "pidns" and len(r["leaks"]) == 1, r["leaks"]
assert not os.path.exists("/proc/%d" % r["leaks"][0]["pid"]), r["leaks"]
PY
	assert_no_tree
}

@test "--pidns: a tmpfs, a directory or another namespace's procfs the command mounts over /proc hides no survivor from init" {
	require "user and PID namespaces" userns_ok
	survivor_under "mount -t tmpfs none /proc"
	survivor_under "mount --bind $W/empty /proc"
	# a procfs of a PID namespace of its own, mounted in init's mount namespace
	survivor_under "unshare -p -f mount -t proc proc /proc"
}

@test "--pidns: a directory the command binds over /proc/PID hides no survivor from init" {
	require "user and PID namespaces" userns_ok
	# shellcheck disable=SC2016
	survivor_under "mount --bind $W/empty /proc/\$(cat $W/d) && test ! -e /proc/\$(cat $W/d)/stat"
}

@test "--pidns: where fsopen is refused init reads a detached copy of /proc, which no cover reaches; without open_tree either, 125" {
	require "user and PID namespaces" userns_ok
	WRAP="$H/denycall fsopen"
	survivor_under "mount -t tmpfs none /proc"
	# shellcheck disable=SC2016
	survivor_under "mount --bind $W/empty /proc/\$(cat $W/d) && test ! -e /proc/\$(cat $W/d)/stat"
	run --separate-stderr "$H/denycall" fsopen,open_tree "$ISORUN" --no-config --root "$R" \
		--pidns -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: open a procfs of the namespace's own (fsmount, open_tree): Operation not permitted" ]
	[ ! -e "$W/ran" ]
	assert_no_tree
}

@test "--pidns: a survivor init's listing did not name makes the leak check not measurable, never passed" {
	require "user and PID namespaces" userns_ok
	# the listing blinded some way init does not know: its cross-check with what it reaps
	ISORUN_TEST_FAULT=empty-listing run --separate-stderr iso --pidns --settle 0 -- \
		"$H/daemonize" -n "$W/d" "$H/termignore"
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"isorun: leak check: not measurable (the namespace's init reaped pid "*", which its listing of the namespace did not name)"* ]]
	# listed but not named: the outer's count of the namespace from outside
	ISORUN_TEST_FAULT=unnamed-survivors run --separate-stderr iso --pidns --settle 0 -- \
		"$H/daemonize" -n "$W/d2" "$H/termignore"
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"isorun: leak check: not measurable (the namespace's init named 0 surviving processes; 1 live in it, seen from outside)"* ]]
	assert_no_tree
}

@test "--pidns: init keeps none of the outer's descriptors (cgroup.procs, the tree's records, its event loop)" {
	require "user and PID namespaces" userns_ok
	"$ISORUN" --no-config --root "$R" --pidns -- sh -c "touch $W/up; exec $H/waitfor -t 600 $W/go" 3>&- &
	isopid=$!
	"$H/waitfor" "$W/up"
	init=$(pgrep -P "$isopid")
	[ -n "$init" ]
	fds=$(find "/proc/$init/fd" -mindepth 1 -printf '%f %l\n')
	touch "$W/go"
	wait "$isopid"
	echo "$fds"
	! grep -E 'cgroup|inotify|'"$U" <<<"$fds"
	# 0-2, the socket to the outer, its own signalfd, timerfd, epoll and procfs
	[ "$(wc -l <<<"$fds")" -le 8 ]
	assert_no_tree
}

@test "--private-tmp: a literal /tmp write lands in the tree; parallel runs do not see each other" {
	require "user and PID namespaces" userns_ok
	run iso --private-tmp --keep -- sh -c 'echo mine > /tmp/isorun-private-probe; test -d /var/tmp && echo x > /var/tmp/isorun-vt; echo home > "$HOME/h" && cat "$HOME/h"'
	[ "$status" -eq 0 ]
	[[ "$output" == *home* ]]
	tree=$(the_tree)
	[ "$(cat "$tree/tmp/isorun-private-probe")" = mine ]
	[ ! -e /tmp/isorun-private-probe ]
	force_remove "$tree"
	# two at once, each writing /tmp/f, each reading it back only after both wrote;
	# fifos in the working directory (bound back into the private /tmp if it lives
	# under /tmp) order them without timers
	cd "$W"
	mkfifo a1 a2 b1 b2
	"$ISORUN" --root "$R" --private-tmp -- sh -c 'echo a > /tmp/f; echo > a1; read x < a2; cat /tmp/f' >"$W/a" 3>&- &
	p1=$!
	"$ISORUN" --root "$R" --private-tmp -- sh -c 'echo b > /tmp/f; echo > b1; read x < b2; cat /tmp/f' >"$W/b" 3>&- &
	p2=$!
	read -r x <a1
	read -r x <b1
	echo go >a2
	echo go >b2
	wait "$p1"
	wait "$p2"
	[ "$(cat "$W/a")" = a ]
	[ "$(cat "$W/b")" = b ]
	assert_no_tree
}

@test "--protect-home=ro: a write to the real home fails with EROFS and the home is unchanged" {
	require "user and PID namespaces" userns_ok
	real=$(real_home)
	# a name of this run's own: a leftover of an interrupted run proves nothing
	probe=.isorun-ro-probe.$(basename "$BATS_RUN_TMPDIR")
	[ -d "$real" ]
	before=$(ls -A "$real" | md5sum)
	run iso --protect-home=ro -- sh -c "touch '$real/$probe' 2>&1; echo rc=\$?"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Read-only file system"* ]]
	[[ "$output" == *"rc=1"* ]]
	[ ! -e "$real/$probe" ]
	[ "$(ls -A "$real" | md5sum)" = "$before" ]
}

@test "control: without --protect-home the same write reaches the real home" {
	real=$(real_home)
	probe=.isorun-ro-probe.$(basename "$BATS_RUN_TMPDIR")
	run iso -- sh -c "touch '$real/$probe' && echo wrote"
	[ "$output" = wrote ]
	[ -e "$real/$probe" ]
	rm -f "$real/$probe"
}

@test "--protect-home=ro: a descriptor into the home is reopened read-only (stdin, --pass-fd)" {
	require "user and PID namespaces" userns_ok
	require "python3" python3 -c 'import os'
	D=$(home_scratch)
	echo orig >"$D/in"
	chmod 600 "$D/in"
	mkdir "$D/dir"
	# each way around the read-only cover through an inherited descriptor:
	# reopening it by /proc/self/fd, creating beside it, changing its metadata
	run --separate-stderr iso --protect-home=ro --pass-fd 3 -- sh -c '
		read l; echo "read=$l"
		echo x 2>/dev/null >/proc/self/fd/0 || echo reopen-refused
		chmod 666 /proc/self/fd/0 2>/dev/null || echo chmod-refused
		echo y 2>/dev/null >/proc/self/fd/3/new || echo dir-refused
		python3 -c "import os
try:
    os.open(\"new2\", os.O_CREAT | os.O_WRONLY, dir_fd=3); print(\"created\")
except OSError as e:
    print(\"openat-refused\", e.strerror)"' <"$D/in" 3<"$D/dir"
	[ "$status" -eq 0 ]
	[ "$output" = "read=orig
reopen-refused
chmod-refused
dir-refused
openat-refused Read-only file system" ]
	[ "$(cat "$D/in")" = orig ]
	[ "$(stat -c %a "$D/in")" = 600 ]
	[ -z "$(ls -A "$D/dir")" ]
	# the same under hide: the descriptor still reads, and writes nothing
	run --separate-stderr iso --protect-home=hide --chdir "$W" --pass-fd 3 -- sh -c '
		read l; echo "read=$l"; ls /proc/self/fd/3/
		echo x 2>/dev/null >/proc/self/fd/0 || echo reopen-refused
		echo y 2>/dev/null >/proc/self/fd/3/new || echo dir-refused' <"$D/in" 3<"$D/dir"
	[ "$status" -eq 0 ]
	[ "$output" = "read=orig
reopen-refused
dir-refused" ]
	[ "$(cat "$D/in")" = orig ]
	[ -z "$(ls -A "$D/dir")" ]
	assert_no_tree
}

@test "--protect-home=ro: output redirected into the home is still written (fds opened for writing stay)" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	# from outside the home: a checkout in it would add isorun's hint to $D/err
	cd "$W"
	# the caller's own `>~/log` and a writable --pass-fd: given to be written
	iso --protect-home=ro --pass-fd 3 -- sh -c 'echo out; echo err >&2; echo app >&3' \
		>"$D/log" 2>"$D/err" 3>>"$D/app"
	[ "$(cat "$D/log")" = out ]
	[ "$(cat "$D/err")" = err ]
	[ "$(cat "$D/app")" = app ]
	# the command's stdout not relayed (a file): still the same one file, nothing else
	iso --protect-home=ro -- sh -c 'echo x >/proc/self/fd/1; touch /proc/self/fd/1/../n 2>/dev/null' \
		>"$D/log2" 2>/dev/null || true
	[ ! -e "$D/n" ]
	assert_no_tree
}

@test "--protect-home: a descriptor whose home file is gone is refused with 125, naming it" {
	require "user and PID namespaces" userns_ok
	D=$(home_scratch)
	echo orig >"$D/in"
	exec 7<"$D/in"
	rm "$D/in"
	run --separate-stderr iso --protect-home=ro --pass-fd 7 -- touch "$W/ran"
	exec 7<&-
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"fd 7 ('$D/in (deleted)')"* ]]
	[[ "$stderr" == *"hint: "*"open it from outside the home"* ]]
	[ ! -e "$W/ran" ]
	assert_no_tree
}

@test "--protect-home=hide: the real home looks empty" {
	require "user and PID namespaces" userns_ok
	PATH=$(path_outside_home) # a ~/bin in it would be named on stderr
	real=$(real_home)
	run iso --protect-home=hide --chdir "$W" -- sh -c "ls -A '$real' | wc -l"
	[ "$status" -eq 0 ]
	[ "$output" -eq 0 ]
	assert_no_tree
}

@test "--protect-home leaves the tree and --writable DIRs in the home as they are" {
	require "user and PID namespaces" userns_ok
	real=$(real_home)
	D=$(home_scratch)
	mkdir "$D/root" "$D/proj"
	# the tree lies in the home (a TMPDIR there): HOME and TMPDIR still take writes;
	# the checkout is writable, the rest of the home is not
	run --separate-stderr "$ISORUN" --no-config --root "$D/root" --protect-home=ro \
		--writable "$D/proj" --chdir "$D/proj" -- sh -c "
			echo h >\"\$HOME/h\" && echo t >\"\$TMPDIR/t\" && echo b >built &&
			! touch '$real/.isorun-bats-stray' 2>/dev/null && echo done"
	[ "$status" -eq 0 ]
	[ "$output" = done ]
	[ "$(cat "$D/proj/built")" = b ]
	[ ! -e "$real/.isorun-bats-stray" ]
	# hide: only the way to the kept paths shows, and they work
	run --separate-stderr "$ISORUN" --no-config --root "$D/root" --protect-home=hide \
		--writable "$D/proj" --chdir "$D/proj" -- sh -c "
			cat built && echo h >\"\$HOME/h\" && ls -A '$real'"
	[ "$status" -eq 0 ]
	[ "$output" = "b
$(basename "$D")" ]
	# control: without --writable the checkout is read-only like the rest
	run --separate-stderr "$ISORUN" --no-config --root "$D/root" --protect-home=ro \
		--chdir "$D/proj" -- sh -c 'echo c >built'
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"Read-only file system"* ]]
	# the home itself cannot be named, a missing DIR is an error; nothing is left
	run --separate-stderr "$ISORUN" --no-config --root "$D/root" --protect-home=ro \
		--writable "$real" -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"is the protected home itself"* ]]
	run --separate-stderr "$ISORUN" --no-config --root "$D/root" --protect-home=ro \
		--writable "$D/nope" -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"--writable '$D/nope'"* ]]
	[ -z "$(ls -A "$D/root/isorun-$(id -u)" | grep -vx .empty)" ]
}

@test "--net=isolated: two runs both listen on 127.0.0.1:8080; the host's listener is unreachable" {
	require "user and network namespaces" unshare -Urn true
	require "python3" python3 -c 'import socket'
	serve='import socket,sys
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 8080)); s.listen(); print("listening", flush=True)
c=socket.create_connection(("127.0.0.1", 8080)); print("connected")
s6=socket.socket(socket.AF_INET6); s6.bind(("::1", 8081)); s6.listen()
socket.create_connection(("::1", 8081)); print("v6 connected")'
	"$ISORUN" --root "$R" --net=isolated -- python3 -c "$serve" >"$W/a" 2>&1 3>&- &
	p1=$!
	"$ISORUN" --root "$R" --net=isolated -- python3 -c "$serve" >"$W/b" 2>&1 3>&- &
	p2=$!
	wait "$p1" || { cat "$W/a"; false; }
	wait "$p2" || { cat "$W/b"; false; }
	grep -q "v6 connected" "$W/a"
	grep -q "v6 connected" "$W/b"
	# a listener on the host's loopback
	python3 -c 'import socket,sys,os
s=socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.accept()' "$W/port.host" 3>&- &
	lp=$!
	"$H/waitfor" "$W/port.host"
	port=$(cat "$W/port.host")
	run iso --net=isolated -- python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), timeout=5)"
	[ "$status" -ne 0 ]
	[[ "$output" == *"ConnectionRefused"* ]]
	# control: without isolation the same connect reaches it
	run iso -- python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), timeout=5)"
	[ "$status" -eq 0 ]
	wait "$lp" || true
	assert_no_tree
}

# An interface of the host for the test: as root a new one (dummy, else ifb or
# bridge: whatever this kernel has), which the caller removes; else an existing one.
host_if() {
	local t
	if [ "$(id -u)" -eq 0 ]; then
		for t in dummy ifb bridge; do
			if ip link add "isot$$" type "$t" 2>/dev/null; then
				echo "isot$$"
				return 0
			fi
		done
	fi
	ls /sys/class/net | grep -vx lo | head -n 1
}

@test "--net=isolated: /sys shows only the new namespace's lo; the host's interfaces are neither listed nor writable (default and --pidns)" {
	require "user and network namespaces" unshare -Urn true
	local hif probe mode outs="" alias mtu txq
	hif=$(host_if)
	[ -n "$hif" ] || skip "no network interface on the host but lo"
	alias=$(cat "/sys/class/net/$hif/ifalias")
	mtu=$(cat "/sys/class/net/$hif/mtu")
	txq=$(cat "/sys/class/net/$hif/tx_queue_len")
	# every way to the interface: its class link, its device (virtual or not),
	# the per-namespace sysctls, and a search of /sys
	probe='echo "net: $(ls /sys/class/net | tr "\n" " ")"
		for p in /sys/class/net/$1 /sys/devices/virtual/net/$1 /proc/sys/net/ipv4/conf/$1 \
			/proc/sys/net/ipv6/conf/$1; do
			[ -e "$p" ] && echo "seen $p"
		done
		find /sys/devices /sys/class /sys/bus -name "$1" 2>/dev/null | sed "s/^/found /"
		for d in /sys/class/net/$1 /sys/devices/virtual/net/$1; do
			echo forged 2>/dev/null >"$d/ifalias" && echo "wrote $d/ifalias"
			echo 1280 2>/dev/null >"$d/mtu" && echo "wrote $d/mtu"
			echo 7 2>/dev/null >"$d/tx_queue_len" && echo "wrote $d/tx_queue_len"
		done
		true'
	# both modes: --net=isolated implies init's namespaces either way
	for mode in default --pidns; do
		opts=()
		[ "$mode" = default ] || opts=("$mode")
		outs+="$("$ISORUN" --root "$R" "${opts[@]}" --net=isolated -- sh -c "$probe" sh "$hif" 2>&1)
"
	done
	# control: without isolation the same probe sees the interface
	ctl=$("$ISORUN" --root "$R" -- sh -c 'ls /sys/class/net' 2>&1)
	after="$(cat "/sys/class/net/$hif/ifalias") $(cat "/sys/class/net/$hif/mtu") $(cat "/sys/class/net/$hif/tx_queue_len")"
	[[ "$hif" != isot* ]] || ip link del "$hif"
	echo "$outs"
	[ "$outs" = "net: lo 
net: lo 
" ]
	[ "$after" = "$alias $mtu $txq" ]
	[[ "$ctl" == *"$hif"* ]]
}

@test "--net=isolated: what was mounted below /sys is still there, over the new sysfs" {
	require "user and network namespaces" unshare -Urn true
	# each mount point's filesystem type: sysfs where a mount was left behind
	types='for m in $(awk '"'"'$5 ~ "^/sys/" { print $5 }'"'"' /proc/self/mountinfo | sort -u); do
		echo "$m $(stat -f -c %T "$m")"
	done'
	want=$(sh -c "$types")
	[ -n "$want" ] || skip "nothing is mounted below /sys here"
	[[ "$want" != *sysfs* ]]
	run iso --net=isolated -- sh -c "$types"
	[ "$status" -eq 0 ]
	[ "$output" = "$want" ]
	run iso --net=isolated -- stat -f -c %T /sys
	[ "$output" = sysfs ]
}

@test "control: without --net=isolated a second listener on the same port collides" {
	require "python3" python3 -c 'import socket'
	python3 -c 'import socket,sys
s=socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.accept()' "$W/port" 3>&- &
	lp=$!
	"$H/waitfor" "$W/port"
	port=$(cat "$W/port")
	run iso -- python3 -c "import socket; socket.socket().bind(('127.0.0.1', $port))"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Address already in use"* ]]
	run iso --net=isolated -- python3 -c "import socket; socket.socket().bind(('127.0.0.1', $port))"
	[ "$status" -eq 0 ]
	python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))"
	wait "$lp" || true
}

@test "capabilities: an ordinary user's --pidns --map-root has an empty bounding set and no_new_privs; --cap-keep keeps one" {
	if [ "$(id -u)" -eq 0 ]; then
		skip "root needs no user namespace: its --pidns keeps root's capabilities (tested below)"
	fi
	require "user and PID namespaces" userns_ok
	run iso --pidns --map-root -- grep -E '^(CapBnd|CapAmb|CapEff|NoNewPrivs)' /proc/self/status
	[[ "$output" == *"CapBnd:	0000000000000000"* ]]
	[[ "$output" == *"CapAmb:	0000000000000000"* ]]
	[[ "$output" == *"NoNewPrivs:	1"* ]]
	run iso --pidns --map-root --cap-keep net_bind_service -- grep '^CapBnd' /proc/self/status
	[ "$output" = "CapBnd:	0000000000000400" ]
	run --separate-stderr iso -v --pidns --map-root -- true
	[[ "$stderr" == *"isorun: capabilities: dropped all but --cap-keep (root of a user namespace keeps only --cap-keep)"* ]]
}

# As root under OPTS: a raw socket, setgroups, chown of a file to another uid and
# group, a uid drop; each prints its name when it works.
root_powers() {
	run --separate-stderr iso "$@" -- python3 -c '
import os, socket
def try_(name, f):
    try:
        f(); print(name)
    except OSError as e:
        print(name, "failed:", e)
try_("raw", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).close())
try_("setgroups", lambda: os.setgroups([65534]))
p = os.path.join(os.environ["TMPDIR"], "f")
open(p, "w").close()
try_("chown", lambda: os.chown(p, 65534, 65534))
pid = os.fork()
if pid == 0:
    try:
        os.setgid(65534); os.setuid(65534); os._exit(0 if os.getuid() == 65534 else 1)
    except OSError:
        os._exit(1)
print("setuid" if os.waitpid(pid, 0)[1] == 0 else "setuid failed")
'
	echo "$output" >&2
	[ "$status" -eq 0 ]
}

@test "capabilities: as root --pidns keeps root's powers: raw socket, setgroups, chown to another user, uid drop" {
	if [ "$(id -u)" -ne 0 ]; then
		skip "applies to real root only"
	fi
	require "PID namespaces" iso --pidns -- true
	root_powers --pidns
	[ "$output" = "$(printf 'raw\nsetgroups\nchown\nsetuid')" ]
	# control: the same without --pidns
	root_powers
	[ "$output" = "$(printf 'raw\nsetgroups\nchown\nsetuid')" ]
	# and under the full hermetic line: only what could undo a protection goes
	root_powers --pidns --private-tmp --protect-home=ro --net=isolated
	[ "$output" = "$(printf 'raw\nsetgroups\nchown\nsetuid')" ]
}

# As root under OPTS: mount a tmpfs in $TMPDIR and unmount it, then try to unmount
# the real home (its passwd entry's).
try_umount() {
	run --separate-stderr iso "$@" -- python3 -c '
import ctypes, os, pwd
libc = ctypes.CDLL(None, use_errno=True)
m = os.path.join(os.environ["TMPDIR"], "m"); os.mkdir(m)
r = libc.mount(b"none", m.encode(), b"tmpfs", 0, None)
print("mount", "ok" if r == 0 else os.strerror(ctypes.get_errno()))
home = pwd.getpwuid(os.getuid()).pw_dir.encode()
r = libc.umount2(home, 2)  # MNT_DETACH
print("umount home", "ok" if r == 0 else os.strerror(ctypes.get_errno()))
'
	echo "$output $stderr" >&2
	[ "$status" -eq 0 ]
}

@test "capabilities: as root --protect-home=ro drops CAP_SYS_ADMIN (the command cannot unmount it), and -v says why" {
	if [ "$(id -u)" -ne 0 ]; then
		skip "applies to real root only"
	fi
	require "PID namespaces" iso --pidns -- true
	try_umount -v --pidns --protect-home=ro
	[ "${lines[0]}" = "mount Operation not permitted" ]
	[ "${lines[1]}" = "umount home Operation not permitted" ]
	[[ "$stderr" == *"isorun: capabilities: dropped cap_dac_read_search,cap_sys_ptrace,cap_sys_admin (they could undo --protect-home=ro); "* ]]
	# control: bare --pidns keeps CAP_SYS_ADMIN, mounts are the command's own business
	try_umount -v --pidns
	[ "${lines[0]}" = "mount ok" ]
	[[ "$stderr" != *"cap_sys_admin"* ]]
	# control: --cap-keep sys_admin wins over the protection, and the home can be unmounted
	try_umount --pidns --protect-home=ro --cap-keep sys_admin
	[ "${lines[1]}" = "umount home ok" ]
}

@test "capabilities: the report names the kept and the dropped ones with why; --cap-keep all drops none" {
	if [ "$(id -u)" -ne 0 ]; then
		run iso --report "$W/r.json" -- true
		python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["capabilities"] is None' "$W/r.json"
		skip "the rest applies to real root only"
	fi
	require "PID namespaces" iso --pidns -- true
	run iso --report "$W/r.json" --pidns --private-tmp -- true
	[ "$status" -eq 0 ]
	python3 - "$W/r.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["capabilities"]
why = {d["name"]: d["why"] for d in c["dropped"]}
assert why["cap_sys_admin"] == "could undo --private-tmp", why
assert why["cap_sys_boot"] == "acts on the whole host", why
assert "cap_net_raw" in c["kept"] and "cap_setuid" in c["kept"], c
PY
	run iso --report "$W/r.json" --pidns --cap-keep all -- grep '^CapBnd' /proc/self/status
	[ "$output" = "$(grep '^CapBnd' /proc/self/status)" ]
	python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["capabilities"]["dropped"] == []' "$W/r.json"
}

@test "capabilities: as real root without --pidns the dangerous ones leave the bounding set" {
	if [ "$(id -u)" -ne 0 ]; then
		skip "applies to real root only"
	fi
	run iso -- grep '^CapBnd' /proc/self/status
	bnd=$((16#${output##*:	}))
	for cap in 22 16 25 17 33 32 30; do # SYS_BOOT SYS_MODULE SYS_TIME SYS_RAWIO MAC_ADMIN MAC_OVERRIDE AUDIT_CONTROL
		[ $(((bnd >> cap) & 1)) -eq 0 ]
	done
	[ $(((bnd >> 21) & 1)) -eq 1 ] # CAP_SYS_ADMIN stays: root keeps root's identity
	# --cap-keep restores one, if this process still has it (an enclosing isorun,
	# like the one our own suite runs under, has taken it already)
	mine=$(grep '^CapBnd' /proc/self/status)
	mine=$((16#${mine##*:	}))
	run iso --cap-keep sys_time -- grep '^CapBnd' /proc/self/status
	bnd=$((16#${output##*:	}))
	[ $(((bnd >> 25) & 1)) -eq $(((mine >> 25) & 1)) ]
}

@test "bad namespace options are one-line errors with 125" {
	run --separate-stderr iso --pidns=maybe -- true
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: --pidns: expected nothing or =try, got 'maybe'" ]
	run --separate-stderr iso --net=none -- true
	[ "${stderr_lines[0]}" = "isorun: --net: expected host or isolated, got 'none'; did you mean --net=isolated?" ]
	run --separate-stderr iso --protect-home=yes -- true
	[ "${stderr_lines[0]}" = "isorun: --protect-home: expected off, ro (read-only) or hide, got 'yes'" ]
	run --separate-stderr iso --cap-keep cap_nope -- true
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: --cap-keep: unknown capability 'cap_nope'"* ]]
	[ ! -e "$U" ] || assert_no_tree
}

@test "when a seccomp filter refuses namespaces, --pidns explains and fails with 125; =try falls back" {
	require "user and PID namespaces" userns_ok
	run --separate-stderr "$H/denyns" "$ISORUN" --root "$R" --pidns -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"seccomp"* ]]
	[ ! -e "$U" ] || assert_no_tree
	run --separate-stderr "$H/denyns" "$ISORUN" --root "$R" --pidns=try --report "$W/r.json" -- true
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"isorun: pidns: not available ("*"); using the subreaper gate"* ]]
	python3 -c 'import json,sys; i=json.load(open(sys.argv[1]))["isolation"]; assert i["pidns"] is False and i["pidns_reason"] and i["leak_check"]=="subreaper", i' "$W/r.json"
	assert_no_tree
}

@test "an option that needs the namespace does not send the user to --pidns=try" {
	require "user and PID namespaces" userns_ok
	run --separate-stderr "$H/denyns" "$ISORUN" --root "$R" --protect-home=ro --pidns=try -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"--pidns=try cannot help: --protect-home needs a namespace of its own"* ]]
	[[ "$stderr" != *"use --pidns=try"* ]]
	[ ! -e "$U" ] || assert_no_tree
	# control: a bare --pidns is still pointed at the fallback; outside any isorun
	# (the suite runs under one) no enclosing isorun is blamed
	run --separate-stderr env -u ISORUN_NAMESPACE "$H/denyns" "$ISORUN" --root "$R" --pidns -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"use --pidns=try"* ]]
	[[ "$stderr" != *"inside another one"* ]]
}

@test "a namespace refused inside another isorun names the enclosing isorun as the likely cause" {
	require "user and PID namespaces" userns_ok
	ISORUN_NAMESPACE=/outer run --separate-stderr "$H/denyns" "$ISORUN" --root "$R" --pidns -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"this isorun runs inside another one (ISORUN_NAMESPACE is set), whose namespaces or filter may refuse it; or use --pidns=try"* ]]
	[ ! -e "$U" ] || assert_no_tree
}

@test "when user.max_user_namespaces is 0, --pidns names the sysctl and fails with 125" {
	require "user namespaces" unshare -Ur true
	# a limit of 1 in an outer test namespace: the inner one (where isorun runs as an
	# ordinary uid) exists, so isorun's own would be the second and is refused
	run --separate-stderr unshare -Ur sh -c "
		echo 1 > /proc/sys/user/max_user_namespaces &&
		exec unshare --user --map-user=1000 --map-group=1000 \
			env ISORUN_ROOT=$W $ISORUN --pidns -- true"
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"max_user_namespaces"* ]]
	[ -z "$(find "$W" -mindepth 2 -maxdepth 2 -path '*/isorun-*/*')" ]
}

@test "isorun --pidns inside isorun --pidns: the nested run gets namespaces of its own, as root and as an ordinary user" {
	require "user and PID namespaces" userns_ok
	local opts
	for opts in "--pidns" "--pidns --protect-home=ro --private-tmp --net=isolated"; do
		# shellcheck disable=SC2086 # the options are words
		run --separate-stderr iso --pidns -- "$ISORUN" --no-config $opts -- \
			sh -c 'echo "pid=$$ ns=$ISORUN_NAMESPACE"'
		[ "$status" -eq 0 ]
		[[ "$output" == "pid=2 ns=$U/"*"/tmp/isorun-"* ]]
		[[ "$stderr" != *"seccomp"* && "$stderr" != *"FAILED"* ]]
	done
	assert_no_tree
}
