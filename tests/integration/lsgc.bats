#!/usr/bin/env bats
# isorun ls lists the trees under the root with their state and reason; isorun
# gc removes only what it can prove orphaned (owner gone, lock free, nothing
# holds a file in it) and says why for every tree, removed or kept.

load helpers

# Serial: a clean run here must be proven by the kernel, which fails while any
# other mount namespace (another file's --pidns run) shows /dev/shm without
# the shield.
# bats file_tags=serial

userns_ok() {
	unshare -Urpf --mount-proc --propagation slave true
}

isols() {
	"$ISORUN" ls --root "$R" "$@"
}

isogc() {
	"$ISORUN" gc --root "$R" "$@"
}

# As root the trees wear their shields (tree/shield.h): a run killed before its
# teardown leaves one on, which ls and gc must see through.
setup() {
	setup_shielded
}

teardown() {
	show_last_run
	# every waiting command of this file waits for this name
	touch "$W/never" 2>/dev/null || true
	for f in "$W"/*.kill; do
		[ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	validate_outputs
	teardown_shield_root
}

# The listing line of one tree (ls prints the path first).
ls_line() {
	printf '%s\n' "$output" | grep -F "$1  "
}

# A run that blocks until $W/never exists, in the background; its tree's home
# and the command's pid are read from a FIFO, so nothing sleeps.  Extra isorun
# options in $@; $BEFORE, when set, is run by the command first.  Sets isopid,
# cmdpid, home, tree; fd 8 stays open on the FIFO: its EOF says the command (holding fd 9) is gone, after its files and cwd.
start_blocked() {
	rm -f "$W/gone" "$W/holding"
	mkfifo "$W/gone"
	# the command clears its environment (env -i): gc would otherwise find it by
	# ISORUN_NAMESPACE and stop it (orphans.bats), and these tests are about holders.
	# It is the holder once waitfor says so: the execs of env and waitfor are the
	# guard's, and an owner killed before it answered them fails them (ENOSYS),
	# which would end the holder before gc looks
	"$ISORUN" --root "$R" "$@" -- sh -c \
		"${BEFORE:+$BEFORE && }exec 3>\"\$HOME/held\" 9>$W/gone; echo \"\$\$ \$HOME\" >&9; exec env -i $H/waitfor -t 600 -r $W/holding $W/never" \
		3>&- 8>&- >"$W/run.out" 2>&1 &
	isopid=$!
	exec 8<"$W/gone"
	read -r cmdpid home <&8
	tree=$(dirname "$home")
	"$H/waitfor" "$W/holding"
}

@test "ls and gc: no directory, nothing to say; bad options are one line and 125" {
	run --separate-stderr isols
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run --separate-stderr isogc --dry-run
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ ! -e "$U" ]
	run --separate-stderr isols --bogus
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: 'ls' is a subcommand here; to run the command: isorun -- ls --root $R --bogus" ]
	run --separate-stderr env PATH="$W" "$ISORUN" gc --root "$R" extra
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: gc: unexpected argument 'extra' (see isorun gc --help)" ]
	run --separate-stderr "$ISORUN" gc --root
	[ "$status" -eq 125 ]
	[ "$stderr" = "isorun: gc: --root needs an argument" ]
	run --separate-stderr isols --dry-run
	[ "$status" -eq 125 ]
	# a per-user directory others can write to is not trusted
	mkdir -m 0700 "$U"
	chmod 0777 "$U"
	run --separate-stderr isogc
	[ "$status" -eq 125 ]
	[[ "$stderr" == "isorun: gc: refusing '$U': mode 0777 is group or world writable" ]]
	rmdir "$U"
}

@test "a running tree is listed as running and never removed, even when its owner record claims another boot" {
	start_blocked
	run --separate-stderr isols
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "PATH "*" AGE "*" SIZE "*" PID "*" STATE "*" REASON" ]]
	[[ "$(ls_line "$tree")" =~ \ $isopid\ +running\ +owner\ pid\ $isopid\ is\ alive$ ]]
	run isogc
	[ "$status" -eq 0 ]
	[ "$output" = "kept $tree: owner pid $isopid is alive" ]
	# the lock alone keeps it: with the owner record claiming another boot, the
	# owner counts as gone, and only the held lock stands in the way (the record
	# is rewritten in place: it is the lock, and a new file at its name would not be)
	cp "$tree/owner" "$W/owner"
	sed 's/"boot_id":"[^"]*"/"boot_id":"an-earlier-boot"/' "$W/owner" >"$tree/owner"
	run isogc --dry-run
	[[ "$output" == "keep $tree: its lock is held (by its owner, or by another isorun gc)" ]]
	run isogc
	[[ "$output" == "kept $tree: its lock is held"* ]]
	[ -d "$tree" ]
	cp "$W/owner" "$tree/owner"
	touch "$W/never"
	wait "$isopid"
	exec 8<&-
	assert_no_tree
}

@test "a tree whose lock is free while its owner lives (a run in its teardown): ls sizes nothing, gc opens and removes nothing" {
	run --separate-stderr "$ISORUN" --no-config --root "$R" --keep -- sh -c 'echo data >"$HOME/f"'
	[ "$status" -eq 0 ]
	tree=$(the_tree)
	# the owner record names a live process of this test's, at its start time:
	# as a run does between letting go of its lock and its proof
	sleep 300 3>&- &
	echo $! >"$W/owner.kill"
	start=$(awk '{ print $22 }' "/proc/$!/stat")
	sed "s/\"pid\":[0-9]*/\"pid\":$!/; s/\"start_time\":[0-9]*/\"start_time\":$start/" "$tree/owner" >"$W/owner"
	cat "$W/owner" >"$tree/owner"
	run --separate-stderr isols
	# its size is not read (-), its outcome is
	[[ "$(ls_line "$tree")" =~ ^$tree\ +[0-9]+s\ +-\ +.*\ $!\ +kept\  ]]
	run --separate-stderr isogc --kept
	[[ "$output" == "kept $tree: "*"owner pid $! is alive"* ]]
	[ -f "$tree/home/f" ]
	kill "$!"
}

