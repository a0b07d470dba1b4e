# SPDX-License-Identifier: GPL-2.0-or-later
# ura: build, test and install. Plain make: `make`, `make check`, `make check-root`,
# `make install PREFIX=/usr DESTDIR=...`. Switches: WERROR=1, SANITIZE=address,undefined, V=1,
# O=DIR (or BUILD=DIR): where every build file goes (default build/; sources stay clean).

VERSION := 0.1.0
LIB_SOVERSION := 0

PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
LOCALSTATEDIR ?= /var/lib

CC ?= cc
AR ?= ar
PKG_CONFIG ?= pkg-config
CFLAGS ?= -O2 -g
INSTALL ?= install

WARN := -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes \
	-Wno-unused-parameter
WARN += $(if $(filter 1,$(WERROR)),-Werror)
SAN := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer)

TRACE_PKGS := libtracefs libtraceevent libtracecmd
TRACE_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(TRACE_PKGS))
TRACE_LIBS = $(shell $(PKG_CONFIG) --libs $(TRACE_PKGS))
# The unit tests need Check; without it `make check` says so and runs the rest.
HAVE_CHECK := $(shell $(PKG_CONFIG) --exists check 2>/dev/null && echo 1)
UNIT_RUNNER = $(if $(HAVE_CHECK),$(B)/tests/unit/runner)
CHECK_CFLAGS = $(shell $(PKG_CONFIG) --cflags check)
CHECK_LIBS = $(shell $(PKG_CONFIG) --libs check)

BASE_CFLAGS = -std=gnu11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Iinclude \
	-DURA_VERSION='"$(VERSION)"' -DURA_LOCALSTATEDIR='"$(LOCALSTATEDIR)"' \
	-fvisibility=hidden -MMD -MP $(WARN) $(SAN) $(CPPFLAGS) $(CFLAGS)
# Who may include what (docs/ARCHITECTURE.md), enforced by the include path: the library sees
# only its own folder and include/; src/shared/ sees itself; a tool's folder sees itself and
# src/shared/, never another tool's folder nor the library's internals. Tests and benchmarks see
# every folder.
LIB_CFLAGS = $(BASE_CFLAGS) -Isrc/lib
SHARED_CFLAGS = $(BASE_CFLAGS) -Isrc/shared
tool_cflags = $(BASE_CFLAGS) -Isrc/$(1) -Isrc/shared
ALL_CFLAGS = $(BASE_CFLAGS) -Isrc/shared -Isrc/trace -Isrc/replay -Isrc/dump
# Symbols bound at start-up: ura-trace's forked child then resolves none before
# exec (a lazy lookup reads the symbol tables of all our libraries, and those
# faults would be the traced command's); also read-only relocations.
ALL_LDFLAGS = -Wl,-z,relro,-z,now $(SAN) $(LDFLAGS)

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-8s %s\n' '$(1)' '$(2)';
endif

# Every build file goes below $(B), mirroring the source tree (build/src/dump-text.o, ...).
BUILD ?= build
ifdef O
BUILD := $(O)
endif
B := $(BUILD)
obj = $(patsubst %.c,$(B)/%.o,$(1))

