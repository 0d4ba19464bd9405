#!/usr/bin/env bats
# The seccomp policy: host-mutating calls refused, read-only queries let through.
# systemctl, crontab and service are stand-ins in a private PATH directory that
# record their argv, so a mistaken allow shows up in the log and never touches
# the host's services.

load helpers

# a socket directory made outside the test's own tree goes with the test
teardown() {
	if [ -n "${S:-}" ]; then rm -rf "$S"; fi
	validate_outputs
}

stand_ins() {
	mkdir -p "$W/bin"
	for p in systemctl crontab service loginctl; do
		printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$p" "$W/ran" >"$W/bin/$p"
		chmod +x "$W/bin/$p"
	done
	export PATH="$W/bin:$PATH"
}

@test "systemctl restart is refused and reported; the run fails with 122" {
	stand_ins
	run --separate-stderr iso --report "$W/r.json" -- sh -c 'systemctl restart nginx; echo "rc=$?"'
	[ "$status" -eq 122 ]
	[ "$output" = "rc=126" ]
	[ ! -e "$W/ran" ]
	[[ "$stderr" == *"isorun: refused: execve \`systemctl restart nginx\` (pid "*", rule default.policy:"*")"* ]]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 122): 1 call refused" ]
	python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["policy"]; assert p["name"]=="default" and p["refused"][0]["call"]=="execve" and "restart" in p["refused"][0]["detail"], p' "$W/r.json"
}

@test "the guard sits on exec itself: sh -c, env, and Python's subprocess are caught" {
	stand_ins
	run iso -- sh -c 'systemctl stop x'
	# the shell's own status is the refused exec's 126, and a failing command keeps it
	[ "$status" -eq 126 ]
	[[ "$output" == *"refused: execve \`systemctl stop x\`"* ]]
	run iso -- env crontab -r
	[ "$status" -eq 126 ]
	[[ "$output" == *"refused: execve \`crontab -r\`"* ]]
	require "python3" python3 -c 'import subprocess'
	run iso -- python3 -c 'import subprocess; subprocess.run(["systemctl", "enable", "x"])'
	[ "$status" -ne 0 ]
	[[ "$output" == *"refused: execve \`systemctl enable x\`"* ]]
	[ ! -e "$W/ran" ]
}

@test "read-only queries pass: systemctl is-active, status, crontab -l, service status" {
	stand_ins
	run --separate-stderr iso -- sh -c 'systemctl is-active x; systemctl status; systemctl; crontab -l; service nginx status; loginctl list-sessions'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(cat "$W/ran")" = "systemctl is-active x
systemctl status
systemctl 
crontab -l
service nginx status
loginctl list-sessions" ]
}

@test "systemctl --user mutations are guarded too; loginctl enable-linger is refused" {
	stand_ins
	run iso -- systemctl --user restart x
	[ "$status" -eq 126 ]
	run iso -- loginctl enable-linger
	[ "$status" -eq 126 ]
	[ ! -e "$W/ran" ]
}