@test "an owner SIGKILLed without --pidns: its survivor holds a file in the tree, so gc keeps it and names the survivor" {
	# without a cgroup: with one, gc stops the survivor first (ceilings.bats)
	start_blocked --cgroup=off
	echo "$cmdpid" >"$W/cmd.kill"
	kill -KILL "$isopid"
	wait "$isopid" || true
	run isols
	[[ "$(ls_line "$tree")" =~ \ $isopid\ +orphaned\ +owner\ pid\ $isopid\ is\ gone\ without\ recording\ an\ outcome\ \(crashed\ or\ killed\) ]]
	[[ "$(ls_line "$tree")" != *"still run"* ]]
	# as root the killed run's shield stays mounted: ls and gc say so, and how it comes off
	shield=""
	if [ "$(id -u)" -eq 0 ]; then
		shield="; its shield (an overlay) is still mounted on it: isorun gc takes it off when it removes the tree, umount -l on its path takes it off alone"
		[[ "$(ls_line "$tree")" == *"$shield" ]]
		grep -q " $tree overlay " /proc/self/mounts
	fi
	run isogc --dry-run
	[ "$status" -eq 0 ]
	[[ "$output" == "keep $tree: pid $cmdpid \`"*"waitfor"*"\` holds $home/held open (fd 3)$shield" ]]
	run isogc
	[ "$status" -eq 0 ]
	[[ "$output" == "kept $tree: pid $cmdpid \`"*"\` holds $home/held open (fd 3)$shield" ]]
	[ -f "$home/held" ]
	# the survivor gone (EOF on its FIFO comes after its files are closed), gc has its proof
	kill -KILL "$cmdpid"
	cat <&8
	exec 8<&-
	run isogc --dry-run
	[[ "$output" == "would remove $tree: owner pid $isopid is gone; its lock is free; no process has a file, cwd or root in it"* ]]
	[ -d "$tree" ]
	run isogc
	[ "$status" -eq 0 ]
	[[ "$output" == "removed $tree: owner pid $isopid is gone; its lock is free; no process has a file, cwd or root in it"* ]]
	if [ "$(id -u)" -eq 0 ]; then
		[[ "$output" == *"; its shield taken off first" ]]
		! grep -q " $tree " /proc/self/mounts
	fi
	assert_no_tree
}

