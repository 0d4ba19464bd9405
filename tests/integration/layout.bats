#!/usr/bin/env bats
# The layout is the architecture (docs/architecture.md, "Module map"): one module per folder,
# dependencies one way.  These read the sources, so they fail the moment a change
# breaks a rule; each has a control that shows it can fail.

load helpers

# The folders, lowest first: a folder may include only folders before it in its row.
may_use() {
	case $1 in
	common) echo "common" ;;
	ns | policy | tree | cgroup) echo "common $1" ;;
	launcher) echo "common ns policy tree cgroup launcher" ;;
	selftest) echo "common ns policy tree cgroup selftest" ;;
	cli) echo "common ns policy tree cgroup launcher selftest cli" ;;
	*) echo "?" ;;
	esac
}

# "file: included-folder" for every include of ours that breaks the rule, under $1.
bad_includes() {
	local top=$1 dir f inc allowed
	for dir in common ns policy tree cgroup launcher selftest cli; do
		allowed=" $(may_use "$dir") "
		for f in "$top/$dir"/*.[ch]; do
			[ -e "$f" ] || continue
			grep -o '#include "[a-z_]*/' "$f" | sed 's/#include "//; s,/$,,' |
				while read -r inc; do
					[[ "$allowed" == *" $inc "* ]] || echo "${f#"$top"/}: $inc"
				done
		done
	done
}

@test "layout: every folder includes only the folders below it; no cycle" {
	run bad_includes "$TOP"
	[ "$status" -eq 0 ]
	[ -z "$output" ] || { echo "$output" >&2; false; }
	# control: a copy where ns/ includes the supervisor is caught
	mkdir -p "$W/t"
	cp -R "$TOP/common" "$TOP/ns" "$W/t/"
	echo '#include "launcher/run.h"' >>"$W/t/ns/ns.h"
	run bad_includes "$W/t"
	[[ "$output" == *"ns/ns.h: launcher"* ]]
}

# String literals in ns/ and policy/ that name a command-line option.
option_names() {
	grep -n '"[^"]*--[a-z][a-z-]*' "$1"/ns/*.[ch] "$1"/policy/*.[ch] "$1"/cgroup/*.[ch] 2>/dev/null | grep -v '^\s*\*\|/\*' || true
}

@test "layout: ns/ and policy/ name no command-line option; the command line phrases advice" {
	[ -z "$(option_names "$TOP")" ] || { option_names "$TOP" >&2; false; }
	mkdir -p "$W/t/ns" "$W/t/policy"
	printf 'x = "use --pidns=try";\n' >"$W/t/ns/x.c"
	[ -n "$(option_names "$W/t")" ]
}

# Functions in launcher/ over $2 lines: "file:line name length".
long_functions() {
	awk -v max="$2" '/^[a-z].*\(/ && !/;$/ { name = $0; start = FNR }
		/^}/ && start { if (FNR - start > max) print FILENAME ":" start " " FNR - start; start = 0 }' \
		"$1"/launcher/*.c
}

@test "layout: no function in launcher/ is longer than 80 lines" {
	[ -z "$(long_functions "$TOP" 80)" ] || { long_functions "$TOP" 80 >&2; false; }
	# control: the same check with a bound of 20 lines finds some
	[ -n "$(long_functions "$TOP" 20)" ]
}

# A function-local `static` that is not const: state that outlives its call.
local_statics() {
	grep -n '^[[:space:]]\+static ' "$1"/launcher/*.c "$1"/cli/*.c 2>/dev/null | grep -v 'static const' || true
}

@test "layout: no function-local static holds state in launcher/ or cli/" {
	[ -z "$(local_statics "$TOP")" ] || { local_statics "$TOP" >&2; false; }
	mkdir -p "$W/t/launcher"
	printf 'int f(void)\n{\n\tstatic int n;\n\treturn n++;\n}\n' >"$W/t/launcher/x.c"
	[ -n "$(local_statics "$W/t")" ]
}

# The rules over every folder (tests/layout_check.py), less the debts listed
# in tests/layout-allow.txt with their reasons: an entry that no longer offends
# fails the rule until it is removed from the list.
layout_rule() {
	python3 "$TOP/tests/layout_check.py" "$1" "$2" "${3:-$TOP/tests/layout-allow.txt}"
}

# A fixture tree: $W/t with the folder $1 holding the file $2 of text $3.
fixture() {
	mkdir -p "$W/t/$1"
	printf '%b' "$3" >"$W/t/$1/$2"
}

@test "layout: no include cycle between the files of one folder" {
	run layout_rule include-cycle "$TOP"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	# control: two files of tree/ that include each other are caught
	fixture tree a.h '#include "tree/b.h"\n'
	fixture tree b.c '#include "tree/b.h"\n#include "tree/a.h"\n'
	fixture tree b.h '#include "tree/a.h"\n'
	run layout_rule include-cycle "$W/t" /dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == *"include-cycle tree/: a -> b -> a"* ]]
}

@test "layout: every path a comment names exists" {
	run layout_rule comment-path "$TOP"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	# control: a comment naming a file that is not there is caught, one that is passes
	fixture common x.c '/* see common/x.c and docs/nowhere.md */\nint x;\n'
	run layout_rule comment-path "$W/t" /dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == "comment-path common/x.c: docs/nowhere.md: (line 1)" ]]
}

@test "layout: no function in any folder is longer than 80 lines" {
	run layout_rule long-function "$TOP"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	# control: an 81-line function is caught, an 80-line one is not
	fixture cgroup x.c "static int longer(void)\n{\n$(printf '\tx++;\\n%.0s' $(seq 79))}\n"
	fixture cgroup y.c "int fits(int x)\n{\n$(printf '\tx++;\\n%.0s' $(seq 78))}\n"
	run layout_rule long-function "$W/t" /dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == "long-function cgroup/x.c:longer: 81 lines" ]]
}

