#!/usr/bin/env bats
# contain-signals (issue 27 item 5): without --pidns a signal from the command
# may reach only processes of the run.  An outside process is a sigcatch the test
# starts; after the run it is sent SIGUSR2, and DIR/got says which signal reached
# it first (12: nothing from the command did).
# kill(-1) and the pid-reuse test run in a PID namespace of their own, so that a
# guard that fails kills what is in it, not bats.

load helpers

S() { echo "$H/sigsend"; }

# Whether this kernel confines signals and ptrace to a Landlock domain (Linux 6.12).
has_scope() { [ "$("$H/reach" scope)" = "scope OK" ]; }
# The run as on a kernel without that scope: isorun's probe for Landlock fails, and
# the policy notifies the signal calls and decides them (the older kernels' path).
NOTIFIED="landlock_create_ruleset"
iso_notified() { "$H/denycall" "$NOTIFIED" "$ISORUN" --no-config --root "$R" "$@"; }

# An outside process in a session and group of its own: its pid in $P.
outside() {
	mkdir -p "$W/out"
	setsid "$H/sigcatch" "$W/out" 3>&- &
	P=$!
	"$H/waitfor" "$W/out/ready"
}

# What reached the outside process first: 12 when nothing from the command did.
# Called as $(outside_got), a subshell, which cannot wait for $P: the file it
# writes (renamed into place) is the event; bash reaps $P.
outside_got() {
	kill -USR2 "$P" 2>/dev/null || true
	"$H/waitfor" -t 30 "$W/out/got" >&2 || true
	cat "$W/out/got"
}

@test "without the kernel's scope, a signal to a process outside the run is refused with EPERM and a finding naming the call" {
	outside
	run --separate-stderr iso_notified -- "$(S)" kill 10 "$P"
	[ "$output" = "kill EPERM" ]
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"refused: kill \`SIGUSR1 to pid $P (sigcatch), outside the run\`"*"rule default.policy:"* ]]
	[ "$(outside_got)" = 12 ]
	assert_no_tree
}

@test "tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo and pidfd_send_signal to an outside process are refused too" {
	outside
	for call in tkill "tgkill $P $P" queue "tgqueue $P $P" pidfd; do
		set -- $call
		if [ $# -eq 1 ]; then set -- "$1" 10 "$P"; else set -- "$1" 10 "$2" "$3"; fi
		run --separate-stderr iso_notified -- "$(S)" "$@"
		[ "$output" = "$1 EPERM" ]
		name=$1
		case $1 in queue) name=rt_sigqueueinfo ;; tgqueue) name=rt_tgsigqueueinfo ;; pidfd) name=pidfd_send_signal ;; esac
		[[ "$stderr" == *"refused: $name \`SIGUSR1 to pid $P (sigcatch), outside the run\`"* ]]
	done
	[ "$(outside_got)" = 12 ]
}

@test "kill(-pgid) and a pidfd's group signal to an outside group are refused; kill(pid, 0) only probes and passes" {
	outside
	run --separate-stderr iso_notified -- "$(S)" kill 10 "-$P"
	[ "$output" = "kill EPERM" ]
	[[ "$stderr" == *"refused: kill \`SIGUSR1 to process group $P (pid $P (sigcatch) in it), outside the run\`"* ]]
	# pidfd_send_signal(PIDFD_SIGNAL_PROCESS_GROUP): the group of the pidfd's process
	run --separate-stderr iso_notified -- "$(S)" pidfd-group 10 "$P"
	[ "$output" = "pidfd-group EPERM" ]
	[[ "$stderr" == *"refused: pidfd_send_signal \`SIGUSR1 to process group $P (pid $P (sigcatch) in it), outside the run\`"* ]]
	run --separate-stderr iso_notified -- "$(S)" kill 0 "$P"
	[ "$output" = "kill OK" ]
	[ "$status" -eq 0 ]
	[ "$(outside_got)" = 12 ]
}

@test "control: with --policy=off, or a policy without contain-signals, the same signal goes out" {
	outside
	run --separate-stderr iso --policy=off -- "$(S)" kill 10 "$P"
	[ "$output" = "kill OK" ]
	[ "$(outside_got)" = 10 ]
	outside
	printf 'deny reboot\n' >"$W/p.policy"
	run --separate-stderr iso --policy="$W/p.policy" -- "$(S)" pidfd 10 "$P"
	[ "$output" = "pidfd OK" ]
	[ "$(outside_got)" = 10 ]
}

@test "--policy-mode=log lets the signal out and reports it" {
	outside
	run --separate-stderr iso --policy-mode=log -- "$(S)" kill 10 "$P"
	[ "$output" = "kill OK" ]
	[[ "$stderr" == *"logged: kill \`SIGUSR1 to pid $P (sigcatch), outside the run\`"* ]]
	[ "$(outside_got)" = 10 ]
}