@test "an owner SIGKILLed with --pidns: the namespace dies with it, and gc removes the tree" {
	require "user and PID namespaces" userns_ok
	start_blocked --pidns
	kill -KILL "$isopid"
	wait "$isopid" || true
	# EOF: everything in the namespace is gone
	cat <&8
	exec 8<&-
	run isols
	[[ "$(ls_line "$tree")" == *" orphaned "*"owner pid $isopid is gone without recording an outcome"* ]]
	run isogc
	[ "$status" -eq 0 ]
	[[ "$output" == "removed $tree: owner pid $isopid is gone; its lock is free; no process has a file, cwd or root in it"* ]]
	assert_no_tree
}

@test "--keep and isorun shell: listed as kept with why; gc leaves them alone unless --kept (--all)" {
	run --separate-stderr iso --keep -- true
	[ "$status" -eq 0 ]
	kept=$(the_tree)
	run --separate-stderr "$ISORUN" shell --root "$R" -- true
	[ "$status" -eq 0 ]
	shell=$(find "$U" -mindepth 1 -maxdepth 1 -type d ! -path "$kept" ! -name '.*')
	[ -d "$shell" ]
	run isols
	[[ "$(ls_line "$kept")" =~ \ kept\ +--keep$ ]]
	[[ "$(ls_line "$shell")" =~ \ kept\ +isorun\ shell$ ]]
	run isogc --dry-run
	[ "${#lines[@]}" -eq 2 ]
	[[ "$output" == *"keep $kept: kept on purpose (--keep); isorun gc --kept removes it"* ]]
	[[ "$output" == *"keep $shell: kept on purpose (isorun shell); isorun gc --kept removes it"* ]]
	run isogc
	[ "$status" -eq 0 ]
	[[ "$output" == *"kept $kept: kept on purpose (--keep)"* ]]
	[ -d "$kept" ] && [ -d "$shell" ]
	run isogc --kept --dry-run
	[[ "$output" == *"would remove $kept: owner pid "*" is gone; its lock is free;"* ]]
	[[ "$output" == *"would remove $shell: owner pid "*" is gone; its lock is free;"* ]]
	# the count of processes gc could not look into changes nothing: only with -v
	[[ "$output" != *"could not be read"* ]]
	run isogc --all
	[ "$status" -eq 0 ]
	[[ "$output" == *"removed $kept: "* ]]
	[[ "$output" == *"removed $shell: "* ]]
	assert_no_tree
}

@test "ls: COMMAND and CWD columns from the owner record, - for an older record; ls --json" {
	mkdir -p "$W/proj"
	cd "$W/proj"
	run --separate-stderr iso --keep -- sh -c 'exit 0' make-believe
	[ "$status" -eq 0 ]
	tree=$(the_tree)
	run isols
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "PATH "*" CWD "*" COMMAND "*" PID "*" STATE "*" REASON" ]]
	[[ "$(ls_line "$tree")" =~ \ $W/proj\ +sh\ -c\ exit\ 0\ make-believe\ +[0-9]+\ +kept\ +--keep$ ]]
	run isols --json
	[ "$status" -eq 0 ]
	python3 -c '
import json, sys
rows = json.loads(sys.argv[1])
assert len(rows) == 1, rows
r = rows[0]
assert r["path"] == sys.argv[2] and r["state"] == "kept" and r["reason"] == "--keep", r
assert r["argv"] == ["sh", "-c", "exit 0", "make-believe"] and r["cwd"] == sys.argv[3], r
assert isinstance(r["size_bytes"], int) and isinstance(r["pid"], int), r
' "$output" "$tree" "$W/proj"
	# a record written before the cwd was: "-"
	python3 -c '
import json, sys
p = sys.argv[1] + "/owner"
o = json.load(open(p)); del o["cwd"]; del o["argv"]
open(p, "w").write(json.dumps(o))' "$tree"
	run isols
	[[ "$(ls_line "$tree")" =~ \ -\ +-\ +[0-9]+\ +kept\ +--keep$ ]]
	run --separate-stderr "$ISORUN" ls --json --root "$W/nope"
	[ "$output" = "[]" ]
	force_remove "$tree"
}