@test "an option's own argument is not the verb: systemctl -p status restart, loginctl -M .host terminate-user" {
	stand_ins
	run --separate-stderr iso -- sh -c '
		systemctl -p status restart nginx
		systemctl --property status stop nginx
		systemctl -pstatus restart x
		systemctl --prop=status kill x
		loginctl -M .host terminate-user root
		systemctl --no-such-option status restart
		systemctl -p Id show x
		loginctl --no-pager list-sessions'
	[ "$status" -eq 122 ]
	[ "$(cat "$W/ran")" = "systemctl -p Id show x
loginctl --no-pager list-sessions" ]
	[ "$(grep -c 'isorun: refused: execve' <<<"$stderr")" -eq 6 ]
	[[ "$stderr" == *"refused: execve \`loginctl -M .host terminate-user root\`"* ]]
}

@test "the deny-list refuses reboot, module loading, clock and swap calls with EPERM" {
	run iso -- "$H/callsys" reboot init_module clock_settime swapoff
	[ "$status" -eq 0 ]
	[ "$output" = "reboot EPERM
init_module EPERM
clock_settime EPERM
swapoff EPERM" ]
}

@test "the deny-list refuses every spelling of a denied call: quotactl_fd as quotactl" {
	run iso -- "$H/callsys" quotactl_fd
	[ "$status" -eq 0 ]
	[ "$output" = "quotactl_fd EPERM" ]
	# control: without the policy the call reaches the kernel, which refuses the bad fd
	run iso --policy=off -- "$H/callsys" quotactl_fd
	[ "$output" = "quotactl_fd EBADF" ]
	# a policy file that names the newer spelling denies the older one too
	printf 'policy t\ndeny quotactl_fd\n' >"$W/t.policy"
	run iso --policy="$W/t.policy" -- "$H/callsys" quotactl
	[ "$output" = "quotactl EPERM" ]
	run iso --policy=off -- "$H/callsys" quotactl
	[ "$output" = "quotactl EINVAL" ]
}

@test "the console's input is refused as TIOCSTI is: TIOCLINUX (any subcode) and the keymap writers" {
	run iso -- "$H/callsys" tioclinux tioclinux-shift kdskbsent kdskbent kdsetkeycode tiocsti \
		tiocgwinsz </dev/null
	[ "$status" -eq 0 ]
	# tiocgwinsz is the control: an ioctl no policy denies reaches the kernel
	[ "$output" = "tioclinux EPERM
tioclinux-shift EPERM
kdskbsent EPERM
kdskbent EPERM
kdsetkeycode EPERM
tiocsti EPERM
tiocgwinsz ENOTTY" ]
	run iso --policy=off -- "$H/callsys" tioclinux kdskbsent </dev/null
	[ "$output" = "tioclinux ENOTTY
kdskbsent ENOTTY" ]
}

@test "control: with --policy=off the same calls reach the kernel and fail on their arguments" {
	run iso --policy=off -- "$H/callsys" clock_settime
	[ "$output" = "clock_settime EINVAL" ]
	# (reboot is no control: a root command has lost CAP_SYS_BOOT to the capability guard)
	if [ "$(id -u)" -eq 0 ]; then
		run iso --policy=off -- "$H/callsys" swapoff
		[ "$output" = "swapoff ENOENT" ]
	fi
	stand_ins
	run iso --policy=off -- systemctl restart x
	[ "$status" -eq 0 ]
	[ "$(cat "$W/ran")" = "systemctl restart x" ]
}

@test "--policy-mode=log lets the call through and reports it as logged" {
	stand_ins
	run --separate-stderr iso --policy-mode=log -- systemctl restart x
	[ "$status" -eq 0 ]
	[ "$(cat "$W/ran")" = "systemctl restart x" ]
	[[ "$stderr" == *"isorun: logged: execve \`systemctl restart x\`"* ]]
}

@test "--policy=strict refuses connect() to the service managers' sockets" {
	require "python3" python3 -c 'import socket'
	run iso --policy=strict -- python3 -c '
import socket, errno
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("/run/systemd/private")
except OSError as e:
    print(errno.errorcode[e.errno])'
	[ "$output" = "EPERM" ] || [[ "$output" == *"EPERM"* ]]
}

@test "a nested isorun leaves the service guard to the enclosing one, and still refuses" {
	stand_ins
	run iso -- "$ISORUN" --root "$R" -- systemctl restart x
	[[ "$output" == *"isorun: policy: service guard enforced by the enclosing isorun"* ]]
	[[ "$output" == *"refused: execve \`systemctl restart x\`"* ]]
	[ ! -e "$W/ran" ]
}

@test "isorun policy show prints the canonical form; policy check validates" {
	run "$ISORUN" policy show default
	[ "$status" -eq 0 ]
	[[ "$output" == *"deny reboot"* ]]
	[[ "$output" == *"guard systemctl"* ]]
	printf 'deny reboot\nguard systemctl allow status\n' >"$W/ok.policy"
	run "$ISORUN" policy check "$W/ok.policy"
	[ "$status" -eq 0 ]
}

@test "an unknown policy NAME lists the shipped ones (policy show, policy check, --policy); a near one is suggested" {
	run --separate-stderr "$ISORUN" policy show nosuch
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: policy show: 'nosuch' is no shipped policy and no file (shipped: default, strict, off)" ]
	run --separate-stderr "$ISORUN" policy show stirct
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: policy show: 'stirct' is no shipped policy and no file; did you mean strict?" ]
	run --separate-stderr "$ISORUN" policy check nosuch
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: policy check: 'nosuch' is no shipped policy and no file (shipped: default, strict, off)" ]
	run --separate-stderr iso --policy=nosuch -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: --policy: 'nosuch' is no shipped policy and no file (shipped: default, strict, off)" ]
	[ ! -e "$W/ran" ]
	[ ! -e "$U" ] || assert_no_tree
	# a path is a path: its own error
	run --separate-stderr "$ISORUN" policy show "$W/none.policy"
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: $W/none.policy: cannot read: No such file or directory" ]
}

@test "a bad policy file is an error with file:line:col and a caret, exit 125, nothing left" {
	printf 'deny reboot\ndeny rebooot\n' >"$W/bad.policy"
	run --separate-stderr iso --policy="$W/bad.policy" -- touch "$W/ran"
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: --policy: $W/bad.policy:2:6: "* ]]
	[[ "$stderr" == *"^"* ]]
	[ ! -e "$W/ran" ]
	[ ! -e "$U" ] || assert_no_tree
	run "$ISORUN" policy check "$W/bad.policy"
	[ "$status" -eq 125 ]
}

@test "deny-socket paths are refused, and under --pidns also masked in the mount namespace" {
	require "python3" python3 -c 'import socket'
	require "user and PID namespaces" unshare -Urpf --mount-proc --propagation slave true
	S=$(mktemp -d /tmp/isorun-sock.XXXXXX)
	python3 -c 'import socket,sys
s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen()
open(sys.argv[1] + ".ready", "w").close()
s.accept()' "$S/svc.sock" 3>&- &
	lp=$!
	"$H/waitfor" "$S/svc.sock.ready"
	printf 'include default\ndeny-socket %s\n' "$S/svc.sock" >"$W/sock.policy"
	probe="import socket, errno
s = socket.socket(socket.AF_UNIX)
try:
    s.connect('$S/svc.sock'); print('connected')
except OSError as e:
    print(errno.errorcode[e.errno])"
	run iso --policy="$W/sock.policy" -- python3 -c "$probe"
	[[ "$output" == *EPERM* ]]
	[[ "$output" == *"refused: connect"* ]]
	run iso --pidns --policy="$W/sock.policy" -- sh -c "test -S '$S/svc.sock' && echo socket || echo masked"
	[[ "$output" == *masked* ]]
	# control: without the rule the same connect goes through
	run iso -- python3 -c "$probe"
	[[ "$output" == *connected* ]]
	wait "$lp" || true
}

@test "deny-socket compares the socket, not its spelling: //, ., .., a symlink, /proc/self/fd/N" {
	require "python3" python3 -c 'import socket'
	# sun_path holds 108 bytes: a deep $TMPDIR cannot hold the sockets
	S=$(mktemp -d /tmp/isorun-sock.XXXXXX)
	mkdir -p "$S/sub"
	python3 -c 'import socket, signal, sys
socks = []
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(64); socks.append(s)
open(sys.argv[1] + ".ready", "w").close()
signal.pause()' "$S/svc.sock" "$S/other.sock" 3>&- &
	lp=$!
	"$H/waitfor" "$S/svc.sock.ready"
	printf 'include default\ndeny-socket %s\n' "$S/svc.sock" >"$W/sock.policy"
	# every way to name the denied socket; the same for another socket must connect
	probe='import errno, os, socket, sys
w, name = sys.argv[1], sys.argv[2]
tmp = os.environ["TMPDIR"]
os.symlink(w + "/" + name, tmp + "/link")
os.symlink(w, tmp + "/dirlink")
fd = os.open(w + "/" + name, os.O_PATH)
# sun_path holds 108 bytes and a nested $TMPDIR can be longer: the symlinks
# are named from their own directory
sub = w + "/sub"
for how, cwd, path in [("exact", sub, w + "/" + name),
                  ("slashes", sub, w.replace("/", "//") + "//" + name),
                  ("dot", sub, w + "/./" + name), ("dotdot", sub, w + "/sub/../" + name),
                  ("root-dotdot", sub, "/.." + w + "/" + name), ("relative", sub, "../" + name),
                  ("symlink", tmp, "link"), ("dir-symlink", tmp, "dirlink/" + name),
                  ("proc-self-fd", sub, "/proc/self/fd/%d" % fd),
                  ("proc-thread-self-fd", sub, "/proc/thread-self/fd/%d" % fd),
                  ("proc-pid-fd", sub, "/proc/%d/fd/%d" % (os.getpid(), fd))]:
    os.chdir(cwd)
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path); print(how, "connected")
    except OSError as e:
        print(how, errno.errorcode.get(e.errno, str(e)))
    s.close()'
	run --separate-stderr iso --policy="$W/sock.policy" -- python3 -c "$probe" "$S" svc.sock
	denied_status=$status denied=$output denied_err=$stderr
	run --separate-stderr iso --policy="$W/sock.policy" -- python3 -c "$probe" "$S" other.sock
	kill "$lp"
	wait "$lp" || true
	[ "$status" -eq 0 ]
	[ "$(grep -c ' connected$' <<<"$output")" -eq 11 ]
	output=$denied stderr=$denied_err
	[ "$denied_status" -eq 122 ]
	[ "$output" = "exact EPERM
slashes EPERM
dot EPERM
dotdot EPERM
root-dotdot EPERM
relative EPERM
symlink EPERM
dir-symlink EPERM
proc-self-fd EPERM
proc-thread-self-fd EPERM
proc-pid-fd EPERM" ]
	[[ "$stderr" == *"refused: connect \`/proc/self/fd/"* ]]
}

@test "a read of the command's memory that the command makes wait is bounded: the call is refused and says why, the run goes on" {
	[ "$(id -u)" -eq 0 ] || skip "userfaultfd is root's on this host (vm.unprivileged_userfaultfd=0)"
	printf 'include default\ndeny-socket /run/isorun-test-none.sock\n' >"$W/sock.policy"
	# (under --pidns root's command is in a user namespace: userfaultfd is refused there)
	# A sanitized helper runs without LeakSanitizer: its stop of the world at exit is
	# a ptrace, which the stuck reader refuses as it refuses every read
	for mode in ""; do
		# an exec whose argv is on a page never filled: refused after the
		# deadline, and the next exec (the page's owner gone) is read again
		run timeout 60 "$ISORUN" --no-config --root "$R" $mode -- \
			sh -c "ASAN_OPTIONS=detect_leaks=0 $H/uffdhold exec /bin/echo; echo after"
		echo "$output"
		[ "$status" -eq 122 ]
		[[ "$output" == *"execve: Operation not permitted"* ]]
		[[ "$output" == *"after"* ]]
		[[ "$output" == *"not read within"*"the target's memory made the read wait"* ]]
		# the connect() a deny-socket rule reads the address of
		run timeout 60 "$ISORUN" --no-config --root "$R" --policy "$W/sock.policy" $mode -- \
			env ASAN_OPTIONS=detect_leaks=0 "$H/uffdhold" connect
		echo "$output"
		[ "$status" -eq 3 ]
		[[ "$output" == *"connect: Operation not permitted"* ]]
		[[ "$output" == *"not read within"* ]]
	done
	assert_no_tree
}

@test "a call the command makes before its exec's word has reached the start loop is read with a deadline, in both gates" {
	[ "$(id -u)" -eq 0 ] || skip "mounting FUSE is root's on this host"
	require "FUSE" test -c /dev/fuse
	# late-exec-word: the start loop answers calls until one is refused before
	# it looks at the exec's word, as a loaded machine may (under --pidns init's
	# loop leaves the calls after the exec to the outer, which reads them with
	# the same deadline).  The one refused is
	# an exec whose argv lies on a page
	# of a file whose READ is never answered, served by the command's own FUSE
	# server in a user and mount namespace of its own (under --pidns root's
	# command is in a user namespace: no userfaultfd there).  A read of such a
	# page waits uninterruptibly until the server dies: the run's end kills it
	# (a leak), and every read meanwhile is refused at once: under SANITIZE=1 the
	# ptrace LeakSanitizer makes at the helper's exit too, so it runs without.
	mkdir "$W/mnt"
	cat >"$W/cmd" <<-EOF
		"$H/fusestall" "$W/mnt" "$W/ready" --file 3>&- &
		"$H/waitfor" "$W/ready"
		exec env ASAN_OPTIONS=detect_leaks=0 "$H/uffdhold" exec-file "$W/mnt/f" /bin/echo
	EOF
	for mode in "" --pidns; do
		rm -f "$W/ready"
		run env ISORUN_TEST_FAULT=late-exec-word timeout -k 5 60 "$ISORUN" --no-config \
			--root "$R" $mode -- unshare -Urm --propagation slave sh "$W/cmd"
		echo "$mode: $output"
		[ "$status" -eq 3 ]
		[[ "$output" == *"execve: Operation not permitted"* ]]
		[[ "$output" == *"not read within 1000 ms: the target's memory made the read wait"* ]]
		[[ "$output" == *"leaked: pid "*"killed"* ]]
	done
	assert_no_tree
}

@test "while the command makes every exec's read wait, --timeout and a SIGTERM still end the run on time" {
	[ "$(id -u)" -eq 0 ] || skip "userfaultfd is root's on this host (vm.unprivileged_userfaultfd=0)"
	loop="while :; do $H/uffdhold exec /bin/echo; done"
	run timeout 60 "$ISORUN" --no-config --root "$R" --timeout 1500ms --grace 100ms -- sh -c "$loop"
	[ "$status" -eq 124 ]
	"$ISORUN" --no-config --root "$R" -- sh -c "touch $W/ready; $loop" >/dev/null 2>"$W/err" 3>&- &
	pid=$!
	"$H/waitfor" "$W/ready"
	kill -TERM "$pid"
	wait "$pid" && rc=0 || rc=$?
	cat "$W/err"
	[ "$rc" -eq 143 ]
	assert_no_tree
}