@test "signals inside the run go through: to a child, an orphan, the own group, self, by every call" {
	for call in kill tkill queue pidfd tgkill tgqueue; do
		rm -rf "$W/in" "$W/orph"
		mkdir -p "$W/in" "$W/orph"
		# timeout: a safety net, a refused signal would leave the shell waiting
		run --separate-stderr timeout 60 "$ISORUN" --no-config --root "$R" -- sh -c '
			H=$1 W=$2 call=$3
			"$H/sigcatch" "$W/in" & c=$!
			# an orphan: its parent exits, isorun (the subreaper) adopts it
			sh -c "\"$H/sigcatch\" \"$W/orph\" & echo \$! >\"$W/orph.pid\"" 
			o=$(cat "$W/orph.pid")
			"$H/waitfor" "$W/in/ready"; "$H/waitfor" "$W/orph/ready"
			case $call in tg*) "$H/sigsend" $call 10 $c $c; "$H/sigsend" $call 12 $o $o ;;
			*) "$H/sigsend" $call 10 $c; "$H/sigsend" $call 12 $o ;; esac
			wait $c
			"$H/waitfor" "$W/orph/got"
			"$H/sigsend" $call 10 self self' sh "$H" "$W" "$call"
		[ "$status" -eq 0 ]
		[ "$(cat "$W/in/got")" = 10 ]
		[ "$(cat "$W/orph/got")" = 12 ]
		[ "${lines[0]}" = "$call OK" ]
		[ "${lines[1]}" = "$call OK" ]
		[ "${lines[2]}" = "$call OK" ]
		[ "${lines[3]}" = "got 10" ]
		[[ "$stderr" != *refused* ]]
	done
	# the own group: kill(0) reaches the shell itself
	run --separate-stderr iso -- sh -c 'trap "echo caught; exit 0" USR1; "$1/sigsend" kill 10 0; echo missed' sh "$H"
	[ "$status" -eq 0 ]
	[[ "$output" == *caught* ]]
}

@test "without a cgroup (--cgroup=off) the run is isorun's descendants: a child and an orphan get the signal" {
	mkdir -p "$W/in" "$W/orph"
	run --separate-stderr timeout 60 "$ISORUN" --no-config --root "$R" --cgroup=off -- sh -c '
		H=$1 W=$2
		"$H/sigcatch" "$W/in" & c=$!
		sh -c "\"$H/sigcatch\" \"$W/orph\" & echo \$! >\"$W/orph.pid\""
		o=$(cat "$W/orph.pid")
		"$H/waitfor" "$W/in/ready"; "$H/waitfor" "$W/orph/ready"
		"$H/sigsend" kill 10 $c; "$H/sigsend" pidfd 12 $o
		wait $c; "$H/waitfor" "$W/orph/got"' sh "$H" "$W"
	[ "$status" -eq 0 ]
	[ "$output" = $'kill OK\npidfd OK' ]
	[ "$(cat "$W/in/got")" = 10 ]
	[ "$(cat "$W/orph/got")" = 12 ]
}

@test "a PID namespace made inside the run: its numbers are its own, raise, a kill of its own child and strace go through" {
	local un=(unshare -pf --mount-proc --propagation slave)
	[ "$(id -u)" -eq 0 ] || un=(unshare -Urpf --mount-proc --propagation slave)
	require "a PID namespace of one's own" "${un[@]}" true
	require "strace (make deps installs it)" command -v strace
	mkdir -p "$W/in"
	# inside it, pid 1 is its own first process and the child's number is its own:
	# read as the supervisor's numbers they would name strangers (kthreadd, ...)
	# timeout: a safety net, a refused signal would leave the shell waiting
	run --separate-stderr timeout -k 5 60 "$ISORUN" --no-config --root "$R" -- "${un[@]}" sh -c '
		"$1/sigsend" kill 10 self
		"$1/sigcatch" "$2/in" & c=$!
		"$1/waitfor" "$2/in/ready"
		"$1/sigsend" kill 10 $c; wait $c
		strace -f -o /dev/null true && echo traced' sh "$H" "$W"
	[ "$status" -eq 0 ]
	[ "$output" = $'kill OK\ngot 10\nkill OK\ntraced' ]
	[ "$(cat "$W/in/got")" = 10 ]
	[[ "$stderr" != *refused* ]]
}

