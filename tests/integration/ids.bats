#!/usr/bin/env bats
# The ids of the run's user namespace (issue 27 item 1): an ordinary user's change
# to another id gets the host's EPERM, not the namespace's EINVAL; --map-users maps
# the user's /etc/subuid and /etc/subgid ranges where there are.
load helpers

userns_ok() {
	unshare -Urpf --mount-proc --propagation slave true
}

ordinary() {
	[ "$(id -u)" -ne 0 ] || skip "an ordinary user's namespace"
	require "user and PID namespaces" userns_ok
}

has_range_files() {
	grep -Eq "^($(id -un)|$(id -u)):" /etc/subuid && grep -Eq "^($(id -un)|$(id -u)):" /etc/subgid
}

no_new_privs() {
	[ "$(awk '/^NoNewPrivs:/ {print $2}' /proc/self/status)" = 1 ]
}

# this user's range in /etc/subuid and /etc/subgid, and the helpers, usable: not
# under no_new_privs (bats under make check's isorun gate has it: there a setuid
# newuidmap gains nothing, and isorun falls back, the test below)
has_range() {
	! no_new_privs && command -v newuidmap && command -v newgidmap &&
		grep -Eq "^($(id -un)|$(id -u)):" /etc/subuid &&
		grep -Eq "^($(id -un)|$(id -u)):" /etc/subgid
}

ranged() {
	ordinary
	require "newuidmap (make deps installs uidmap)" command -v newuidmap
	! no_new_privs || skip "no_new_privs is set here (make check runs bats under isorun): newuidmap cannot map a range"
	has_range >/dev/null || skip "no subordinate id range for $(id -un)"
}