@test "a retained tree is listed with the reason its run gave, and removed once the holder is gone" {
	mkfifo "$W/path"
	"$ISORUN" --root "$R" -- sh -c "echo \"\$HOME\" > $W/path; $H/waitfor $W/holder.pid" >"$W/out" 2>&1 3>&- &
	isopid=$!
	home=$(cat "$W/path")
	"$H/holdcwd" "$home" "$W/holder.pid" <&- 3>&- &
	holder=$!
	echo "$holder" >"$W/holder.kill"
	wait "$isopid" && rc=0 || rc=$?
	[ "$rc" -eq 122 ]
	tree=$(dirname "$home")
	run isols
	[[ "$(ls_line "$tree")" =~ \ retained\ +pid\ $holder\ \`.*\`\ has\ its\ cwd\ in\ it\ \($home\)$ ]]
	run isogc
	[[ "$output" == "kept $tree: pid $holder \`"*"\` has its cwd in it ($home)" ]]
	kill "$holder"
	wait "$holder" || true
	run isogc
	[[ "$output" == "removed $tree: owner pid $isopid is gone; its lock is free; no process has a file, cwd or root in it"* ]]
	assert_no_tree
}

@test "no proof, no removal: a corrupt or missing owner record, another PID namespace, a symlink" {
	iso --keep -- true 2>/dev/null
	tree=$(the_tree)
	cp "$tree/owner" "$W/owner"
	echo '{"pid": 1,' >"$tree/owner"
	run isols
	[[ "$(ls_line "$tree")" == *" unreadable  owner record: not JSON "* ]]
	run isogc
	[[ "$output" == "kept $tree: owner record: not JSON "* ]]
	rm "$tree/owner"
	run isogc
	[ "$output" = "kept $tree: owner record: missing; its run recorded kept: --keep" ]
	# a pid taken in another PID namespace names nothing here
	sed 's/"pidns":[0-9]*/"pidns":1/' "$W/owner" >"$tree/owner"
	run isogc
	[[ "$output" == "kept $tree: the owner ran in another PID namespace (pid:[1], here pid:["*"]), so pid "*" cannot be checked from here" ]]
	# ... unless the record is from another boot, when no pid of it lives
	sed 's/"pidns":[0-9]*/"pidns":1/; s/"boot_id":"[^"]*"/"boot_id":"an-earlier-boot"/' "$W/owner" >"$tree/owner"
	ln -s / "$U/a-link"
	# a --keep tree: gc --kept, the proof is what is tested
	run isogc --kept --dry-run
	[[ "$output" == *"keep $U/a-link: not a directory"* ]]
	[[ "$output" == *"would remove $tree: the owner ran in another boot (boot id an-earlier-boot, now "* ]]
	# the control: the untouched record, from this boot, proves it too
	cp "$W/owner" "$tree/owner"
	run isogc --kept
	[[ "$output" == *"kept $U/a-link: not a directory"* ]]
	[[ "$output" == *"removed $tree: owner pid "*" is gone; its lock is free; no process has a file, cwd or root in it"* ]]
	[ -L "$U/a-link" ]
	rm "$U/a-link"
	assert_no_tree
}

@test "ls and gc read a tree of the older layout: a lock file beside an owner record without \"lock\", and cache/ config/ data/ state/" {
	iso --keep -- true 2>/dev/null
	tree=$(the_tree)
	# what an earlier isorun made, killed before it recorded an outcome
	python3 -c '
import json, sys
p = sys.argv[1] + "/owner"
o = json.load(open(p)); del o["lock"]
open(p, "w").write(json.dumps(o))' "$tree"
	rm "$tree/outcome"
	mkdir -m 0700 "$tree/cache" "$tree/config" "$tree/data" "$tree/state"
	: >"$tree/lock"
	# its lock file held (by flock(1), whose descriptor is in the tree): running
	flock "$tree/lock" sh -c "touch $W/locked; exec $H/waitfor -t 600 $W/release" 3>&- &
	holder=$!
	echo "$holder" >"$W/holder.kill"
	"$H/waitfor" -t 60 "$W/locked"
	run isols
	[[ "$(ls_line "$tree")" == *" running "*"its lock is held"* ]]
	run isogc --kept
	[[ "$output" == "kept $tree: its lock is held"* ]]
	touch "$W/release"
	wait "$holder"
	run isols
	[[ "$(ls_line "$tree")" == *" orphaned "*"owner pid "*" is gone without recording an outcome (crashed or killed)" ]]
	run isogc
	[[ "$output" == "removed $tree: owner pid "*" is gone; its lock is free; no process has a file, cwd or root in it"* ]]
	assert_no_tree
}

@test "ls and gc on a root that does not exist say so on stderr, exit 0" {
	for sub in ls gc; do
		run --separate-stderr "$ISORUN" $sub --root "$W/nope"
		[ "$status" -eq 0 ]
		[ -z "$output" ]
		[ "$stderr" = "isorun: $sub: root '$W/nope' does not exist: no trees there" ]
	done
	# an existing root without trees: nothing to say
	run --separate-stderr "$ISORUN" ls --root "$W"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "as root, each run's shield has a lower layer of its own; gc takes away an old shared one, whatever it holds" {
	[ "$(id -u)" -eq 0 ] || skip "only root's tree wears a shield"
	# a root command writes its layer by path: no other run sees it
	mkfifo "$W/go"
	iso -- sh -c 'for l in "$ISORUN_NAMESPACE"/../.empty "$ISORUN_NAMESPACE"/../.*.l; do
			[ -d "$l" ] && mkdir -p "$l/home" && echo theirs >"$l/home/.bashrc"; done
		: >'"$W/written"'; cat '"$W/go"' >/dev/null' 3>&- &
	first=$!
	"$H/waitfor" -t 60 "$W/written"
	run --separate-stderr iso -- sh -c 'stat -f -c %T "$HOME"; cat "$HOME/.bashrc" 2>/dev/null; echo "[$?]"'
	: >"$W/go"
	wait "$first"
	[ "$status" -eq 0 ]
	# through a shield, and none of the other run's layer
	[[ "$output" == "overlayfs"*"[1]" ]]
	[[ "$output" != *theirs* ]]
	[ -z "$(ls -A "$U")" ]
	# the shared layer of earlier versions, dirtied: gc takes it away whole
	mkdir -p "$U/.empty/home" && echo theirs >"$U/.empty/home/.bashrc"
	run isogc
	[ "$status" -eq 0 ]
	[ -z "$(ls -A "$U")" ]
	run iso -- true
	[ "$status" -eq 0 ]
	[ -z "$(ls -A "$U")" ]
}

@test "as root, gc's sweep of the shields' work directories goes past an entry it cannot remove or that is not its own" {
	[ "$(id -u)" -eq 0 ] || skip "only root's tree wears a shield"
	mkdir -p "$U"
	chmod 0711 "$U"
	for i in 1 2 3 4 5 6 7 8; do mkdir -p "$U/.gone$i.w/work" "$U/.gone$i.l"; done
	ln -s /etc "$U/.asymlink.w"
	mkdir "$U/.amount.w"
	mount -t tmpfs none "$U/.amount.w"
	run --separate-stderr isogc
	umount "$U/.amount.w"
	echo "$stderr"
	[ -z "$(ls -d "$U"/.gone* 2>/dev/null)" ]
	[ -L "$U/.asymlink.w" ]
	[ -d /etc ]
	rm -f "$U/.asymlink.w"
	rmdir "$U/.amount.w" 2>/dev/null || true
}

@test "gc's removal is followed by the kernel's release proof: a descriptor in flight that no scan sees is said, exit 1" {
	fd_in_flight_listener "$W/sock" "$W/holder.pid"
	holder=$(cat "$W/holder.pid")
	# a kept tree: its run proves nothing; gc's removal does
	run --separate-stderr iso --keep -- python3 "$TOP/tests/helpers/inflight.py" send "$W/sock"
	[ "$status" -eq 0 ]
	run isogc --kept
	kill -KILL "$holder"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == "removed "*"; yet the kernel says the removed tree is still held"*"a descriptor in flight in a unix socket"* ]]
	# control: nothing in flight, nothing said
	run iso --keep -- true
	run isogc --kept
	[ "$status" -eq 0 ]
	[[ "$output" != *"; yet the kernel says"* ]]
}

# The owner of start_blocked's run killed before its teardown: its tree keeps
# its shield (as root).
kill_owner() {
	kill -KILL "$isopid"
	wait "$isopid" || true
}

# Then its command ends: EOF on the FIFO comes after its files and cwd are let go.
end_command() {
	touch "$W/never"
	cat <&8
	exec 8<&-
}

# What gc removes once the kernel proved a killed run's tree unheld.
REMOVED_PROVEN="its lock is free; no process has a file, cwd or root in it; its shield taken off first"
PROVEN_LINE="proven by the kernel, no process read: its shield ended with its unmount"

@test "as root, gc proves a killed run's tree unheld as the run would have, no process read; without its shield every process is read" {
	[ "$(id -u)" -eq 0 ] || skip "only root's tree wears a shield"
	private_root
	start_blocked --cgroup=off
	kill_owner
	end_command
	grep -q " $tree overlay " /proc/self/mounts
	run --separate-stderr isogc -v
	[ "$status" -eq 0 ]
	[ "$output" = "removed $tree: owner pid $isopid is gone; $REMOVED_PROVEN" ]
	[ "$stderr" = "isorun: gc: holders of $tree: $PROVEN_LINE" ]
	! grep -q " $tree " /proc/self/mounts
	assert_no_tree
	# control: the same killed run without its shield, every process read
	rm -f "$W/never"
	ISORUN_TEST_FAULT=no-shield start_blocked --cgroup=off
	kill_owner
	end_command
	run --separate-stderr isogc -v
	[ "$status" -eq 0 ]
	[[ "$stderr" == "isorun: gc: holders of $tree: "*" processes read" ]]
	assert_no_tree
}

@test "as root, a killed run's tree held through its shield: gc's kernel says held, the scan names the holder, the tree and its shield stay" {
	[ "$(id -u)" -eq 0 ] || skip "only root's tree wears a shield"
	private_root
	start_blocked --cgroup=off
	echo "$cmdpid" >"$W/cmd.kill"
	kill_owner
	run --separate-stderr isogc -v
	[ "$status" -eq 0 ]
	[[ "$output" == "kept $tree: pid $cmdpid \`"*"\` holds $home/held open (fd 3); its shield (an overlay) is still mounted on it"* ]]
	[[ "$stderr" == "isorun: gc: holders of $tree: "*" processes read: its shield is held through its mount" ]]
	grep -q " $tree overlay " /proc/self/mounts
	[ -f "$home/held" ]
	# what the dead command mounted inside its tree holds the unmount, not the tree
	end_command
	mount -t tmpfs inside "$home"
	run --separate-stderr isogc -v
	[ "$status" -eq 0 ]
	[ "$output" = "removed $tree: owner pid $isopid is gone; $REMOVED_PROVEN" ]
	[ "$stderr" = "isorun: gc: holders of $tree: $PROVEN_LINE" ]
	assert_no_tree
}

@test "as root, a loop device backed by a killed run's tree file: the kernel says held, no scan names it, gc keeps the tree and names the device" {
	[ "$(id -u)" -eq 0 ] || skip "loop devices need root"
	[ -e /dev/loop-control ] || skip "no loop devices here"
	private_root
	BEFORE='truncate -s 1M "$HOME/img" && losetup -f "$HOME/img"' start_blocked --cgroup=off
	kill_owner
	end_command
	run --separate-stderr isogc -v
	for l in $(losetup -n -O NAME -j "$home/img" 2>/dev/null); do
		losetup -d "$l"
	done
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == "kept $tree: the kernel says the tree is held"*"loop device loop"*"is backed by a file in it"* ]]
	[ -f "$home/img" ]
	run isogc
	[ "$status" -eq 0 ]
	[[ "$output" == "removed $tree: "* ]]
	assert_no_tree
}

@test "as root, a holder of a killed run's tree in a mount namespace that shows it bare: only that namespace's processes are read, the holder is named" {
	[ "$(id -u)" -eq 0 ] || skip "only root's tree wears a shield"
	private_root
	# a namespace of its own, private, made before the tree: the shield is not in it
	unshare -m --propagation private sh -c 'echo $$ >"$1/ns.pid.tmp" && mv "$1/ns.pid.tmp" "$1/ns.pid" &&
		exec "$2/waitfor" -t 600 "$1/ns.end"' sh "$W" "$H" <&- 3>&- &
	echo $! >"$W/ns.kill"
	"$H/waitfor" -t 60 "$W/ns.pid"
	start_blocked --cgroup=off
	kill_owner
	end_command
	nsenter -t "$(cat "$W/ns.pid")" -m "$H/holdcwd" "$home" "$W/holder.pid" <&- 3>&- &
	"$H/waitfor" -t 60 "$W/holder.pid"
	holder=$(cat "$W/holder.pid")
	echo "$holder" >"$W/holder.kill"
	run --separate-stderr isogc -v
	[ "$status" -eq 0 ]
	[[ "$output" == "kept $tree: pid $holder \`"*"\` has its cwd in it ($home)" ]]
	[[ "$stderr" == "isorun: gc: holders of $tree: the mount namespaces' that show it bare: "*" read: mount namespace "*" shows the tree without its shield at $tree" ]]
	read_n=$(sed -n 's/^.*show it bare: \([0-9]*\) process.*$/\1/p' <<<"$stderr")
	[ "$read_n" -ge 1 ] && [ "$((read_n * 2))" -lt "$(ls -d /proc/[0-9]* | wc -l)" ]
	# the holder gone (SIGTERM: it exits), the tree goes
	kill -TERM "$holder"
	: >"$W/ns.end"
	pids_gone "$holder"
	run isogc
	[ "$status" -eq 0 ]
	[[ "$output" == "removed $tree: "* ]]
	assert_no_tree
}

@test "as root, a decoy over a killed run's shield proves nothing: an overlay over it keeps the tree unjudged, a tmpfs hides it" {
	[ "$(id -u)" -eq 0 ] || skip "only root's tree wears a shield"
	private_root
	start_blocked --cgroup=off
	echo "$cmdpid" >"$W/cmd.kill"
	kill_owner
	# over the shield, an overlay that shows the tree (the owner record too) and ends
	# when unmounted: a proof by the path would hear its end with the holder inside
	mkdir "$R/du" "$R/dw"
	mount -t overlay decoy -o lowerdir="$tree",upperdir="$R/du",workdir="$R/dw" "$tree"
	run --separate-stderr isogc -v
	[ "$status" -eq 0 ]
	[[ "$output" == "kept $tree: something other than its shield is mounted at its path"* ]]
	[[ "$stderr" == "isorun: gc: holders of $tree: not judged, no process read: what is mounted at the tree's path is not its shield"* ]]
	[[ "$stderr" != *"proven by the kernel"* ]]
	umount "$tree"
	[ -f "$home/held" ]
	# a tmpfs over it: no shield there, nothing proven, nothing removed
	mount -t tmpfs decoy "$tree"
	run --separate-stderr isogc -v
	[ "$status" -eq 0 ]
	[[ "$output" == "kept $tree: "* ]]
	[[ "$stderr" != *"proven by the kernel"* ]]
	umount "$tree"
	[ -f "$home/held" ]
	end_command
	run --separate-stderr isogc -v
	[ "$status" -eq 0 ]
	[ "$stderr" = "isorun: gc: holders of $tree: $PROVEN_LINE" ]
	assert_no_tree
}

@test "an ordinary user's killed --pidns run: its tree below its gate has nothing left to ask the kernel, gc -v says the scan ran and why" {
	[ "$(id -u)" -ne 0 ] || skip "root's tree wears a shield, not a gate"
	require "user and PID namespaces" userns_ok
	start_blocked --pidns
	kill_owner
	cat <&8
	exec 8<&-
	run --separate-stderr isogc -v
	[ "$status" -eq 0 ]
	[[ "$output" == "removed $tree: owner pid $isopid is gone; its lock is free; no process has a file, cwd or root in it"* ]]
	[[ "$stderr" == "isorun: gc: holders of $tree: "*" read: the overlay over its gate lived in the killed run's namespace: nothing is left to ask the kernel" ]]
	assert_no_tree
}