@test "pidfd_send_signal through a /proc/PID directory: inside the run it goes through, outside it is refused" {
	outside
	mkdir -p "$W/in"
	run --separate-stderr timeout -k 5 60 "$H/denycall" "$NOTIFIED" "$ISORUN" --no-config --root "$R" -- sh -c '
		"$1/sigcatch" "$2/in" & c=$!
		"$1/waitfor" "$2/in/ready"
		"$1/sigsend" procfd 10 $c; wait $c
		"$1/sigsend" procfd 10 $3' sh "$H" "$W" "$P"
	[ "$output" = $'procfd OK\nprocfd EPERM' ]
	[ "$(cat "$W/in/got")" = 10 ]
	[[ "$stderr" == *"refused: pidfd_send_signal \`SIGUSR1 to pid $P (sigcatch), outside the run\`"* ]]
	[ "$(outside_got)" = 12 ]
}

@test "a process of the run that is not dumpable: kill still decides by target, a call isorun must read is refused as unreadable, never let out" {
	[ "$(id -u)" -ne 0 ] || skip "root reads a process that is not dumpable"
	mkdir -p "$W/in"
	# rt_sigqueueinfo is notified only without the kernel's scope
	run --separate-stderr timeout -k 5 60 "$H/denycall" "$NOTIFIED" "$ISORUN" --no-config --root "$R" -- sh -c '
		"$1/sigcatch" "$2/in" & c=$!
		"$1/waitfor" "$2/in/ready"
		SIGSEND_NODUMP=1 "$1/sigsend" queue 10 $c
		SIGSEND_NODUMP=1 "$1/sigsend" kill 10 $c; wait $c' sh "$H" "$W"
	[ "$output" = $'queue EPERM\nkill OK' ]
	[ "$(cat "$W/in/got")" = 10 ]
	[[ "$stderr" == *"refused: rt_sigqueueinfo \`(the caller refused to be read: not dumpable)\`"*"isorun: call arguments unreadable"* ]]
}

@test "a stranger the command moves into the run's cgroup is still outside the run: its signal is refused, isorun's own kill spares it" {
	[ "$(id -u)" -eq 0 ] || skip "moving another process between cgroups needs a delegated parent (root here)"
	outside
	run --separate-stderr iso_notified -- sh -c '
		cg=$(sed -n "s/^0:://p" /proc/self/cgroup)
		echo $2 >"/sys/fs/cgroup/unified$cg/cgroup.procs" || echo "no move"
		"$1/sigsend" kill 10 $2' sh "$H" "$P"
	echo "$stderr"
	[ "$output" = "kill EPERM" ]
	[[ "$stderr" == *"refused: kill \`SIGUSR1 to pid $P (sigcatch), outside the run\`"* ]]
	[[ "$stderr" == *"isorun: pid $P \`sigcatch\` is not the run's but was moved into its cgroup: moved back to the caller's cgroup, not killed"* ]]
	[ "$(outside_got)" = 12 ]
}

@test "a signal between processes of the run is sent as the caller: the receiver sees its pid" {
	run --separate-stderr timeout 60 "$ISORUN" --no-config --root "$R" -- python3 -c '
import os, signal, sys
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
    os.write(w, b"x")
    info = signal.sigwaitinfo([signal.SIGUSR1])
    print("from", "parent" if info.si_pid == os.getppid() else info.si_pid, flush=True)
    os._exit(0)
os.read(r, 1)
os.kill(pid, signal.SIGUSR1)
os.waitpid(pid, 0)'
	[ "$status" -eq 0 ]
	[ "$output" = "from parent" ]
}

@test "a thread that signals its own process or a sibling thread goes through (tgkill and kill from a non-main thread)" {
	run --separate-stderr timeout 60 "$ISORUN" --no-config --root "$R" -- python3 -c '
import os, signal, threading
got = []
signal.signal(signal.SIGUSR1, lambda s, f: got.append("USR1"))
signal.signal(signal.SIGUSR2, lambda s, f: got.append("USR2"))
def other():
    signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)  # tgkill(pid, main tid)
    os.kill(os.getpid(), signal.SIGUSR2)                                 # kill(pid) from a thread
# both go to the main thread, waiting in join(): handled when it returns
t = threading.Thread(target=other); t.start(); t.join()
print(sorted(got))'
	[ "$status" -eq 0 ]
	[ "$output" = "['USR1', 'USR2']" ]
	[[ "$stderr" != *refused* ]]
}

# A shell in a PID namespace of its own runs the test: $1 is its script.
in_pidns() {
	if [ "$(id -u)" -eq 0 ]; then
		unshare -pf --mount-proc --propagation slave bash -c "$1" bash "$ISORUN" "$R" "$H" "$W"
	else
		require "user and PID namespaces" unshare -Urpf --mount-proc --propagation slave true
		unshare -Urpf --mount-proc --propagation slave bash -c "$1" bash "$ISORUN" "$R" "$H" "$W"
	fi
}