# libura (LGPL, src/lib/): the pack format only; needs no tracing library and no tool code.
LIB_SRCS := $(wildcard src/lib/*.c)
LIB_OBJS := $(call obj,$(LIB_SRCS))
LIB_PIC_OBJS := $(LIB_OBJS:.o=.pic.o)
LIB_A := $(B)/libura.a
LIB_SO := $(B)/libura.so.$(LIB_SOVERSION)

# The tools (GPL): a folder each, src/trace/, src/replay/, src/dump/, with its main() in ura-*.c;
# src/shared/ is what two or more tools use, one internal archive (util-linux's libcommon).
COMMON_SRCS := $(wildcard src/shared/*.c)
COMMON_A := $(B)/libcommon.a
DUMP_SRCS := $(filter-out src/dump/ura-dump.c,$(wildcard src/dump/*.c))
TRACE_SRCS := $(filter-out src/trace/ura-trace.c,$(wildcard src/trace/*.c))
REPLAY_SRCS := $(filter-out src/replay/ura-replay.c,$(wildcard src/replay/*.c))
# Sources that need the tracing libraries' headers (and their libraries to link).
TRACING_SRCS := $(addprefix src/trace/,trace-run.c trace-session.c trace-tracer.c \
	trace-events.c trace-dat.c learn-events.c learn-run.c)

DUMP_OBJS := $(call obj,src/dump/ura-dump.c $(DUMP_SRCS))
TRACE_OBJS := $(call obj,src/trace/ura-trace.c $(TRACE_SRCS))
REPLAY_OBJS := $(call obj,src/replay/ura-replay.c $(REPLAY_SRCS))
TRACING_OBJS := $(call obj,src/trace/ura-trace.c $(TRACING_SRCS))
# What the tests, fuzzers and benchmarks link: every tool module that needs no tracefs.
TOOL_OBJS := $(filter-out $(TRACING_OBJS),$(call obj,$(DUMP_SRCS) $(TRACE_SRCS) $(REPLAY_SRCS)))

PROGS := $(B)/ura-trace $(B)/ura-replay $(B)/ura-dump
MAN8 := man/ura-trace.8 man/ura-replay.8 man/ura-dump.8
MAN5 := man/ura-pack.5
UNITS := $(wildcard systemd/*.service systemd/*.timer)
PC := $(B)/libura.pc

# Unit tests: one Check runner; each test-<module>.c adds a suite.
UNIT_OBJS := $(call obj,$(wildcard tests/unit/test-*.c) tests/unit/runner.c)
FUZZ_TARGETS := $(B)/tests/fuzz/fuzz-pack $(B)/tests/fuzz/fuzz-mountinfo
HELPERS := $(B)/tests/integration/helpers
TEST_HELPERS := $(HELPERS)/evict $(HELPERS)/touch-pages $(HELPERS)/ra-workload \
	$(HELPERS)/mkhostile $(HELPERS)/mkpack $(HELPERS)/packname $(HELPERS)/fuse-hang

all: $(LIB_A) $(LIB_SO) $(PROGS) $(PC)

# Objects are rebuilt when the compiler or the flags change (a SANITIZE build, CC=clang, ...),
# so objects of different builds are never linked together.
BUILD_FLAGS = $(CC) $(ALL_CFLAGS) $(TRACE_CFLAGS) $(ALL_LDFLAGS)
$(B)/.build-flags: FORCE
	@mkdir -p $(B)
	@echo '$(BUILD_FLAGS)' | cmp -s - $@ || echo '$(BUILD_FLAGS)' > $@

$(B)/src/lib/%.o: src/lib/%.c $(B)/.build-flags
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(LIB_CFLAGS) -c -o $@ $<

$(B)/src/lib/%.pic.o: src/lib/%.c $(B)/.build-flags
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(LIB_CFLAGS) -fPIC -c -o $@ $<

$(B)/src/shared/%.o: src/shared/%.c $(B)/.build-flags
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(SHARED_CFLAGS) -c -o $@ $<

$(B)/src/%.o: src/%.c $(B)/.build-flags
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(call tool_cflags,$(word 2,$(subst /, ,$<))) \
		$(if $(filter $@,$(TRACING_OBJS)),$(TRACE_CFLAGS)) -c -o $@ $<

# Tests and helpers may look inside the library (its on-disk layout) as well as the tools.
$(B)/tests/unit/%.o: tests/unit/%.c $(B)/.build-flags
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) -Isrc/lib $(CHECK_CFLAGS) \
		-DTEST_DATA_DIR='"$(CURDIR)/tests/data"' -c -o $@ $<

$(B)/tests/%.o: tests/%.c $(B)/.build-flags
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) -Isrc/lib -c -o $@ $<

$(B)/bench/%.o: bench/%.c $(B)/.build-flags
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) -Isrc/lib -c -o $@ $<

$(LIB_A): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(COMMON_A): $(call obj,$(COMMON_SRCS))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIB_SO): $(LIB_PIC_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,$(notdir $(LIB_SO)) -o $@ $^
	$(Q)ln -sf $(notdir $(LIB_SO)) $(B)/libura.so

$(B)/ura-dump: $(DUMP_OBJS) $(COMMON_A) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

$(B)/ura-trace: $(TRACE_OBJS) $(COMMON_A) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(TRACE_LIBS) -lpthread

$(B)/ura-replay: $(REPLAY_OBJS) $(COMMON_A) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread

# `make ura-dump` and friends still work.
$(notdir $(PROGS)): %: $(B)/%
.PHONY: $(notdir $(PROGS))

GEN_PC = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' pkgconfig/libura.pc.in

$(PC): pkgconfig/libura.pc.in Makefile
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D) && $(GEN_PC) > $@

# ---- tests ----

$(B)/tests/unit/runner: $(UNIT_OBJS) $(TOOL_OBJS) $(COMMON_A) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CHECK_LIBS) -lpthread

# Without libFuzzer each fuzz target gets a main() that replays its corpus.
$(FUZZ_TARGETS): $(B)/tests/fuzz/%: $(B)/tests/fuzz/%.o $(B)/tests/fuzz/fuzz-main.o \
		$(TOOL_OBJS) $(COMMON_A) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread

# Small programs the integration tests run (tests/integration/helpers/*.c), and the builders of
# packs without tracing (mkpack) and of hostile packs (mkhostile, which patches raw bytes).
$(TEST_HELPERS): $(HELPERS)/%: $(HELPERS)/%.o $(COMMON_A) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

test-helpers: $(TEST_HELPERS)
.PHONY: test-helpers

# Known leaks of the libraries we link, for the SANITIZE build.
export LSAN_OPTIONS = suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
# Where the shell tests find what was built.
export URA_BUILD = $(abspath $(B))

check: all $(UNIT_RUNNER) $(FUZZ_TARGETS) $(HELPERS)/mkhostile $(HELPERS)/mkpack \
		$(HELPERS)/evict
	$(call msg,TEST,unit)
	$(Q)$(if $(HAVE_CHECK),$(B)/tests/unit/runner,echo "SKIP unit tests: Check is not installed (apt-get install check)")
	$(call msg,TEST,fuzz corpus)
	$(Q)for t in $(FUZZ_TARGETS); do \
		$$t tests/fuzz/corpus/$${t##*/fuzz-}/* || exit 1; done
	$(call msg,TEST,tools)
	$(Q)URA_TEST_SAN='$(SAN)' prove -f tests/tools/*.t

# Integration tests against the real kernel: need root and tracefs, skip otherwise.
# Device models measured by the tests go to a scratch directory, not /var/lib/ura.
check-root: all test-helpers
	$(call msg,TEST,root)
	$(Q)d=$$(mktemp -d /tmp/ura-devices.XXXXXX) && \
	URA_DEVICE_CACHE=$$d prove -f tests/integration/*.t; rc=$$?; rm -rf "$$d"; exit $$rc

# The unit tests under valgrind (no fork, so every test runs inside valgrind; children forked by
# tests are silent).
VALGRIND = valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
	--error-exitcode=99 --child-silent-after-fork=yes
check-valgrind: $(B)/tests/unit/runner $(FUZZ_TARGETS)
	$(call msg,VALGRIND,unit)
	$(Q)CK_FORK=no $(VALGRIND) $(B)/tests/unit/runner
	$(Q)for t in $(FUZZ_TARGETS); do \
		$(VALGRIND) $$t tests/fuzz/corpus/$${t##*/fuzz-}/* || exit 1; done

# libFuzzer builds (clang): `make fuzz`, then run e.g. build/tests/fuzz/fuzz-pack-libfuzzer CORPUS
FUZZ_CC ?= clang
FUZZ_SRCS := $(filter-out $(TRACING_SRCS),$(DUMP_SRCS) $(TRACE_SRCS) $(REPLAY_SRCS)) \
	$(COMMON_SRCS) $(LIB_SRCS)
fuzz:
	$(Q)mkdir -p $(B)/tests/fuzz && for t in pack mountinfo; do \
		$(FUZZ_CC) $(filter-out -MMD -MP -fvisibility=hidden,$(ALL_CFLAGS)) -Isrc/lib \
			-fsanitize=fuzzer,address,undefined -o $(B)/tests/fuzz/fuzz-$$t-libfuzzer \
			tests/fuzz/fuzz-$$t.c $(FUZZ_SRCS) -lpthread || exit 1; \
	done

# Benchmarks, run by hand as root (bench/*.sh build what they need with `make bench`).
BENCH_PROGS := $(addprefix $(B)/bench/,resolve-bench naive-replay aosp-replay pack-bench demand-models \
	exec-sources replay-genpack watch-check merge-bench pack-retime)
.PHONY: bench
bench: $(BENCH_PROGS)

$(BENCH_PROGS): $(B)/bench/%: $(B)/bench/%.o $(TOOL_OBJS) $(COMMON_A) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread

# Static analysis, run by CI: cppcheck and clang-tidy (checks in .clang-tidy).
LINT_SRCS = $(wildcard src/*/*.c)
lint:
	$(call msg,LINT,cppcheck)
	$(Q)cppcheck -q --enable=warning,performance,portability --std=c11 --inline-suppr \
		--error-exitcode=1 -D_GNU_SOURCE -DURA_VERSION='"lint"' -Iinclude -Isrc/shared -Isrc/trace -Isrc/replay -Isrc/dump -Isrc/lib $(LINT_SRCS)
	$(call msg,LINT,clang-tidy)
	$(Q)clang-tidy --quiet $(LINT_SRCS) -- -std=gnu11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
		-DURA_VERSION='"lint"' -DURA_LOCALSTATEDIR='"/var/lib"' -Iinclude -Isrc/shared -Isrc/trace -Isrc/replay -Isrc/dump -Isrc/lib $(TRACE_CFLAGS)

