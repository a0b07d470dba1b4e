# SPDX-License-Identifier: GPL-2.0-or-later
# ura: build, test and install. Plain make: `make`, `make check`, `make check-root`,
# `make install PREFIX=/usr DESTDIR=...`. Switches: WERROR=1, SANITIZE=address,undefined, V=1.

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
CHECK_CFLAGS = $(shell $(PKG_CONFIG) --cflags check)
CHECK_LIBS = $(shell $(PKG_CONFIG) --libs check)

ALL_CFLAGS = -std=gnu11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Iinclude -Isrc \
	-DURA_VERSION='"$(VERSION)"' -DURA_LOCALSTATEDIR='"$(LOCALSTATEDIR)"' \
	-fvisibility=hidden -MMD -MP $(WARN) $(SAN) $(CFLAGS)
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

# libura: the pack format only; needs no tracing library.
LIB_OBJS := src/pack.o src/pack-build.o src/pack-index.o src/pack-access.o src/crc32c.o
LIB_PIC_OBJS := $(LIB_OBJS:.o=.pic.o)
LIB_A := libura.a
LIB_SO := libura.so.$(LIB_SOVERSION)

# Modules shared by the tools.
COMMON_OBJS := src/log.o src/util.o

# Per tool: main() (option parsing) plus the modules it wires together.
DUMP_OBJS := src/ura-dump.o src/dump.o src/dump-ra.o src/pack-errors.o src/ra-emulate.o \
	src/ra-advise.o src/devmodel.o src/devcache.o src/devprobe.o src/blockdev.o src/cgroup.o \
	src/dump-picture.o src/dump-svg.o src/dump-html.o src/dump-compare.o src/pack-merge.o \
	src/markup.o
TRACE_OBJS := src/ura-trace.o src/trace-run.o src/trace-session.o src/trace-tracer.o \
	src/trace-events.o src/trace-demand.o src/trace-access.o src/trace-dat.o src/trace-assemble.o \
	src/trace-btrfs.o src/trace-root.o src/rakb.o src/residency.o src/safeopen.o src/mountinfo.o src/resolve.o \
	src/pageset.o src/fileid.o src/blockdev.o src/trace-measure.o src/devcache.o \
	src/devprobe.o src/devmodel.o src/cgroup.o src/pack-merge.o src/trace-merge.o src/pack-errors.o \
	src/learn-run.o src/learn-window.o src/learn-events.o src/learn-merge.o src/pack-name.o \
	src/pathescape.o
REPLAY_OBJS := src/ura-replay.o src/replay.o src/replay-plan.o src/replay-devices.o \
	src/replay-mounts.o src/replay-files.o src/replay-budget.o src/replay-inflight.o \
	src/replay-report.o src/safeopen.o src/fileid.o src/residency.o src/schedule.o \
	src/devmodel.o src/devprobe.o src/devcache.o src/cgroup.o src/mountinfo.o src/blockdev.o \
	src/pack-errors.o src/replay-watch.o src/replay-exec.o src/replay-packs.o src/pack-name.o src/pathescape.o

# Objects that need the tracing libraries' headers.
TRACING_OBJS := src/ura-trace.o src/trace-run.o src/trace-session.o src/trace-tracer.o \
	src/trace-events.o src/trace-dat.o src/learn-events.o src/learn-run.o