@test "without the kernel's scope, kill(-1) is refused always, and nothing outside the run is hit (contained in a PID namespace)" {
	run in_pidns '
		ISORUN=$1 R=$2 H=$3 W=$4
		mkdir -p "$W/out"
		"$H/sigcatch" "$W/out" & P=$!
		"$H/waitfor" "$W/out/ready"
		"$H/denycall" landlock_create_ruleset "$ISORUN" --no-config --root "$R" -- "$H/sigsend" kill 10 -1
		echo "isorun $?"
		kill -USR2 $P; wait $P
		echo "outside got $(cat "$W/out/got")"'
	[[ "$output" == *"kill EPERM"* ]]
	[[ "$output" == *"refused: kill \`SIGUSR1 to every process it may signal (pid -1)\`"* ]]
	[[ "$output" == *"isorun 122"* ]]
	[[ "$output" == *"outside got 12"* ]]
}

@test "a pid of the run that exited and went to a stranger is not signalled (ns_last_pid in a PID namespace)" {
	run in_pidns '
		ISORUN=$1 R=$2 H=$3 W=$4
		mkdir -p "$W/out"
		"$H/denycall" landlock_create_ruleset "$ISORUN" --no-config --root "$R" -- sh -c "
			sleep 0 & p=\$!; wait \$p
			echo \$p >\"$W/p\"
			\"$H/waitfor\" \"$W/out/ready\"
			\"$H/sigsend\" kill 10 \$p" 3>&- &
		iso=$!
		"$H/waitfor" "$W/p"
		p=$(cat "$W/p")
		echo $((p - 1)) >/proc/sys/kernel/ns_last_pid
		"$H/sigcatch" "$W/out" & P=$!
		[ "$P" = "$p" ] && echo "stranger took $p"
		wait $iso; echo "isorun $?"
		kill -USR2 $P; wait $P
		echo "outside got $(cat "$W/out/got")"'
	[[ "$output" == *"stranger took"* ]]
	[[ "$output" == *"kill EPERM"* ]]
	[[ "$output" == *"isorun 122"* ]]
	[[ "$output" == *"outside got 12"* ]]
}

@test "under --pidns nothing is notified: the namespace contains the signal already" {
	require "user and PID namespaces" unshare -Urpf --mount-proc --propagation slave true
	outside
	run --separate-stderr iso --pidns -- "$(S)" kill 10 "$P"
	[ "$output" = "kill ESRCH" ]
	[[ "$stderr" != *refused* ]]
	[ "$(outside_got)" = 12 ]
}

@test "contain-signals in the policy language: shown by policy show, no argument, in the default" {
	run "$ISORUN" policy show default
	[[ "$output" == *$'\ncontain-signals\n'* || "$output" == *$'\ncontain-signals' ]]
	printf 'contain-signals now\n' >"$W/bad.policy"
	run --separate-stderr iso --policy="$W/bad.policy" -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"bad.policy:1:17: contain-signals: takes no argument"* ]]
	run "$ISORUN" policy check "$W/bad.policy"
	[ "$status" -eq 125 ]
	# policy check says it; twice counts once; a policy without it says nothing
	printf 'contain-signals\ncontain-signals\n' >"$W/ok.policy"
	run "$ISORUN" policy check "$W/ok.policy"
	[ "$output" = "$W/ok.policy: ok (0 denied calls, 0 guarded programs, 0 denied sockets, signals kept inside the run)" ]
	run "$ISORUN" policy show "$W/ok.policy"
	[ "$output" = $'policy ok\n\ncontain-signals' ]
	printf 'deny reboot\n' >"$W/none.policy"
	run "$ISORUN" policy check "$W/none.policy"
	[ "$output" = "$W/none.policy: ok (1 denied calls, 0 guarded programs, 0 denied sockets)" ]
}