# ---- install ----

install: all
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/ura \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5
	$(INSTALL) -m 0755 $(PROGS) $(DESTDIR)$(SBINDIR)/
	$(INSTALL) -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/libura.so
	$(INSTALL) -m 0644 include/ura/pack.h $(DESTDIR)$(INCLUDEDIR)/ura/
	$(GEN_PC) > $(DESTDIR)$(PKGCONFIGDIR)/libura.pc	# for this PREFIX, not the build's
	$(INSTALL) -m 0644 $(MAN8) $(DESTDIR)$(MANDIR)/man8/
	$(INSTALL) -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/
	$(if $(UNITS),$(INSTALL) -d $(DESTDIR)$(SYSTEMDUNITDIR) && \
		$(INSTALL) -m 0644 $(UNITS) $(DESTDIR)$(SYSTEMDUNITDIR)/)
	$(INSTALL) -d -m 0700 $(DESTDIR)$(LOCALSTATEDIR)/ura

uninstall:
	rm -f $(addprefix $(DESTDIR)$(SBINDIR)/,$(notdir $(PROGS)))
	rm -f $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_A)) $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/libura.so
	rm -f $(DESTDIR)$(INCLUDEDIR)/ura/pack.h $(DESTDIR)$(PKGCONFIGDIR)/libura.pc
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MAN8)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5)))
	rm -f $(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(notdir $(UNITS)))