# Each call's answer bare and under isorun OPTIONS, for the same file: equal.
same_as_bare() {
	local c bare got
	for c in "setuid 65534" "setuid 0" "setuid $(id -u)" "setuid -1" "setgid 65534" \
		"setgid $(id -g)" "setreuid -1 65534" "setreuid 65534 -1" "setregid 65534 65534" \
		"setresuid -1 -1 65534" "setresuid -1 -1 -1" "setresuid -1L -1L -1L" \
		"setresuid $(id -u) -1 -1" "setresgid 65534 -1 -1" "setresgid -1L $(id -g) -1L" \
		"setfsuid 65534" "setfsgid 65534" "chown F 65534 -1" "chown F -1 65534" \
		"chown F $(id -u) $(id -g)" "chown F -1L -1L" "lchown F 0 -1" "lchown F -1 -1" \
		"fchown F -1 65534" "fchown F $(id -u) -1" "fchownat F 65534 -1" \
		"fchownat F -1 $(id -g)"; do
		touch "$W/f"
		bare=$("$H/idcalls" ${c//F/$W/f})
		got=$(iso -q "$@" -- "$H/idcalls" ${c//F/$W/f})
		if [ "$bare" != "$got" ]; then
			echo "$c: bare $bare, under isorun $* $got" >&2
			return 1
		fi
	done
}

@test "ids: an ordinary user's id and owner changes answer as bare under --pidns (EPERM for another id, its own and -1 work), --policy=off and --net=isolated too" {
	ordinary
	same_as_bare --pidns
	same_as_bare --pidns --policy=off
	same_as_bare --net=isolated
	same_as_bare --pidns --map-users=off
	assert_no_tree
}

@test "ids: under --map-root another id is EPERM too, uid 0 itself and -1 work" {
	ordinary
	touch "$W/f"
	run iso -q --pidns --map-root -- sh -c "
		$H/idcalls setuid 65534; $H/idcalls setuid $(id -u); $H/idcalls setuid 0
		$H/idcalls setresgid -1 0 -1; $H/idcalls chown $W/f 65534 -1; $H/idcalls chown $W/f 0 0
		$H/idcalls fchownat $W/f -1 1; $H/idcalls setfsuid 65534"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' EPERM EPERM ok ok EPERM ok EPERM 0)" ]
}

@test "ids: python's os.setuid(65534) is PermissionError bare and under --pidns, with and without a subuid range" {
	ordinary
	local py='import os
try:
    os.setuid(65534)
except OSError as e:
    print(type(e).__name__, e.errno)'
	[ "$(python3 -c "$py")" = "PermissionError 1" ]
	run --separate-stderr iso --pidns -- python3 -c "$py"
	[ "$output" = "PermissionError 1" ]
	[ -z "$stderr" ]
	# no range: auto says so in one line, the filter answers
	ISORUN_TEST_SUBUID=/dev/null run --separate-stderr iso --pidns --map-users=auto -- python3 -c "$py"
	[ "$output" = "PermissionError 1" ]
	[ "$stderr" = "isorun: --map-users=auto: no range for $(id -un) (uid $(id -u)) in /dev/null; mapping uid $(id -u) and gid $(id -g) alone" ]
	if has_range >/dev/null; then
		# the range: 65534 is mapped, and the user without CAP_SETUID may not take it
		run --separate-stderr iso --pidns --map-users=auto -- python3 -c "$py"
		[ "$output" = "PermissionError 1" ]
		[ -z "$stderr" ]
	fi
	assert_no_tree
}

@test "ids: a suite that changes ids (CPython's chown, setuid and subprocess user/group tests) passes under --pidns as it does bare" {
	ordinary
	run python3 "$BATS_TEST_DIRNAME/../helpers/idsuite.py" "$W"
	[ "$status" -eq 0 ]
	run --separate-stderr iso --pidns -- python3 "$BATS_TEST_DIRNAME/../helpers/idsuite.py" "$W"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"Ran 8 tests"* ]]
	[[ "$stderr" != *skipped* ]]
	if has_range >/dev/null; then
		run iso --pidns --map-users=auto -- python3 "$BATS_TEST_DIRNAME/../helpers/idsuite.py" "$W"
		[ "$status" -eq 0 ]
	fi
	assert_no_tree
}

@test "ids: CPython's own chown, setuid and subprocess user/group tests pass under --pidns, with and without a range" {
	ordinary
	require "CPython's test package (make deps installs libpython3.11-testsuite)" \
		python3 -c 'import test.test_os, test.test_subprocess'
	cd "$W"
	local maps=(off)
	has_range >/dev/null && maps+=(auto)
	for m in "${maps[@]}"; do
		run iso --pidns --map-users="$m" -- python3 -m test test_os test_subprocess \
			-m test_chown_without_permission -m test_user -m test_group -m test_extra_groups
		echo "$output" | tail -5
		[ "$status" -eq 0 ]
		[[ "$output" == *"Tests result: SUCCESS"* ]]
	done
	assert_no_tree
}

@test "--map-users=auto: the user's ranges are mapped around its own id (and under --map-root from 1 up); setgroups is allowed" {
	ranged
	local su sg
	su=$(grep -E "^($(id -un)|$(id -u)):" /etc/subuid | head -1 | cut -d: -f2)
	sg=$(grep -E "^($(id -un)|$(id -u)):" /etc/subgid | head -1 | cut -d: -f2)
	run --separate-stderr iso --pidns --map-users=auto -- sh -c 'cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups; id -u'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(awk 'NR<=3 {print $1, $2}' <<<"$output" | tr '\n' ' ')" = "$(id -u) $(id -u) 0 $su $(($(id -u) + 1)) $((su + $(id -u))) " ]
	[ "$(awk 'NR>=4 && NR<=6 {print $1, $2}' <<<"$output" | tr '\n' ' ')" = "$(id -g) $(id -g) 0 $sg $(($(id -g) + 1)) $((sg + $(id -g))) " ]
	[ "${lines[6]}" = allow ]
	[ "${lines[7]}" = "$(id -u)" ]
	run --separate-stderr iso --pidns --map-root --map-users=auto -- cat /proc/self/uid_map
	[ "$(awk '{print $1, $2}' <<<"$output" | tr '\n' ' ')" = "0 $(id -u) 1 $su " ]
	assert_no_tree
}

@test "--map-users=auto --map-root with CAP_CHOWN/SETUID: other ids work as for root in a container, and the tree is still removed" {
	ranged
	run --separate-stderr iso --pidns --private-tmp --map-root --map-users=auto \
		--cap-keep chown,setuid,setgid,fowner -- sh -c "
		$H/idcalls setresuid -1 -1 65534
		mkdir \$HOME/d && touch \$HOME/d/f /tmp/g && ln -s /etc/passwd \$HOME/d/l &&
		chown -hR 65534:65534 \$HOME/d /tmp/g && stat -c '%u:%g' \$HOME/d/f /tmp/g &&
		chmod 0500 \$HOME/d"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' ok 65534:65534 65534:65534)" ]
	[ -z "$stderr" ]
	# the host's own file was not given anyone: only the tree's entries are
	[ "$(stat -c %u /etc/passwd)" = 0 ]
	assert_no_tree
	# --keep: the kept tree is the user's
	run --separate-stderr iso --keep --pidns --map-root --map-users=auto --cap-keep chown -- \
		sh -c 'touch $HOME/k && chown 7:7 $HOME/k'
	[ "$status" -eq 0 ]
	[ "$(stat -c %u "$(echo "$U"/*)/home/k")" = "$(id -u)" ]
	"$ISORUN" gc --kept --root "$R" >/dev/null
	assert_no_tree
}

@test "--map-users: require without a range or a missing tool is 125 in one line and leaves nothing; auto goes on and says which" {
	ordinary
	ISORUN_TEST_SUBGID=/nonexistent run --separate-stderr iso --pidns --map-users=require -- true
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: --map-users=require: no range for $(id -un) (uid $(id -u)) in /nonexistent" ]
	[[ "${stderr_lines[1]}" == "  (hint: ask an admin for a range"* ]]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 125): setup failed before the command ran" ]
	assert_no_tree
	# --pidns=try falls back when namespaces are refused, not when require is not met
	ISORUN_TEST_SUBUID=/dev/null run --separate-stderr iso --pidns=try --map-users=require -- true
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: --map-users=require: no range for "* ]]
	[[ "$stderr" != *"subreaper gate"* ]]
	assert_no_tree
	run --separate-stderr env ISORUN_TEST_FAULT=no-uidmap "$ISORUN" --no-config --root "$R" --pidns \
		--map-users=auto -- "$H/idcalls" setuid 65534
	[ "$status" -eq 0 ]
	[ "$output" = EPERM ]
	[ "$stderr" = "isorun: --map-users=auto: newuidmap not found in /usr/bin or /bin, owned by root (Debian, Ubuntu: package uidmap); mapping uid $(id -u) and gid $(id -g) alone" ]
	run --separate-stderr env ISORUN_TEST_FAULT=no-uidmap "$ISORUN" --no-config --root "$R" -q --pidns \
		--map-users=auto -- /bin/true
	[ -z "$stderr" ]
	assert_no_tree
}

@test "--map-users: a range newuidmap refuses is 125 with its own words, and the namespace's init does not outlive it" {
	ranged
	echo "$(id -un):4000000000:10" >"$W/subuid"
	ISORUN_TEST_SUBUID="$W/subuid" run --separate-stderr iso --pidns --map-users=auto -- true
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "isorun: map the ids of pid "*"/newuidmap' exited 1: newuidmap: "* ]]
	[[ "${stderr_lines[0]}" != *"Operation not permitted: Operation not permitted" ]]
	[ "${stderr_lines[-1]}" = "isorun: FAILED (exit 125): setup failed before the command ran" ]
	# the pid named is the namespace's init: gone with the run
	local init=${stderr_lines[0]#isorun: map the ids of pid }
	! kill -0 "${init%%:*}" 2>/dev/null
	assert_no_tree
	# a refusal is no reason for --pidns=try to run the command without the namespace
	ISORUN_TEST_SUBUID="$W/subuid" run --separate-stderr iso --pidns=try --map-users=auto -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" != *"subreaper gate"* ]]
	assert_no_tree
}

@test "--map-users: root's runs need no range (auto is a no-op) and root's setuid works under --pidns" {
	[ "$(id -u)" -eq 0 ] || skip "as root"
	run --separate-stderr iso --pidns --map-users=require -- "$H/idcalls" setuid 65534
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
	[ -z "$stderr" ]
	run --separate-stderr iso --map-users=auto --private-tmp -- sh -c "touch /tmp/x; $H/idcalls chown /tmp/x 65534 -1"
	[ "$output" = ok ]
	[ -z "$stderr" ]
	assert_no_tree
}

@test "--map-users: a bad value is one line and 125; config shows it; without a namespace it warns" {
	run --separate-stderr iso --map-users=yes -- true
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "isorun: --map-users: expected off, auto or require, got 'yes'" ]
	printf 'map-users = sometimes\n' >"$W/isorun.conf"
	run --separate-stderr "$ISORUN" --config "$W/isorun.conf" --root "$R" -- true
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == *"map-users: expected off, auto or require, got 'sometimes'"* ]]
	printf 'map-users = auto\n' >"$W/isorun.conf"
	run --separate-stderr "$ISORUN" config --config "$W/isorun.conf"
	[[ "$output" == *"map-users = auto    ($W/isorun.conf:1)"* ]]
	run --separate-stderr "$ISORUN" config --no-config
	[[ "$output" == *"map-users = off    (default)"* ]]
	run --separate-stderr iso --map-users=auto --report "$W/r.json" -- true
	[ "$status" -eq 0 ]
	[ "$stderr" = "isorun: warning: --map-users has no effect without --pidns" ]
	[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["settings"]["map_users"])' "$W/r.json")" = auto ]
	assert_report_valid "$W/r.json"
	# --net=isolated implies the namespace: no warning
	run --separate-stderr iso --map-users=auto --net=isolated -- true
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"no effect without"* ]]
	assert_no_tree
}

@test "--map-users: a newuidmap or newgidmap first in PATH is never run: the root-owned ones map the range" {
	ranged
	mkdir "$W/bin"
	for t in newuidmap newgidmap; do
		printf '#!/bin/sh\necho "$$" >"%s/%s.pid"\nexec sleep 1000\n' "$W" "$t" >"$W/bin/$t"
		chmod +x "$W/bin/$t"
	done
	PATH="$W/bin:$PATH" run --separate-stderr timeout 60 "$ISORUN" --no-config --root "$R" \
		--pidns --map-users=auto -- true
	[ ! -e "$W/newuidmap.pid" ]
	[ ! -e "$W/newgidmap.pid" ]
	[ "$status" -eq 0 ]
	assert_no_tree
}

@test "--map-users under no_new_privs (inside another isorun): auto says why and maps one id with EPERM for the others; require is 125" {
	ordinary
	require "newuidmap (make deps installs uidmap)" command -v newuidmap
	# the outer isorun sets no_new_privs, whatever bats itself runs under
	has_range_files || skip "no subordinate id range for $(id -un)"
	mkdir -p "$R/in"
	run --separate-stderr iso -- "$ISORUN" --no-config --root "$R/in" --pidns --map-users=auto -- \
		"$H/idcalls" setuid 65534
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"isorun: --map-users=auto: no_new_privs is set on isorun (it runs inside a sandbox that sets it, another isorun among them), so the setuid newuidmap cannot map a range; mapping uid $(id -u) and gid $(id -g) alone"* ]]
	[ "$output" = EPERM ]
	run --separate-stderr iso -- "$ISORUN" --no-config --root "$R/in" --pidns --map-users=require -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"isorun: --map-users=require: no_new_privs is set on isorun"* ]]
	assert_no_tree
}