@test "the run's own group with an outside process in it: kill(0) and a pidfd group signal are refused" {
	mkdir -p "$W/out"
	# the command's shell leads the run's group; an outside process of the same session
	# joins it.  It is judged before the run ends: isorun's own end signals that group.
	iso_notified -- sh -c 'echo $$ >"$1/pg.tmp" && mv "$1/pg.tmp" "$1/pg"
		"$2/waitfor" "$1/out/ready"
		"$2/sigsend" kill 10 0; "$2/sigsend" pidfd-group 10 $$
		touch "$1/sent"; "$2/waitfor" -t 60 "$1/judged"' sh "$W" "$H" >"$W/run.out" 2>"$W/run.err" 3>&- &
	iso_pid=$!
	"$H/waitfor" "$W/pg"
	pg=$(cat "$W/pg")
	python3 -c 'import os, sys; os.setpgid(0, int(sys.argv[1])); os.execv(sys.argv[2], sys.argv[2:])' \
		"$pg" "$H/sigcatch" "$W/out" 3>&- &
	P=$!
	"$H/waitfor" -t 60 "$W/sent" || true
	got=$(outside_got)
	touch "$W/judged"
	wait "$iso_pid" || true
	cat "$W/run.out" "$W/run.err"
	[ "$got" = 12 ]
	[ "$(cat "$W/run.out")" = $'kill EPERM\npidfd-group EPERM' ]
	grep -q "refused: kill \`SIGUSR1 to process group $pg (pid $P (sigcatch) in it), outside the run\`" "$W/run.err"
	grep -q "refused: pidfd_send_signal \`SIGUSR1 to process group $pg (pid $P (sigcatch) in it), outside the run\`" "$W/run.err"
}

@test "a siginfo the command makes unreadable is bounded: the call is refused and says why, the run goes on" {
	[ "$(id -u)" -eq 0 ] || skip "userfaultfd is root's on this host (vm.unprivileged_userfaultfd=0)"
	# with the kernel's scope the call is the kernel's, and stalls as it would bare
	# rt_sigqueueinfo to its parent (the run's shell) with the siginfo on a page never
	# filled.  A sanitized helper runs without LeakSanitizer: its stop of the world at
	# exit is a ptrace, which the stuck reader refuses as it refuses every read
	run --separate-stderr timeout 60 "$H/denycall" "$NOTIFIED" "$ISORUN" --no-config --root "$R" -- \
		sh -c "trap 'echo got' USR1; ASAN_OPTIONS=detect_leaks=0 $H/uffdhold sigqueue; echo after"
	[ "$status" -eq 122 ]
	[ "$output" = $'sigqueue: Operation not permitted\nafter' ]
	[[ "$stderr" == *"refused: rt_sigqueueinfo \`(not read within "*"ms: /proc or the caller's memory made the read wait)\`"*"rule isorun: call arguments unreadable"* ]]
}

# --- the other ways to reach a process (issue 27 item 5, the review's routes) ---

RE() { echo "$H/reach"; }

@test "F_SETOWN, F_SETOWN_EX, FIOSETOWN and SIOCSPGRP naming an outside process or group are refused: its SIGIO never comes" {
	outside
	for call in "setown $P" "setown -$P" "setown-ex pid $P" "setown-ex tid $P" "setown-ex pgrp $P" \
		"fiosetown $P" "siocspgrp -$P"; do
		set -- $call
		run --separate-stderr iso -- "$(RE)" "$@" 10
		[ "$status" -eq 122 ]
		[ "$output" = "$1 EPERM" ]
		case $1 in setown*) name=fcntl ;; *) name=ioctl ;; esac
		case $1 in setown) what=F_SETOWN ;; setown-ex) what=F_SETOWN_EX ;; fiosetown) what=FIOSETOWN ;; *) what=SIOCSPGRP ;; esac
		case $2$3 in -* | pgrp*) aim="process group $P (pid $P (sigcatch) in it)" ;; *) aim="pid $P (sigcatch)" ;; esac
		[[ "$stderr" == *"refused: $name \`$what owner $aim, outside the run\`"*"rule default.policy:"* ]]
	done
	[ "$(outside_got)" = 12 ]
}

@test "the review's probe: F_SETOWN of an outside sleep, F_SETSIG SIGKILL, O_ASYNC and a write leave the sleep alive" {
	sleep 300 3>&- &
	v=$!
	run --separate-stderr iso -- "$(RE)" setown "$v" 9
	[ "$output" = "setown EPERM" ]
	kill -0 "$v"
	kill "$v"
	# the control: without the policy the kernel kills it
	sleep 300 3>&- &
	v=$!
	run --separate-stderr iso --policy=off -- "$(RE)" setown "$v" 9
	[ "$output" = "setown OK" ]
	wait "$v" || st=$?
	[ "$st" -eq 137 ]
}