@test "layout: no string outside cli/ names a command-line option" {
	run layout_rule option-name "$TOP"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	# control: a message naming --pidns in tree/ is caught; a comment, or cli/, may name it
	fixture tree x.c '/* --pidns */\nconst char *m = "use --pidns=try";\n'
	fixture cli y.c 'const char *m = "--pidns";\n'
	run layout_rule option-name "$W/t" /dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == "option-name tree/x.c:--pidns: (line 2)" ]]
}

@test "layout: no header takes a char *why, size_t error buffer: errors go into struct iso_err" {
	run layout_rule error-buffer "$TOP"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	# control: such a prototype in tree/ is caught; a buffer for a result, or one in a .c, is not
	fixture tree x.h '/* why */\nint tree_x(int fd,\n\t   char *why, size_t len);\nint tree_y(char *buf, size_t len);\n'
	fixture tree x.c 'static int z(char *why, size_t len);\n'
	run layout_rule error-buffer "$W/t" /dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == "error-buffer tree/x.h:tree_x: char *why" ]]
}

@test "layout: a header's functions carry their folder's prefix" {
	run layout_rule prefix "$TOP"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	# control: iso_ in tree/ is caught; tree_, a static in a .c, a struct, a pointer member or
	# a prototype in a macro's body are not
	fixture tree x.h '#define TREE_ROW(render) \\\n\tvoid render(void);\nstruct tree_x { int (*iso_cb)(void); };\nconst char *tree_name(int x);\nint\niso_x_open(const char *p);\ntypedef int tree_cb_fn(int);\ntree_cb_fn iso_x_cb;\ntree_cb_fn tree_x_cb;\n'
	fixture tree x.c 'static int iso_y(void);\n'
	fixture common y.h 'static inline int iso_z(void)\n{\n\treturn 0;\n}\n'
	run layout_rule prefix "$W/t" /dev/null
	[ "$status" -eq 1 ]
	# a function declared through a function type is one too
	[ "$output" = "prefix tree/x.h:iso_x_open: not tree_
prefix tree/x.h:iso_x_cb: not tree_" ]
}

@test "layout: common/ holds each primitive once: a read-all, the kernel's sigaction, the clock" {
	run layout_rule primitive "$TOP"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	# control: a read loop retrying EINTR, a sigaction layout and a monotonic clock read
	# in tree/ are caught; common/, a comment, a read without EINTR and a timerfd are not
	fixture tree x.c 'int f(int fd, char *b)\n{\n\tfor (;;) {\n\t\tssize_t n = read(fd, b, 8);\n\n\t\tif (n < 0 && errno == EINTR)\n\t\t\tcontinue;\n\t}\n}\n'
	fixture tree y.c 'struct k { unsigned long handler, flags, restorer, mask; };\n/* read() retried on EINTR */\nint g(int fd) { return read(fd, 0, 0); }\nvoid h(void) { clock_gettime(CLOCK_MONOTONIC, &ts); }\nint t = timerfd_create(CLOCK_MONOTONIC, 0);\n'
	fixture common z.c 'ssize_t n = read(fd, b, 8); /* EINTR */ if (errno == EINTR) n = 0;\nstruct k { unsigned long restorer; };\nvoid h(void) { clock_gettime(CLOCK_MONOTONIC, &ts); }\n'
	run layout_rule primitive "$W/t" /dev/null
	[ "$status" -eq 1 ]
	[ "$output" = "primitive tree/x.c:read-eintr: (line 4)
primitive tree/y.c:monotonic-clock: (line 4)
primitive tree/y.c:kernel-sigaction: (line 1)" ]
}

@test "tests: what a test puts in the background closes bats' fd 3" {
	run layout_rule bats-background "$TOP"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	# control: a background command holding fd 3 is caught, on one line or continued;
	# one that closes it, a && list, a comment and an & inside a line are not
	fixture tests/integration x.bats 'sleep 60 &\nsleep 60 3>&- &\nsleep 1 \\\n\t--x >/dev/null 2>&1 &\ntrue && true\n# sleep &\nsleep 0 & wait\n'
	run layout_rule bats-background "$W/t" /dev/null
	[ "$status" -eq 1 ]
	[ "$output" = "bats-background tests/integration/x.bats:1: no 3>&-
bats-background tests/integration/x.bats:4: no 3>&-" ]
}

@test "layout: an allowlist entry that no longer offends fails its rule until removed" {
	fixture tree x.c 'const char *m = "use --pidns=try";\n'
	printf 'option-name tree/x.c:--pidns  # the fixture\n' >"$W/allow"
	run layout_rule option-name "$W/t" "$W/allow"
	[ "$status" -eq 0 ]
	# control: the offender fixed, its entry is stale and the rule fails
	fixture tree x.c 'const char *m = "use pidns=try";\n'
	run layout_rule option-name "$W/t" "$W/allow"
	[ "$status" -eq 1 ]
	[[ "$output" == "stale: option-name tree/x.c:--pidns"* ]]
}

@test "build: a package pkg-config cannot find stops make at once, naming it and the fix" {
	run make -n -C "$TOP" BUILD="$W/b" PKGS="libseccomp isorun-no-such-package" all
	[ "$status" -ne 0 ]
	[[ "$output" == *"pkg-config cannot find: isorun-no-such-package; install the build dependencies with \`make deps\`"* ]]
	# control: with the real list the same dry run goes through
	run make -n -C "$TOP" BUILD="$W/b" all
	[ "$status" -eq 0 ]
}