# ---- Debian packages (debian/) ----

# `make deb`: build the source and binary packages from a copy of the tree in $(B)/deb/src (so
# dpkg-buildpackage's clean, which removes build/, and its output to the parent directory stay
# inside $(B)/deb), move the results to $(B)/deb, then run lintian on them. The copy holds the
# files git knows (tracked, or new and not ignored); outside git, the tree without $(B).
DEB_DIR = $(B)/deb
DEB_SRC = $(DEB_DIR)/src/ura-$(VERSION)
LINTIAN_FLAGS ?= --allow-root --pedantic --display-info --fail-on error,warning,info,pedantic
deb:
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_SRC)
	$(call msg,COPY,$(DEB_SRC))
	$(Q)if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
			xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' - | \
			tar --null -T - -cf - | tar -C $(DEB_SRC) -xf -; \
	else \
		tar --exclude=./$(B) --exclude=./build --exclude-vcs -cf - . | tar -C $(DEB_SRC) -xf -; \
	fi
	$(call msg,DEB,dpkg-buildpackage -us -uc)
	$(Q)cd $(DEB_SRC) && dpkg-buildpackage -us -uc $(DEB_BUILD_FLAGS) >../build.log 2>&1 || \
		{ tail -n 40 ../build.log; echo "make deb: dpkg-buildpackage failed, log in $(DEB_DIR)/src/build.log"; exit 1; }
	$(Q)mv $(DEB_DIR)/src/*.deb $(DEB_DIR)/src/*.changes $(DEB_DIR)/src/*.buildinfo \
		$(DEB_DIR)/src/*.dsc $(DEB_DIR)/src/*.tar.* $(DEB_DIR)/
	$(Q)mv $(DEB_DIR)/src/build.log $(DEB_DIR)/ && rm -rf $(DEB_DIR)/src
	$(Q)$(MAKE) --no-print-directory lintian

lintian:
	$(call msg,LINTIAN,$(DEB_DIR)/*.changes)
	$(Q)lintian $(LINTIAN_FLAGS) $(DEB_DIR)/*.changes

# The packages installed into a debootstrapped root (tests/package/*.t; root, network or a
# cached root): `make deb check-deb`.
check-deb:
	$(call msg,TEST,package)
	$(Q)URA_DEBS=$(abspath $(DEB_DIR)) prove -f tests/package/*.t

clean:
	rm -rf $(B)

.PHONY: all check check-root check-valgrind fuzz lint install uninstall clean deb lintian check-deb FORCE

-include $(shell find $(B) -name '*.d' 2>/dev/null)