@test "owners inside the run go through: itself, its own group, a child (F_SETOWN, F_SETOWN_EX, FIOSETOWN), and 0 clears" {
	run --separate-stderr iso -- sh -c 'trap "" USR2; R=$1; $R setown self 10; $R setown-ex tid self 12; $R setown-ex pid self 0
		$R fiosetown self 0; $R siocspgrp -self 12; $R setown 0 10' sh "$(RE)"
	[ "$status" -eq 0 ]
	[ "$output" = $'setown OK\ngot 10\nsetown-ex OK\ngot 12\nsetown-ex OK\ngot 29\nfiosetown OK\ngot 29\nsiocspgrp OK\ngot 12\nsetown OK' ]
	[[ "$stderr" != *refused* ]]
	for call in setown setown-ex fiosetown; do
		rm -rf "$W/in"
		mkdir -p "$W/in"
		run --separate-stderr timeout 60 "$ISORUN" --no-config --root "$R" -- sh -c '
			"$1/sigcatch" "$2/in" & c=$!
			"$1/waitfor" "$2/in/ready"
			case $3 in setown-ex) "$1/reach" $3 pid $c 10 ;; *) "$1/reach" $3 $c 10 ;; esac
			wait $c' sh "$H" "$W" "$call"
		[ "$status" -eq 0 ]
		[ "$output" = "$call OK" ]
		[ "$(cat "$W/in/got")" = 10 ]
	done
}

@test "setpgid into a group with a process outside the run (same session) is refused; its own new group and an in-run group pass" {
	mkdir -p "$W/out"
	# a session of the test's own: its leader's group holds an outside sigcatch and isorun
	run setsid bash -c '
		H=$1 W=$2 ISORUN=$3 R=$4
		"$H/sigcatch" "$W/out" & P=$!
		trap "" USR1
		"$H/waitfor" "$W/out/ready"
		"$ISORUN" --no-config --root "$R" -- sh -c "\"$H/reach\" setpgid 0 $$; \"$H/sigsend\" kill 10 0" 2>&1
		kill -USR2 $P; wait $P
		echo "outside got $(cat "$W/out/got")"' bash "$H" "$W" "$ISORUN" "$R"
	echo "$output"
	[[ "$output" == *"setpgid EPERM"* ]]
	[[ "$output" == *"refused: setpgid \`into process group "*" (pid "*" in it), outside the run\`"* ]]
	[[ "$output" == *"outside got 12"* ]]
	# its own new group, a child into its parent's group: job control in a shell
	# (a pipeline under set -m: each member moves into its first one's group)
	run --separate-stderr iso -- bash -c 'R=$1; $R setpgid 0 0; $R setpgid 0 $$
		set -m; (echo b; echo a) | sort | cat' bash "$(RE)"
	[ "$status" -eq 0 ]
	[ "$output" = $'setpgid OK\nsetpgid OK\na\nb' ]
	[[ "$stderr" != *refused* ]]
}

@test "without the kernel's scope, ptrace attach or seize, process_vm_writev and pidfd_getfd of an outside process are refused" {
	outside
	for call in ptrace attach "vmwrite $P 1000" getfd; do
		set -- $call
		[ $# -gt 1 ] || set -- "$1" "$P"
		run --separate-stderr iso_notified -- "$(RE)" "$@"
		[ "$status" -eq 122 ]
		[ "$output" = "$1 EPERM" ]
		case $1 in
		ptrace) what="ptrace \`PTRACE_SEIZE of" ;;
		attach) what="ptrace \`PTRACE_ATTACH of" ;;
		vmwrite) what="process_vm_writev \`into the memory of" ;;
		getfd) what="pidfd_getfd \`a descriptor of" ;;
		esac
		[[ "$stderr" == *"refused: $what pid $P (sigcatch), outside the run\`"* ]]
	done
	grep -q '^TracerPid:[[:space:]]*0$' "/proc/$P/status"
	[ "$(outside_got)" = 12 ]
}

@test "ptrace of the run's own processes works: strace -f, a tracer of its child, pidfd_getfd and process_vm_writev of a child" {
	run --separate-stderr iso -- sh -c 'R=$1; $R child-trace
		sleep 300 & c=$!; $R getfd $c; $R vmwrite $c 1000; $R ptrace $c; kill $c' sh "$(RE)"
	[ "$status" -eq 0 ]
	[ "$output" = $'child-trace OK\ngetfd OK\nvmwrite EFAULT\nptrace OK' ]
	[[ "$stderr" != *refused* ]]
	require "strace (make deps installs it)" command -v strace
	run --separate-stderr iso -- strace -f -o "$W/strace.out" sh -c 'sh -c "echo traced"'
	[ "$status" -eq 0 ]
	[ "$output" = traced ]
	grep -q 'execve(".*", \["sh", "-c", "echo traced"\]' "$W/strace.out"
}

# --- the kernel's scope (Landlock, Linux 6.12) and EINTR (issue 39 item 1) ---

