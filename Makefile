# isorun — one plain Makefile.  `make` builds build/isorun; `make check` runs
# every test tier and ends with "N passed, N failed".
#
# Knobs: SANITIZE=1 (ASan+UBSan), WERROR=1, STATIC_LIBS=0, PREFIX, DESTDIR;
# for the tests T= (which) and J= (how many integration files at a time).
# `make install` / `make uninstall` honour DESTDIR and PREFIX; `make dist` writes
# $(BUILD)/isorun-VERSION.tar.gz; `make deb` builds the Debian package from it.

PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
DATADIR	?= $(PREFIX)/share
MANDIR	?= $(DATADIR)/man
DOCDIR	?= $(DATADIR)/doc/isorun
PKGDATADIR ?= $(DATADIR)/isorun
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(DATADIR)/zsh/vendor-completions
BUILD	?= build
VERSION	:= $(shell cat VERSION 2>/dev/null || echo 0.0.0)
# The build's own version (issue 39), in --version, the report and JUnit: in a
# git checkout of this very directory `git describe` against the release tags
# (0.1.0 on the tag v0.1.0, 0.1.0-12-gabc1234 after it, -dirty with local
# edits; VERSION-gabc1234 where no tag is reachable, as in a shallow fetch);
# elsewhere (a tarball, the .deb's build, a copy of the files) VERSION.  The
# release's names (dist, deb) stay VERSION.
BUILD_VERSION := $(shell \
	if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$$(pwd -P)" ]; then \
		v=$$(git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null) && echo "$$v" | sed 's/^v//' || \
		{ h=$$(git describe --always --dirty 2>/dev/null) && echo "$(VERSION)-g$$h"; } || \
		echo "$(VERSION)"; \
	else echo "$(VERSION)"; fi)

# One compiler per CPU unless -j was given (-j1: one at a time): the objects,
# unit tests and helpers `make check` builds take half the time on two cores.
# Not beside clean, which would race the build it precedes.
ifeq ($(filter -j%,$(MAKEFLAGS))$(filter clean,$(MAKECMDGOALS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

# Quiet, as the kernel's build: one `  CC      build/x.o` line per step; V=1 shows
# every command in full, make -s shows neither.
ifeq ($(V),1)
say =
else ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
say = @
else
say = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

PKGS	:= libseccomp libcap libnl-3.0 libnl-route-3.0 jansson inih
# A package pkg-config cannot find would silently empty every package's flags
# and the build would fail later on a header with no hint why: stop here,
# naming it (goals that build nothing, like deps, go on).
NOBUILD_GOALS := deps deps-build clean lint dist uninstall analyze version
ifneq ($(filter-out $(NOBUILD_GOALS),$(or $(MAKECMDGOALS),all)),)
PKG_MISSING := $(strip $(foreach p,$(PKGS),$(if $(shell pkg-config --exists $(p) && echo y),,$(p))))
ifneq ($(PKG_MISSING),)
$(error pkg-config cannot find: $(PKG_MISSING); install the build dependencies with `make deps`)
endif
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# The six libraries are linked from their archives (glibc stays shared): resolving
# and relocating six shared objects cost ~0.6 ms of every launch here, more than
# half of a whole /bin/true (bench/README.md).  STATIC_LIBS=0 links them shared,
# as the Debian package does (packaging/debian/rules) so that security updates of
# the libraries reach it.
STATIC_LIBS ?= 1
ifeq ($(STATIC_LIBS),1)
PKG_LIBS   := -Wl,-Bstatic $(shell pkg-config --static --libs-only-l $(PKGS) 2>/dev/null | \
		sed 's/-lpthread//g') -Wl,-Bdynamic -lpthread
else
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
endif

CC	?= cc
CFLAGS	?= -O2 -g
WARN	:= -Wall -Wextra -Wformat=2 -Wshadow -Wpointer-arith -Wcast-qual -Wstrict-prototypes \
	   -Wmissing-prototypes -Wundef -Wvla -Wnull-dereference -Wimplicit-fallthrough \
	   -Wno-unused-parameter
HARDEN	:= -D_FORTIFY_SOURCE=3 -fstack-protector-strong -fPIE
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -I. $(PKG_CFLAGS)
ALL_LDFLAGS := -pie -Wl,-z,relro,-z,now -Wl,--as-needed $(LDFLAGS)

ifeq ($(SANITIZE),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ALL_LDFLAGS += -fsanitize=address,undefined
HARDEN	:= -fstack-protector-strong -fPIE
endif
ifeq ($(WERROR),1)
ALL_CFLAGS += -Werror
endif
ALL_CFLAGS += $(HARDEN)

# One module per folder (docs/architecture.md, "Module map"): common/ below all, then ns/,
# policy/ and tree/, launcher/ (the supervisor) and selftest/, cli/ on top.
LIB_SRC	:= $(wildcard common/*.c ns/*.c tree/*.c cgroup/*.c launcher/*.c selftest/*.c) \
	   $(filter-out policy/gen_bpf.c,$(wildcard policy/*.c)) \
	   $(filter-out cli/main.c,$(wildcard cli/*.c))
# the shipped policies' text and BPF, generated at build time from
# policy/*.policy (policy/embed.awk, policy/gen_bpf.c)
POLICIES := $(sort $(wildcard policy/*.policy))
SHIPPED_TEXT := $(BUILD)/gen/shipped_text.c
SHIPPED_BPF := $(BUILD)/gen/shipped_bpf.c
# iso_version (common/version.h), written when BUILD_VERSION changed, and only
# then: what prints it is linked again, nothing else is compiled again
VERSION_C := $(BUILD)/gen/version.c
VERSION_TEXT := \#include "common/version.h"|const char iso_version[] = "$(BUILD_VERSION)";
ifneq ($(filter-out $(NOBUILD_GOALS),$(or $(MAKECMDGOALS),all)),)
$(shell mkdir -p $(BUILD)/gen && { { [ -f $(VERSION_C) ] && [ "$$(tr '\n' '|' <$(VERSION_C))" = '$(VERSION_TEXT)|' ]; } || \
	printf '%s\n' '$(VERSION_TEXT)' | tr '|' '\n' >$(VERSION_C); })
endif
LIB_OBJ	:= $(LIB_SRC:%.c=$(BUILD)/%.o) $(SHIPPED_TEXT:.c=.o) $(SHIPPED_BPF:.c=.o) \
	   $(VERSION_C:.c=.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/unit/%)
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(BUILD)/helpers/%)

.DELETE_ON_ERROR:
.PHONY: all check unit integration soak deps deps-build install uninstall dist deb clean lint bench example fuzz version

all: $(BUILD)/isorun

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(SHIPPED_TEXT): policy/embed.awk $(POLICIES)
	@mkdir -p $(@D)
	$(call say,GEN,$@)awk -f policy/embed.awk $(POLICIES) >$@.tmp && mv $@.tmp $@

$(SHIPPED_TEXT:.c=.o): $(SHIPPED_TEXT)
	$(call say,CC,$@)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(VERSION_C:.c=.o): $(VERSION_C)
	$(call say,CC,$@)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# what this checkout builds as: `make -s version`
version:
	@echo "$(BUILD_VERSION)"

# policy/ but the shipped BPF's loader (policy/load.c), with common/: the rule kinds'
# descriptors (policy/kinds.c) reach their handlers
GEN_BPF_SRC := $(filter-out policy/gen_bpf.c policy/load.c,$(wildcard policy/*.c)) \
	       $(wildcard common/*.c)
$(BUILD)/gen/gen_bpf: policy/gen_bpf.c $(GEN_BPF_SRC:%.c=$(BUILD)/%.o) $(SHIPPED_TEXT:.c=.o)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(SHIPPED_BPF): $(BUILD)/gen/gen_bpf
	$(call say,GEN,$@)$< >$@.tmp && mv $@.tmp $@

$(SHIPPED_BPF:.c=.o): $(SHIPPED_BPF)
	$(call say,CC,$@)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/libiso.a: $(LIB_OBJ)
	@rm -f $@
	$(call say,AR,$@)ar rcs $@ $^

$(BUILD)/isorun: $(BUILD)/cli/main.o $(BUILD)/libiso.a
	$(call say,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/unit/%: tests/unit/%.c tests/unit/unit.h tests/unit/policy_text.h $(BUILD)/libiso.a
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libiso.a $(PKG_LIBS) \
		$(shell pkg-config --libs cmocka)

$(BUILD)/helpers/%: tests/helpers/%.c tests/helpers/common.h
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(PKG_LIBS)

# T= picks tests: `make check T=holders.bats` (or T="holders signals test_num")
# runs just those, integration files still under the gate; J=N runs N
# integration files at a time (twice the CPUs by default, J=1 one by one).
check: $(BUILD)/isorun $(UNIT_BIN) $(HELPER_BIN)
	@J='$(J)' tests/run-all.sh $(BUILD) all $(T)

unit: $(UNIT_BIN)
	@J='$(J)' tests/run-all.sh $(BUILD) unit $(T)

integration: $(BUILD)/isorun $(HELPER_BIN)
	@J='$(J)' tests/run-all.sh $(BUILD) integration $(T)

# `make soak T=reap.bats N=50`: one integration file N times (50 by default),
# each run as `make check T=` runs it, then how many runs passed and how often
# each test failed: the rate tests/FLAKES.md records.
soak: $(BUILD)/isorun $(HELPER_BIN)
	@J='$(J)' tests/soak.sh $(BUILD) '$(or $(N),50)' $(T)

# What building isorun needs, from Debian's archive.
BUILD_DEPS := build-essential pkg-config libseccomp-dev libcap-dev libnl-3-dev libnl-route-3-dev \
	      libjansson-dev libinih-dev
# What the tests need beside it (libpython3.11-testsuite: CPython's own tests of
# id changes, ids.bats; Debian 12's Python is 3.11; strace: contain.bats' ptrace
# of the run's own processes; go, cargo, node, cmake, meson (with ninja-build):
# the ecosystems' runners and real suites, docs_ctest.bats and docs_meson.bats;
# debhelper, lintian: the package; mandoc: the man pages' lint; cppcheck: make
# analyze; lcov: make coverage; parallel: GNU parallel, for bats --jobs;
# ccache: the two CI snippets build one pinned revision, compiled once;
# apparmor: apparmor_parser checks the shipped AppArmor profile, package.bats).
TEST_DEPS := libcmocka-dev bats util-linux procps python3 clang apparmor \
	     debhelper dpkg-dev fakeroot lintian zsh bash-completion python3-yaml \
	     python3-pytest python3-pytest-xdist golang-go cargo cmake meson ninja-build \
	     python3-jsonschema python3-lxml python3-junitparser nodejs mandoc bubblewrap uidmap \
	     libpython3.11-testsuite strace cppcheck lcov parallel ccache
DEB_DEPS := $(BUILD_DEPS) $(TEST_DEPS)
# Only what is missing; without root or sudo, the line to run as root.
deps:
	@packaging/deps.sh $(DEB_DEPS)
deps-build:
	@packaging/deps.sh $(BUILD_DEPS)

# cppcheck over every module folder: any finding fails the target.  What it is
# wrong about is listed with the reason in tests/analyze/cppcheck-suppress.xml.
# One configuration (the build's defines) keeps it to seconds on two cores.
.PHONY: analyze coverage test-bins
ANALYZE_DIRS := common ns policy tree cgroup launcher selftest cli
analyze:
	cppcheck -q -j2 --std=c11 -D_GNU_SOURCE -I. --enable=warning,portability \
		--inline-suppr --suppress-xml=tests/analyze/cppcheck-suppress.xml \
		--error-exitcode=1 --template='{file}:{line}: {severity}: {message} [{id}]' \
		$(ANALYZE_DIRS)
	@echo "analyze: cppcheck clean over $(ANALYZE_DIRS)"

# libFuzzer on every parser of input isorun does not control (clang from
# Debian): the policy, the owner record ls/gc read from disk, isorun.conf, and
# durations, sizes, numbers and signals.  Each tests/fuzz/fuzz_NAME.c runs for
# FUZZ_SECONDS, from the seeds in tests/fuzz/seeds/NAME/ (and tests/policy for
# the policy); its corpus grows in $(BUILD)/fuzz/corpus/NAME.  The library is
# built again with clang, instrumented, under $(BUILD)/fuzz/obj.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(sort $(basename $(notdir $(wildcard tests/fuzz/fuzz_*.c))))
FUZZ_BIN := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%)
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined -std=gnu11 -D_GNU_SOURCE \
	       -I. $(PKG_CFLAGS)
FUZZ_OBJ := $(LIB_SRC:%.c=$(BUILD)/fuzz/obj/%.o) $(BUILD)/fuzz/obj/shipped_text.o \
	    $(BUILD)/fuzz/obj/shipped_bpf.o $(BUILD)/fuzz/obj/version.o

$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	@clang $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<
$(BUILD)/fuzz/obj/shipped_text.o: $(SHIPPED_TEXT)
	@clang $(FUZZ_CFLAGS) -c -o $@ $<
$(BUILD)/fuzz/obj/shipped_bpf.o: $(SHIPPED_BPF)
	@clang $(FUZZ_CFLAGS) -c -o $@ $<
$(BUILD)/fuzz/obj/version.o: $(VERSION_C)
	@clang $(FUZZ_CFLAGS) -c -o $@ $<
$(BUILD)/fuzz/libiso.a: $(FUZZ_OBJ)
	@rm -f $@
	@ar rcs $@ $^
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/fuzz/libiso.a
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/fuzz/libiso.a $(PKG_LIBS)

fuzz: $(FUZZ_BIN)
	@for t in $(FUZZ_TARGETS); do \
		n=$${t#fuzz_}; mkdir -p $(BUILD)/fuzz/corpus/$$n; \
		seeds=$$(ls -d tests/fuzz/seeds/$$n $$([ $$n = policy ] && echo tests/policy) \
			2>/dev/null); \
		$(BUILD)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
			-artifact_prefix=$(BUILD)/fuzz/$$n- \
			$(BUILD)/fuzz/corpus/$$n $$seeds >$(BUILD)/fuzz/$$n.log 2>&1; rc=$$?; \
		echo "fuzz $$n: $$(grep -o 'Done [0-9]* runs in [0-9]* second(s)' \
			$(BUILD)/fuzz/$$n.log || echo "exit $$rc")"; \
		[ $$rc -eq 0 ] || { tail -30 $(BUILD)/fuzz/$$n.log; exit $$rc; }; \
	done

# Line coverage per folder (gcov and lcov from Debian): everything built again
# with --coverage under $(BUILD)/cov, the tests of COVERAGE_TIER run on it (all,
# unit or integration; all by default, as `make check`), then lines hit per
# folder.  The lcov data is $(BUILD)/cov/coverage.info (genhtml makes pages of it).
COVERAGE_TIER ?= all
COV_DIRS := common ns policy tree cgroup launcher selftest cli
test-bins: $(BUILD)/isorun $(UNIT_BIN) $(HELPER_BIN)
coverage:
	@find $(BUILD)/cov -name '*.gcda' -delete 2>/dev/null || true
	$(MAKE) BUILD=$(BUILD)/cov CFLAGS="-Og -g --coverage" LDFLAGS=--coverage test-bins
	@# gcov's complaints (a process that may not write its counts) kept off the tests' stderr
	@GCOV_ERROR_FILE=$(abspath $(BUILD))/cov/gcov-errors.log \
		tests/run-all.sh $(BUILD)/cov $(COVERAGE_TIER) | tail -1
	@# the --initial pass counts the files no test reached, at zero
	@lcov -q --capture --initial --directory $(BUILD)/cov --base-directory . \
		--output-file $(BUILD)/cov/base.info 2>$(BUILD)/cov/lcov.log
	@lcov -q --capture --directory $(BUILD)/cov --base-directory . \
		--output-file $(BUILD)/cov/run.info 2>>$(BUILD)/cov/lcov.log
	@lcov -q -a $(BUILD)/cov/base.info -a $(BUILD)/cov/run.info \
		--output-file $(BUILD)/cov/all.info 2>>$(BUILD)/cov/lcov.log
	@lcov -q --extract $(BUILD)/cov/all.info $(COV_DIRS:%='$(CURDIR)/%/*') \
		--output-file $(BUILD)/cov/coverage.info 2>>$(BUILD)/cov/lcov.log
	@echo "line coverage per folder ($(COVERAGE_TIER) tests):"
	@awk -F: -v top='$(CURDIR)/' -v dirs='$(COV_DIRS)' \
		'/^SF:/ { d = substr($$2, length(top) + 1); sub("/.*", "", d) } \
		/^LF:/ { lf[d] += $$2; LF += $$2 } /^LH:/ { lh[d] += $$2; LH += $$2 } \
		END { n = split(dirs, ds, " "); for (i = 1; i <= n; i++) { d = ds[i]; \
			printf "  %-9s %6d/%-6d %5.1f%%\n", d, lh[d], lf[d], lf[d] ? 100 * lh[d] / lf[d] : 0 } \
		printf "  %-9s %6d/%-6d %5.1f%%\n", "all", LH, LF, LF ? 100 * LH / LF : 0 }' \
		$(BUILD)/cov/coverage.info

example: $(BUILD)/isorun
	@examples/run-leaky-suite.sh $(BUILD)/isorun

bench: $(BUILD)/isorun
	bench/launch.sh $(BUILD)/isorun

install: $(BUILD)/isorun
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(PKGDATADIR) \
		$(DESTDIR)$(DOCDIR) $(DESTDIR)$(DOCDIR)/use $(DESTDIR)$(DOCDIR)/decisions \
		$(DESTDIR)$(PKGDATADIR)/apparmor
	install -m 0755 $(BUILD)/isorun $(DESTDIR)$(BINDIR)/isorun
	install -m 0644 docs/man/isorun.1 $(DESTDIR)$(MANDIR)/man1/isorun.1
	install -m 0644 docs/man/isorun-policy.5 $(DESTDIR)$(MANDIR)/man5/isorun-policy.5
	install -m 0644 packaging/completions/isorun.bash $(DESTDIR)$(BASHCOMPDIR)/isorun
	install -m 0644 packaging/completions/_isorun $(DESTDIR)$(ZSHCOMPDIR)/_isorun
	install -m 0644 policy/default.policy policy/strict.policy docs/report.schema.json \
		$(DESTDIR)$(PKGDATADIR)/
	install -m 0644 README.md docs/contract.md docs/architecture.md policy/GRAMMAR.txt \
		$(DESTDIR)$(DOCDIR)/
	install -m 0644 $(wildcard docs/use/*.md) $(DESTDIR)$(DOCDIR)/use/
	install -m 0644 $(wildcard docs/decisions/*.md) $(DESTDIR)$(DOCDIR)/decisions/
	packaging/doclinks.sh $(DESTDIR)$(DOCDIR) $(PKGDATADIR)
	@# the profile names the binary it covers: this install's
	sed 's,/usr/bin/isorun,$(BINDIR)/isorun,' packaging/apparmor/isorun \
		>$(DESTDIR)$(PKGDATADIR)/apparmor/isorun
	chmod 0644 $(DESTDIR)$(PKGDATADIR)/apparmor/isorun

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/isorun $(DESTDIR)$(MANDIR)/man1/isorun.1 \
		$(DESTDIR)$(MANDIR)/man5/isorun-policy.5 $(DESTDIR)$(BASHCOMPDIR)/isorun \
		$(DESTDIR)$(ZSHCOMPDIR)/_isorun $(DESTDIR)$(PKGDATADIR)/default.policy \
		$(DESTDIR)$(PKGDATADIR)/strict.policy $(DESTDIR)$(PKGDATADIR)/report.schema.json \
		$(DESTDIR)$(DOCDIR)/README.md \
		$(DESTDIR)$(DOCDIR)/contract.md $(DESTDIR)$(DOCDIR)/architecture.md \
		$(DESTDIR)$(DOCDIR)/GRAMMAR.txt \
		$(addprefix $(DESTDIR)$(DOCDIR)/use/,$(notdir $(wildcard docs/use/*.md))) \
		$(addprefix $(DESTDIR)$(DOCDIR)/decisions/,$(notdir $(wildcard docs/decisions/*.md))) \
		$(DESTDIR)$(PKGDATADIR)/apparmor/isorun
	rmdir $(DESTDIR)$(PKGDATADIR)/apparmor $(DESTDIR)$(PKGDATADIR) $(DESTDIR)$(DOCDIR)/use \
		$(DESTDIR)$(DOCDIR)/decisions $(DESTDIR)$(DOCDIR) 2>/dev/null || true

# The release tarball holds the tracked files as they are in the working tree
# (`git stash create` snapshots uncommitted edits without touching the index or
# the stash; the identity it needs is a dummy, since the commit is never kept).
# Outside a git checkout of this very directory (an unpacked tarball, a copy of
# `git ls-files`), it holds every file but build/ and $(BUILD).
DIST	:= isorun-$(VERSION)
dist:
	@mkdir -p $(BUILD)
	@rm -f $(BUILD)/$(DIST).tar.gz
	@set -e; \
	if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$$(pwd -P)" ]; then \
		snap=$$(git -c user.name=isorun -c user.email=dist@isorun.invalid stash create); \
		git archive --format=tar.gz --prefix=$(DIST)/ -o $(BUILD)/$(DIST).tar.gz \
			$${snap:-HEAD}; \
	else \
		find . \( -path ./.git -o -path ./build -o -path './$(patsubst ./%,%,$(BUILD))' \) \
			-prune -o \( -type f -o -type l \) -print | LC_ALL=C sort | \
		tar --no-recursion --owner=0 --group=0 --numeric-owner \
			--transform 's,^\.,$(DIST),S' -czf $(BUILD)/$(DIST).tar.gz -T -; \
	fi
	@echo "$(BUILD)/$(DIST).tar.gz"

# The package is built from the tarball alone, with its packaging/debian as
# debian/.  `lintian` fails the target on any error; warnings are shown.
DEB_VERSION = $(shell dpkg-parsechangelog -l packaging/debian/changelog -S Version)
# make exports command-line variables: the package build must not see ours
# (BUILD=... would send its `make clean` to our build directory)
DEB_UNSET := MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES BUILD PREFIX DESTDIR BINDIR DATADIR \
	     MANDIR DOCDIR PKGDATADIR BASHCOMPDIR ZSHCOMPDIR VERSION SANITIZE WERROR CC CFLAGS \
	     LDFLAGS FUZZ_SECONDS STATIC_LIBS
deb: dist
	@case "$(DEB_VERSION)" in "$(VERSION)"-*) ;; \
	*) echo "packaging/debian/changelog is at $(DEB_VERSION), VERSION is $(VERSION)" >&2; \
	   exit 1 ;; esac
	rm -rf $(BUILD)/deb
	mkdir -p $(BUILD)/deb
	tar -xzf $(BUILD)/$(DIST).tar.gz -C $(BUILD)/deb
	cp $(BUILD)/$(DIST).tar.gz $(BUILD)/deb/isorun_$(VERSION).orig.tar.gz
	cp -R $(BUILD)/deb/$(DIST)/packaging/debian $(BUILD)/deb/$(DIST)/debian
	cd $(BUILD)/deb/$(DIST) && env $(addprefix -u ,$(DEB_UNSET)) \
		dpkg-buildpackage -us -uc -b -Jauto
	lintian --fail-on error $(BUILD)/deb/isorun_$(DEB_VERSION)_*.changes

C_DIRS	:= common ns policy tree cgroup launcher selftest cli bench tests/unit tests/helpers tests/fuzz
lint:
	clang-format --dry-run --Werror $(foreach d,$(C_DIRS),$(wildcard $(d)/*.[ch]))
	shellcheck -x tests/*.sh .ci/run .ci/subjects bench/*.sh examples/*.sh examples/leaky-suite/*.sh
	shellcheck -s bash packaging/completions/isorun.bash

clean:
	rm -rf $(BUILD)

-include $(LIB_OBJ:.o=.d) $(BUILD)/cli/main.d $(wildcard $(BUILD)/fuzz/obj/*/*.d)