PROGS := ura-trace ura-replay ura-dump
MAN8 := man/ura-trace.8 man/ura-replay.8 man/ura-dump.8
MAN5 := man/ura-pack.5
UNITS := $(wildcard systemd/*.service systemd/*.timer)

# Unit tests: one Check runner; each test-<module>.c adds a suite.
UNIT_SRCS := $(wildcard tests/unit/test-*.c)
UNIT_OBJS := $(UNIT_SRCS:.c=.o) tests/unit/runner.o
UNIT_DEPS := src/log.o src/util.o src/dump.o src/mountinfo.o src/resolve.o src/pageset.o \
	src/trace-demand.o src/trace-access.o src/trace-root.o src/rakb.o src/trace-assemble.o \
	src/trace-btrfs.o src/replay.o src/replay-plan.o src/replay-devices.o src/replay-mounts.o src/replay-files.o \
	src/replay-budget.o src/replay-inflight.o src/replay-report.o src/safeopen.o src/fileid.o \
	src/residency.o src/schedule.o src/devmodel.o src/devprobe.o src/devcache.o src/cgroup.o \
	src/blockdev.o src/cli-trace.o src/cli-replay.o src/cli-dump.o src/pack-merge.o \
	src/pack-name.o src/learn-window.o src/pathescape.o src/replay-packs.o src/pack-errors.o \
	src/ra-emulate.o src/ra-advise.o src/dump-ra.o \
	src/markup.o src/dump-picture.o src/dump-svg.o src/dump-html.o src/dump-compare.o
FUZZ_TARGETS := tests/fuzz/fuzz-pack tests/fuzz/fuzz-mountinfo

all: $(LIB_A) $(LIB_SO) $(PROGS) pkgconfig/libura.pc

# Objects are rebuilt when the compiler or the flags change (a SANITIZE build, CC=clang, ...),
# so objects of different builds are never linked together.
BUILD_FLAGS = $(CC) $(ALL_CFLAGS) $(TRACE_CFLAGS) $(ALL_LDFLAGS)
.build-flags: FORCE
	@echo '$(BUILD_FLAGS)' | cmp -s - $@ || echo '$(BUILD_FLAGS)' > $@

%.o: %.c .build-flags
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(if $(filter $@,$(TRACING_OBJS)),$(TRACE_CFLAGS)) -c -o $@ $<

%.pic.o: %.c .build-flags
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -c -o $@ $<

$(LIB_A): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIB_SO): $(LIB_PIC_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,$(LIB_SO) -o $@ $^
	$(Q)ln -sf $(LIB_SO) libura.so

ura-dump: src/cli-dump.o $(DUMP_OBJS) $(COMMON_OBJS) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

ura-trace: src/cli-trace.o $(TRACE_OBJS) $(COMMON_OBJS) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(TRACE_LIBS) -lpthread

ura-replay: src/cli-replay.o $(REPLAY_OBJS) $(COMMON_OBJS) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread

# Test helper for tests/integration/replay.t: builds packs of whole files without tracing.
tests/integration/helpers/mkpack: tests/integration/helpers/mkpack.o src/residency.o $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

GEN_PC = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' pkgconfig/libura.pc.in

pkgconfig/libura.pc: pkgconfig/libura.pc.in Makefile
	$(call msg,GEN,$@)
	$(Q)$(GEN_PC) > $@

# ---- tests ----

tests/unit/runner: $(UNIT_OBJS) $(UNIT_DEPS) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CHECK_LIBS) -lpthread

tests/unit/%.o: tests/unit/%.c .build-flags
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -DTEST_DATA_DIR='"$(CURDIR)/tests/data"' -c -o $@ $<

# Without libFuzzer each fuzz target gets a main() that replays its corpus.
tests/fuzz/fuzz-pack: tests/fuzz/fuzz-pack.o tests/fuzz/fuzz-main.o src/dump.o src/util.o \
		src/ra-emulate.o src/ra-advise.o src/devmodel.o src/devcache.o src/devprobe.o src/blockdev.o \
		src/cgroup.o src/log.o src/dump-picture.o src/dump-svg.o src/dump-html.o src/dump-compare.o \
		src/pack-merge.o src/markup.o $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

tests/fuzz/fuzz-mountinfo: tests/fuzz/fuzz-mountinfo.o tests/fuzz/fuzz-main.o \
		src/mountinfo.o src/util.o src/log.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

# Known leaks of the libraries we link, for the SANITIZE build.
export LSAN_OPTIONS = suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0

check: all tests/unit/runner $(FUZZ_TARGETS) tests/integration/helpers/mkhostile
	$(call msg,TEST,unit)
	$(Q)tests/unit/runner
	$(call msg,TEST,fuzz corpus)
	$(Q)for t in $(FUZZ_TARGETS); do \
		$$t tests/fuzz/corpus/$${t##*/fuzz-}/* || exit 1; done
	$(call msg,TEST,tools)
	$(Q)URA_TEST_SAN='$(SAN)' prove -f tests/tools/*.t

# test helpers: small programs the integration tests run (built by `make test-helpers`)
TEST_HELPERS := tests/integration/helpers/evict tests/integration/helpers/touch-pages \
	tests/integration/helpers/ra-workload

$(TEST_HELPERS): tests/integration/helpers/%: tests/integration/helpers/%.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<

test-helpers: $(TEST_HELPERS)

# The hostile-pack builder of tests/integration/hostile.t links libura (and patches raw bytes).
tests/integration/helpers/mkhostile: tests/integration/helpers/mkhostile.o $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

test-helpers: tests/integration/helpers/mkhostile tests/integration/helpers/mkpack
.PHONY: test-helpers

# Integration tests against the real kernel: need root and tracefs, skip otherwise.
# Device models measured by the tests go to a scratch directory, not /var/lib/ura.
check-root: all
	$(call msg,TEST,root)
	$(Q)d=$$(mktemp -d /tmp/ura-devices.XXXXXX) && \
	URA_DEVICE_CACHE=$$d prove -f tests/integration/*.t; rc=$$?; rm -rf "$$d"; exit $$rc

# The unit tests under valgrind (no fork, so every test runs inside valgrind; children forked by
# tests are silent).
VALGRIND = valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
	--error-exitcode=99 --child-silent-after-fork=yes
check-valgrind: tests/unit/runner $(FUZZ_TARGETS)
	$(call msg,VALGRIND,unit)
	$(Q)CK_FORK=no $(VALGRIND) tests/unit/runner
	$(Q)for t in $(FUZZ_TARGETS); do \
		$(VALGRIND) $$t tests/fuzz/corpus/$${t##*/fuzz-}/* || exit 1; done

# libFuzzer builds (clang): `make fuzz`, then run e.g. tests/fuzz/fuzz-pack-libfuzzer CORPUS
FUZZ_CC ?= clang
fuzz:
	$(Q)for t in pack mountinfo; do \
		$(FUZZ_CC) $(filter-out -MMD -MP -fvisibility=hidden,$(ALL_CFLAGS)) -fsanitize=fuzzer,address,undefined \
			-o tests/fuzz/fuzz-$$t-libfuzzer tests/fuzz/fuzz-$$t.c \
			$$(case $$t in pack) echo src/pack.c src/pack-build.c src/pack-index.c src/pack-access.c src/crc32c.c src/dump.c src/util.c src/log.c \
				src/dump-picture.c src/dump-svg.c src/dump-html.c src/dump-compare.c \
				src/pack-merge.c src/markup.c src/ra-emulate.c src/ra-advise.c src/devmodel.c \
				src/devcache.c src/devprobe.c src/blockdev.c src/cgroup.c;; \
			mountinfo) echo src/mountinfo.c src/util.c src/log.c;; esac) || exit 1; \
	done

# Benchmarks, run by hand as root (bench/*.sh build what they need with `make bench`).
BENCH_PROGS := bench/resolve-bench bench/naive-replay bench/pack-bench bench/demand-models \
	bench/exec-sources
.PHONY: bench
bench: $(BENCH_PROGS)

bench/resolve-bench: bench/resolve-bench.o src/resolve.o src/safeopen.o src/mountinfo.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

bench/demand-models: bench/demand-models.o src/trace-demand.o src/pageset.o $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

bench/exec-sources: bench/exec-sources.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

bench/naive-replay bench/pack-bench: %: %.o $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread

# Static analysis, run by CI: cppcheck and clang-tidy (checks in .clang-tidy).
LINT_SRCS = $(wildcard src/*.c)
lint:
	$(call msg,LINT,cppcheck)
	$(Q)cppcheck -q --enable=warning,performance,portability --std=c11 --inline-suppr \
		--error-exitcode=1 -D_GNU_SOURCE -DURA_VERSION='"lint"' -Iinclude -Isrc $(LINT_SRCS)
	$(call msg,LINT,clang-tidy)
	$(Q)clang-tidy --quiet $(LINT_SRCS) -- -std=gnu11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
		-DURA_VERSION='"lint"' -DURA_LOCALSTATEDIR='"/var/lib"' -Iinclude -Isrc $(TRACE_CFLAGS)

# ---- install ----

install: all
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/ura \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5
	$(INSTALL) -m 0755 $(PROGS) $(DESTDIR)$(SBINDIR)/
	$(INSTALL) -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(LIB_SO) $(DESTDIR)$(LIBDIR)/libura.so
	$(INSTALL) -m 0644 include/ura/pack.h $(DESTDIR)$(INCLUDEDIR)/ura/
	$(GEN_PC) > $(DESTDIR)$(PKGCONFIGDIR)/libura.pc	# for this PREFIX, not the build's
	$(INSTALL) -m 0644 $(MAN8) $(DESTDIR)$(MANDIR)/man8/
	$(INSTALL) -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/
	$(if $(UNITS),$(INSTALL) -d $(DESTDIR)$(SYSTEMDUNITDIR) && \
		$(INSTALL) -m 0644 $(UNITS) $(DESTDIR)$(SYSTEMDUNITDIR)/)
	$(INSTALL) -d -m 0755 $(DESTDIR)$(LOCALSTATEDIR)/ura

uninstall:
	rm -f $(addprefix $(DESTDIR)$(SBINDIR)/,$(PROGS))
	rm -f $(DESTDIR)$(LIBDIR)/$(LIB_A) $(DESTDIR)$(LIBDIR)/$(LIB_SO) $(DESTDIR)$(LIBDIR)/libura.so
	rm -f $(DESTDIR)$(INCLUDEDIR)/ura/pack.h $(DESTDIR)$(PKGCONFIGDIR)/libura.pc
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MAN8)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5)))
	rm -f $(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(notdir $(UNITS)))

clean:
	rm -f src/*.o src/*.d tests/unit/*.o tests/unit/*.d tests/fuzz/*.o tests/fuzz/*.d \
		$(PROGS) $(LIB_A) $(LIB_SO) libura.so pkgconfig/libura.pc tests/unit/runner \
		$(FUZZ_TARGETS) tests/fuzz/*-libfuzzer bench/*.o $(BENCH_PROGS) .build-flags \
		$(TEST_HELPERS) tests/integration/helpers/mkhostile tests/integration/helpers/mkpack \
		tests/integration/helpers/*.o tests/integration/helpers/*.d

.PHONY: all check check-root check-valgrind fuzz lint install uninstall clean FORCE

-include $(wildcard src/*.d tests/unit/*.d tests/fuzz/*.d)
