#!/usr/bin/env bats
# `make dist` and `make deb` build a lintian-clean package from the tracked files,
# and refuse a changelog that disagrees with VERSION (the installed files:
# package.bats).

# the longest files, started first (tests/run-all.sh)
# bats file_tags=slow

load helpers

TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
BUILDDIR=$(dirname "$ISORUN")

# aa_parser EXIT: an apparmor_parser on PATH that exits EXIT and logs its arguments
aa_parser() {
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\necho "$*" >>"%s/aa.log"\nexit %s\n' "$BATS_TEST_TMPDIR" "$1" \
		>"$BATS_TEST_TMPDIR/bin/apparmor_parser"
	chmod +x "$BATS_TEST_TMPDIR/bin/apparmor_parser"
}

# The package's postinst puts the AppArmor profile in /etc/apparmor.d where the
# host's parser accepts it, and only there; postrm takes it away.  Run under
# DPKG_ROOT (dpkg's root for maintainer scripts) on a copy of the package.
maintainer_scripts() {
	local root="$BATS_TEST_TMPDIR/root" ctl="$BATS_TEST_TMPDIR/ctl"
	dpkg-deb -x "$1" "$root"
	dpkg-deb -e "$1" "$ctl"
	mkdir -p "$root/etc/apparmor.d"
	# a parser that accepts it: installed, 0644, the shipped text
	aa_parser 0
	PATH=$BATS_TEST_TMPDIR/bin:$PATH DPKG_ROOT=$root "$ctl/postinst" configure
	cmp "$root/usr/share/isorun/apparmor/isorun" "$root/etc/apparmor.d/isorun"
	[ "$(stat -c %a "$root/etc/apparmor.d/isorun")" = 644 ]
	grep -q -- "-Q -K -b $root/etc/apparmor.d $root/usr/share/isorun/apparmor/isorun" \
		"$BATS_TEST_TMPDIR/aa.log"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH DPKG_ROOT=$root "$ctl/postrm" remove
	[ ! -e "$root/etc/apparmor.d/isorun" ]
	# one that refuses it (an older one, without abi/4.0): not installed, and an
	# earlier copy goes; the package installs all the same
	aa_parser 1
	touch "$root/etc/apparmor.d/isorun"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH DPKG_ROOT=$root "$ctl/postinst" configure
	[ ! -e "$root/etc/apparmor.d/isorun" ]
	# no AppArmor at all: nothing happens
	rm -rf "$root/etc/apparmor.d"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH DPKG_ROOT=$root "$ctl/postinst" configure
	[ ! -e "$root/etc/apparmor.d" ]
}

@test "package: make dist and make deb build a lintian-clean package of the tracked files" {
	require dpkg-buildpackage command -v dpkg-buildpackage
	require lintian command -v lintian
	local B="$BATS_TEST_TMPDIR/build" v arch deb
	v=$(cat "$TOP/VERSION")
	arch=$(dpkg --print-architecture)
	# its own build directory, so the tree under test is not touched
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$TOP" BUILD="$B" deb
	[ "$status" -eq 0 ]
	local make_output=$output
	[[ "$make_output" == *"lintian --fail-on error "* ]]

	tar -tzf "$B/isorun-$v.tar.gz" | grep -v '/$' | LC_ALL=C sort >"$BATS_TEST_TMPDIR/list"
	! grep -v "^isorun-$v/" "$BATS_TEST_TMPDIR/list"
	! grep -q "^isorun-$v/build/" "$BATS_TEST_TMPDIR/list"
	for f in Makefile VERSION LICENSE docs/man/isorun.1 packaging/debian/rules \
		packaging/completions/_isorun cli/main.c; do
		grep -qx "isorun-$v/$f" "$BATS_TEST_TMPDIR/list"
	done
	if [ "$(git -C "$TOP" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$TOP" && pwd -P)" ]; then
		diff <(git -C "$TOP" ls-files | sed "s,^,isorun-$v/," | LC_ALL=C sort) \
			"$BATS_TEST_TMPDIR/list"
	fi

	deb=$(echo "$B"/deb/isorun_"$v"-*_"$arch".deb)
	[ -f "$deb" ]
	[ "$(dpkg-deb -f "$deb" Package)" = isorun ]
	[[ "$(dpkg-deb -f "$deb" Version)" == "$v"-* ]]
	[ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ]
	[[ "$(dpkg-deb -f "$deb" Depends)" == *libseccomp* ]]
	dpkg-deb -c "$deb" >"$BATS_TEST_TMPDIR/contents"
	for f in usr/bin/isorun usr/share/man/man1/isorun.1.gz usr/share/man/man5/isorun-policy.5.gz \
		usr/share/bash-completion/completions/isorun usr/share/zsh/vendor-completions/_isorun \
		usr/share/isorun/default.policy usr/share/isorun/strict.policy \
		usr/share/isorun/report.schema.json usr/share/doc/isorun/copyright \
		usr/share/isorun/apparmor/isorun \
		usr/share/doc/isorun/contract.md.gz usr/share/doc/isorun/architecture.md.gz \
		$(cd "$TOP/docs/use" && printf 'usr/share/doc/isorun/use/%s.gz ' *.md) \
		$(cd "$TOP/docs/decisions" && printf 'usr/share/doc/isorun/decisions/%s.gz ' *.md); do
		grep -q " \./$f\$" "$BATS_TEST_TMPDIR/contents" || {
			echo "not in the package: $f" >&2
			return 1
		}
	done
	dpkg-deb -x "$deb" "$BATS_TEST_TMPDIR/x"
	# compressed as policy wants, and the links name the .gz that is there
	links_resolve "$BATS_TEST_TMPDIR/x" "$BATS_TEST_TMPDIR"/x/usr/share/doc/isorun/*.md.gz \
		"$BATS_TEST_TMPDIR"/x/usr/share/doc/isorun/use/*.md.gz \
		"$BATS_TEST_TMPDIR"/x/usr/share/doc/isorun/decisions/*.md.gz
	zgrep -q '](use/README.md.gz)' "$BATS_TEST_TMPDIR/x/usr/share/doc/isorun/README.md.gz"
	maintainer_scripts "$deb"
	run "$BATS_TEST_TMPDIR/x/usr/bin/isorun" --version
	[ "$output" = "isorun $v" ]
	# lintian's verdict on what was built, from make deb's own run of it
	# (--fail-on error made its status): not one error line either
	! grep -q '^E: ' <<<"$make_output"
}

@test "package: make deb refuses a changelog that disagrees with VERSION" {
	require dpkg-parsechangelog command -v dpkg-parsechangelog
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "$TOP" BUILD="$BATS_TEST_TMPDIR/build" VERSION=9.9.9 deb
	[ "$status" -ne 0 ]
	[[ "$output" == *"packaging/debian/changelog is at "*", VERSION is 9.9.9"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/build/deb" ]
}