@test "with the kernel's scope a signal (0 too) or a trace of an outside process fails with EPERM in the kernel: unnotified, no finding" {
	require "Landlock's signal scope (Linux 6.12)" has_scope
	outside
	for call in "kill 10 $P" "tkill 10 $P" "tgkill 10 $P $P" "queue 10 $P" "tgqueue 10 $P $P" \
		"pidfd 10 $P" "kill 10 -$P" "pidfd-group 10 $P" "procfd 10 $P" "kill 0 $P"; do
		set -- $call
		run --separate-stderr iso -- "$(S)" "$@"
		[ "$status" -eq 0 ]
		[ "$output" = "$1 EPERM" ]
		[[ "$stderr" != *refused* ]]
	done
	for call in ptrace attach "vmwrite $P 1000" getfd mem; do
		set -- $call
		[ $# -gt 1 ] || set -- "$1" "$P"
		run --separate-stderr iso -- "$(RE)" "$@"
		[ "$status" -eq 0 ]
		[[ "$output" = "$1 EPERM" || "$output" = "$1 EACCES" ]]
	done
	grep -q '^TracerPid:[[:space:]]*0$' "/proc/$P/status"
	[ "$(outside_got)" = 12 ]
}

@test "with the kernel's scope kill(-1) and kill(0) reach the run's processes and nothing outside (contained in a PID namespace)" {
	require "Landlock's signal scope (Linux 6.12)" has_scope
	run in_pidns '
		ISORUN=$1 R=$2 H=$3 W=$4
		mkdir -p "$W/out" "$W/in"
		"$H/sigcatch" "$W/out" & P=$!
		"$H/waitfor" "$W/out/ready"
		"$ISORUN" --no-config --root "$R" -- sh -c "
			\"$H/sigcatch\" \"$W/in\" & c=\$!
			\"$H/waitfor\" \"$W/in/ready\"
			trap \"\" USR1; \"$H/sigsend\" kill 10 -1
			\"$H/waitfor\" -t 20 \"$W/in/got\" || kill -USR2 \$c; wait \$c"
		echo "isorun $?"
		kill -USR2 $P; wait $P
		echo "inside got $(cat "$W/in/got") outside got $(cat "$W/out/got")"'
	[[ "$output" == *"kill OK"* ]]
	[[ "$output" == *"isorun 0"* ]]
	[[ "$output" == *"inside got 10 outside got 12"* ]]
}

@test "a process that signals itself under a 100 us timer never sees EINTR: CPython's test_signal stress (issue 39)" {
	require "Landlock's signal scope (Linux 6.12)" has_scope
	for call in kill tgkill queue pidfd; do
		run "$H/sigstress" "$call" 20000
		[ "$output" = "$call OK 20000" ]
		run --separate-stderr iso -- "$H/sigstress" "$call" 20000
		[ "$status" -eq 0 ]
		[ "$output" = "$call OK 20000" ]
	done
}

@test "CPython's own test_stress_delivery_simultaneous passes under isorun as it does bare" {
	require "CPython's test suite (make deps installs libpython3.11-testsuite)" \
		python3 -c 'import test.test_signal'
	require "Landlock's signal scope (Linux 6.12)" has_scope
	run --separate-stderr iso -- python3 -m unittest -q \
		test.test_signal.StressTest.test_stress_delivery_simultaneous
	[ "$status" -eq 0 ]
}

# --- the calls that change another process (issue 36 item 3) ---

CHANGES=(prlimit nice ionice affinity sched setparam setattr migrate movepages madvise perf)
change_args() {
	case $1 in
	prlimit) echo "prlimit $2 fsize 0:0" ;;
	*) echo "$1 $2" ;;
	esac
}

@test "a call that changes an outside process (limits, priority, scheduling, memory, perf) is refused with a finding naming it" {
	outside
	for c in "${CHANGES[@]}" "nice -$P" "ionice -$P" "nice u4000000" "ionice u4000000"; do
		case $c in *" "*) set -- $c ;; *) set -- $(change_args "$c" "$P") ;; esac
		run --separate-stderr iso -- "$(RE)" "$@"
		[ "$output" = "$1 EPERM" ]
		[ "$status" -eq 122 ]
		case $1 in
		prlimit) what="prlimit64 \`the resource limits of" ;;
		nice) what="setpriority \`the nice value of" ;;
		ionice) what="ioprio_set \`the I/O priority of" ;;
		affinity) what="sched_setaffinity \`the CPU affinity of" ;;
		sched) what="sched_setscheduler \`the scheduling of" ;;
		setparam) what="sched_setparam \`the scheduling of" ;;
		setattr) what="sched_setattr \`the scheduling of" ;;
		migrate) what="migrate_pages \`the memory placement of" ;;
		movepages) what="move_pages \`the memory placement of" ;;
		madvise) what="process_madvise \`memory advice to" ;;
		perf) what="perf_event_open \`a perf event on" ;;
		esac
		case $2 in
		u*) [[ "$stderr" == *"refused: $what every process of uid 4000000\`"* ]] ;;
		-*) [[ "$stderr" == *"refused: $what process group $P (pid $P (sigcatch) in it), outside the run\`"* ]] ;;
		*) [[ "$stderr" == *"refused: $what pid $P (sigcatch), outside the run\`"* ]] ;;
		esac
	done
	grep -q '^Max file size  *unlimited  *unlimited' "/proc/$P/limits"
	[ "$(ps -o ni= -p "$P")" = "$(ps -o ni= -p $$)" ]
	[ "$(grep Cpus_allowed_list "/proc/$P/status")" = "$(grep Cpus_allowed_list /proc/self/status)" ]
	[ "$(outside_got)" = 12 ]
}

