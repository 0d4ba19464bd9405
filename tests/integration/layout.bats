#!/usr/bin/env bats
# The layout is the architecture (docs/design.md, "Layout"): one module per folder,
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

@test "build: a package pkg-config cannot find stops make at once, naming it and the fix" {
	run make -n -C "$TOP" BUILD="$W/b" PKGS="libseccomp isorun-no-such-package" all
	[ "$status" -ne 0 ]
	[[ "$output" == *"pkg-config cannot find: isorun-no-such-package; install the build dependencies with \`make deps\`"* ]]
	# control: with the real list the same dry run goes through
	run make -n -C "$TOP" BUILD="$W/b" all
	[ "$status" -eq 0 ]
}