@test "the same rule on the i386 and x32 ABIs: setpriority and prlimit64 of an outside process by int \$0x80 and by x32 numbers" {
	outside
	for c in nice-i386 prlimit-i386 nice-x32 prlimit-x32; do
		bare=$("$(RE)" "$c" self)
		[ "$bare" != "$c ENOSYS" ] || continue # no x32 in this kernel: nothing to reach
		run --separate-stderr iso -- "$(RE)" "$c" "$P"
		[ "$output" = "$c EPERM" ]
		[ "$status" -eq 122 ]
		case $c in
		nice*) [[ "$stderr" == *"refused: setpriority \`the nice value of pid $P (sigcatch), outside the run\`"* ]] ;;
		*) [[ "$stderr" == *"refused: prlimit64 \`the resource limits of pid $P (sigcatch), outside the run\`"* ]] ;;
		esac
	done
	grep -q '^Max file size  *unlimited  *unlimited' "/proc/$P/limits"
	[ "$(outside_got)" = 12 ]
}

@test "isorun itself survives what its command does to it: prlimit --cpu=0:0 or --nofile=3:3 of \$PPID is refused, the leak is still found" {
	run --separate-stderr iso -- sh -c 'R=$1
		$R prlimit $PPID nofile 3:3; $R prlimit $PPID cpu 0:0; $R nice $PPID; $R sched $PPID
		sleep 300 3>&- &' sh "$(RE)"
	[ "$output" = $'prlimit EPERM\nprlimit EPERM\nnice EPERM\nsched EPERM' ]
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"refused: prlimit64 \`the resource limits of pid "*" (isorun), outside the run\`"* ]]
	[[ "$stderr" == *"leaked: pid "*"sleep 300"*"killed"* ]]
	assert_no_tree
}

@test "the same calls on the run's own processes and on itself go through" {
	run --separate-stderr iso -- sh -c 'R=$1; sleep 300 & c=$!
		for x in prlimit nice ionice affinity sched setparam setattr movepages; do
			case $x in prlimit) $R prlimit $c core 0:0 ;; *) $R $x $c ;; esac
		done
		$R prlimit self core 0:0; $R nice self; $R nice -self; kill $c' sh "$(RE)"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s OK\n' prlimit nice ionice affinity sched setparam setattr movepages prlimit nice nice)" ]
	[[ "$stderr" != *refused* ]]
	# perf_event_open of a child: what the host's perf_event_paranoid says bare
	local perf='sleep 300 & "$1" perf $!; kill $!'
	bare=$(sh -c "$perf" sh "$(RE)")
	run --separate-stderr iso -- sh -c "$perf" sh "$(RE)"
	[ "$output" = "$bare" ]
	[[ "$stderr" != *refused* ]]
}

@test "under --pidns the command can neither trace nor change init (pid 1): ptrace, pidfd_getfd, prlimit, renice, the leak is still found" {
	[ "$(id -u)" -eq 0 ] || skip "an ordinary user's command cannot reach init across its user namespace"
	require "a PID namespace" unshare -pf --mount-proc --propagation slave true
	run --separate-stderr iso --pidns -- sh -c 'R=$1
		for x in "attach 1" "ptrace 1" "getfd 1" "vmwrite 1 1000" "prlimit 1 nofile 3:3" "prlimit 1 cpu 0:0" \
			"nice 1" "nice -1" "ionice 1" "affinity 1" "sched 1" "setparam 1" "setattr 1" "perf 1"; do
			$R $x
		done
		sleep 300 3>&- &' sh "$(RE)"
	[ "$output" = "$(printf '%s EPERM\n' attach ptrace getfd vmwrite prlimit prlimit nice nice ionice affinity sched setparam setattr perf)" ]
	[ "$status" -eq 122 ]
	[[ "$stderr" == *"leaked: pid "*"sleep 300"*"killed"* ]]
	require "strace (make deps installs it)" command -v strace
	run --separate-stderr iso --pidns -- strace -o /dev/null -p 1
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"ptrace(PTRACE_SEIZE, 1): Operation not permitted"* ]]
}
