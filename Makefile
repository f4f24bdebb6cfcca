# memprobe — PGXS build.
#
#   make && make install            build and install against the first pg_config on PATH
#   make PG_CONFIG=/path/pg_config  build against another server
#   make installcheck               run the regression suites on a temporary, memprobe-preloaded
#                                   server that pg_regress starts itself (run as a non-root user)
#   make prove_installcheck         run the TAP suites (t/*.pl) on temporary clusters of their own

EXTENSION  = memprobe
EXTVERSION = $(shell sed -n "s/^default_version[[:space:]]*=[[:space:]]*'\([^']*\)'.*/\1/p" $(EXTENSION).control)

MODULE_big = memprobe
# One folder per capability (HACKING.md, "Layout"): scan/ (StreamScan), store/ (tuple stores in
# Generation contexts, the Storage line), report/ (memory reporting), guard/ (the sampler, the
# memory guard, the crash file); shared/ is what several use.
# Test-only C (testing/) is added below for test builds alone.
OBJS = \
	src/memprobe.o \
	src/hooks.o \
	src/shared/context_types.o \
	src/shared/observe_only.o \
	src/scan/streamscan.o \
	src/scan/streamscan_exec.o \
	src/scan/streamscan_prepare.o \
	src/scan/streamscan_project.o \
	src/scan/streamscan_explain.o \
	src/scan/streamscan_parallel.o \
	src/scan/block_stream.o \
	src/scan/segment_map.o \
	src/scan/page_quals.o \
	src/scan/tuple_deform.o \
	src/store/material.o \
	src/store/material_exec.o \
	src/store/material_mergejoin.o \
	src/store/stores.o \
	src/store/explain_storage.o \
	src/store/explain_storage_walk.o \
	src/report/contexts.o \
	src/report/statements.o \
	src/report/statements_table.o \
	src/report/node_peaks.o \
	src/report/query_texts.o \
	src/report/statement_log.o \
	src/report/backends.o \
	src/guard/sampler.o \
	src/guard/sampler_readers.o \
	src/guard/guard.o \
	src/guard/available_memory.o \
	src/guard/cancel.o \
	src/guard/guard_view.o \
	src/guard/impossible_settings.o \
	src/guard/size_text.o \
	src/guard/data_cap.o \
	src/guard/statement_id.o \
	src/guard/query_dsm.o \
	src/guard/last_samples.o \
	src/report/alloc_bench.o

# One install script source for the current version (extension/memprobe.sql); older versions'
# install scripts, frozen (extension/memprobe--0.1.sql), and upgrade scripts are picked up by name.
DATA_built = $(EXTENSION)--$(EXTVERSION).sql
DATA = $(wildcard extension/$(EXTENSION)--*.sql)
EXTRA_CLEAN = $(EXTENSION)--$(EXTVERSION).sql build/coexist.conf src/build_version.h

PG_CPPFLAGS = -I$(srcdir)/src

# The suites need memprobe preloaded, so pg_regress starts its own server (as pg_cron does) with
# the settings of test-servers/ (one file per kind of server, named for what it sets) instead of
# using whatever server is running, and creates the extension in its database
# (--load-extension), so that each suite also runs alone: make installcheck REGRESS=streamscan
# ISOLATION= TAP_TESTS= (HACKING.md, "Running one test").
REGRESS = log_min_memory module_version contexts alloc_bench alloc_bench_cancel bump privileges material material_memory material_plans \
	material_mergejoin material_spill \
	streamscan streamscan_types streamscan_cursors streamscan_large streamscan_page_quals streamscan_turnaround streamscan_by_need streamscan_parallel \
	stores stores_tablefunc stores_shared_subplan explain_storage explain_storage_literals observe_only sampler guard
REGRESS_OPTS = --temp-config=$(srcdir)/test-servers/preload-small-buffers.conf \
	--temp-instance=./tmp_check --load-extension=memprobe

# Concurrency specs (specs/*.spec), on a temporary preloaded server of their own.
ISOLATION = material_epq streamscan_epq streamscan_serializable backends_idle statements_memo
ISOLATION_OPTS = --temp-config=$(srcdir)/test-servers/preload-small-buffers.conf \
	--temp-instance=./tmp_check_iso

# Test builds only (scripts/test): src/testing/, never compiled into a build for production use:
# pause points that specs use to hold a backend at an exact place (src/shared/injection.h,
# src/testing/injection.c) and the specs that need them; memprobe_test_deform()
# (src/testing/deform_check.c), the randomized check of memprobe's tuple deformation against
# core's, and its suite; memprobe_test_grow() (src/testing/runaway.c), a runaway that never checks
# for interrupts, for t/007 to t/009, and memprobe_test_reserve(), memory mapped but not touched.
ifeq ($(MEMPROBE_INJECTION_POINTS),1)
PG_CPPFLAGS += -DMEMPROBE_INJECTION_POINTS
OBJS += src/testing/injection.o src/testing/deform_check.o src/testing/runaway.o
REGRESS += deform_random streamscan_parallel_blocks
ISOLATION += streamscan_ssi_window
endif
# so that "make clean" removes them whichever build runs it
EXTRA_CLEAN += src/testing/injection.o src/testing/injection.bc src/testing/deform_check.o src/testing/deform_check.bc src/testing/runaway.o src/testing/runaway.bc

# TAP suites (t/*.pl, PostgreSQL::Test::Cluster): a primary with a streaming hot standby, and
# memprobe preloaded before and after pg_stat_statements and auto_explain.  "make
# prove_installcheck" runs them alone (PGXS's "make installcheck" runs them too after the
# pg_regress suites, on a server configured with --enable-tap-tests).  Servers configured without
# it (scripts/pg-build's builds, which install the TAP modules all the same) need
# "make enable_tap_tests=yes PROVE=prove prove_installcheck".  Logs: tmp_check/log/.
TAP_TESTS = 1

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# The build names itself (memprobe_version(), the start-up LOG line, the magic block):
# scripts/build-version gives the release's version at its commit and, at any other, one that
# names the commit and sorts after the release (0.3.0+git4.20261207.077f156).  Rewritten only when
# it changes, so that only src/memprobe.c is rebuilt for a new commit.
src/build_version.h: FORCE
	@v=$$(sh $(srcdir)/scripts/build-version) && \
	  printf '#define MEMPROBE_BUILD_VERSION "%s"\n' "$$v" >$@.new && \
	  if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi
src/memprobe.o src/memprobe.bc: src/build_version.h
FORCE:
.PHONY: FORCE

# Hidden symbols but for what the server looks up by name (shared/compat.h): PGXS does this itself
# from PostgreSQL 16 on (CFLAGS_SL_MODULE), and for 15 it is done here.
ifeq ($(strip $(CFLAGS_SL_MODULE)),)
override CFLAGS += -fvisibility=hidden
endif

prove_installcheck:
	$(prove_installcheck)

.PHONY: prove_installcheck

# JSON_TABLE (a Table Function Scan that needs no libxml) exists from PostgreSQL 17 on.
ifeq ($(shell test $(MAJORVERSION) -ge 17 && echo yes),yes)
REGRESS += stores_jsontable
endif

$(EXTENSION)--$(EXTVERSION).sql: extension/$(EXTENSION).sql
	cp $< $@

# The same extension loaded on demand, on a server without memprobe preloaded.
NOPRELOAD_TESTS ?= nopreload
installcheck-nopreload:
	$(pg_regress_installcheck) --temp-config=$(srcdir)/test-servers/no-preload.conf \
		--temp-instance=./tmp_check_nopreload --outputdir=output_nopreload $(NOPRELOAD_TESTS)

# PostgreSQL 15 and 16 only ("snapshot too old" was removed in 17): a server of its own with
# old_snapshot_threshold = 0.
STO_TESTS ?= streamscan_snapshot_too_old
installcheck-sto:
	$(pg_isolation_regress_installcheck) --temp-config=$(srcdir)/test-servers/preload-snapshot-too-old.conf \
		--temp-instance=./tmp_check_sto --outputdir=output_sto $(STO_TESTS)

# memprobe_statements, on a server of its own with a small memprobe.max
# (test-servers/preload-max-100-statements.conf), so that eviction is tested and the other suites'
# statements do not count; then the upgrades from 0.1 and 0.2.
STATEMENTS_TESTS ?= statements statements_upgrade backends
installcheck-statements:
	$(pg_regress_installcheck) --temp-config=$(srcdir)/test-servers/preload-max-100-statements.conf \
		--temp-instance=./tmp_check_statements --outputdir=output_statements $(STATEMENTS_TESTS)

.PHONY: installcheck-nopreload installcheck-sto installcheck-statements

# memprobe beside pg_stat_statements (and pg_stat_kcache where installed), preloaded in the order
# COEXIST_PRELOAD gives: scripts/test runs it with memprobe first and last.  COEXIST_TESTS:
# coexist, plus coexist_kcache when pg_stat_kcache is in the list.
COEXIST_PRELOAD ?= pg_stat_statements, memprobe
COEXIST_TESTS ?= coexist
installcheck-coexist:
	mkdir -p build
	printf "shared_preload_libraries = '%s'\nmax_prepared_transactions = 0\nmax_parallel_workers_per_gather = 0\njit = off\n" \
		"$(COEXIST_PRELOAD)" > build/coexist.conf
	$(pg_regress_installcheck) --temp-config=build/coexist.conf \
		--temp-instance=./tmp_check_coexist --outputdir=output_coexist $(COEXIST_TESTS)

.PHONY: installcheck-coexist

# A release archive of the committed tree at HEAD, from git: memprobe-VERSION.zip (what PGXN takes)
# and memprobe-VERSION.tar.gz, VERSION being META.json's, with .build-version (the version the
# build names itself with, scripts/build-version: the archive has no .git).  Refuses when the tree
# has uncommitted changes or the versions disagree: META.json's must start with the control file's
# default_version, and CHANGELOG.md and debian/changelog must have an entry for it.
DISTVERSION = $(shell sed -n 's/^   "version": "\([^"]*\)",*$$/\1/p' $(srcdir)/META.json | head -n 1)

dist:
	@test -n "$(DISTVERSION)" || { echo "dist: no version in META.json" >&2; exit 1; }
	@case "$(DISTVERSION)" in $(EXTVERSION)|$(EXTVERSION).*) ;; \
	  *) echo "dist: META.json's version $(DISTVERSION) is not of default_version $(EXTVERSION)" >&2; exit 1;; esac
	@grep -q '^## $(DISTVERSION) ' $(srcdir)/CHANGELOG.md || \
	  { echo "dist: CHANGELOG.md has no entry for $(DISTVERSION)" >&2; exit 1; }
	@test ! -f $(srcdir)/debian/changelog || \
	  head -n 1 $(srcdir)/debian/changelog | grep -q '($(EXTVERSION)\(\.[0-9]*\)*-' || \
	  { echo "dist: debian/changelog's first entry is not for $(EXTVERSION)" >&2; exit 1; }
	@git -C $(srcdir) diff --quiet HEAD -- || \
	  { echo "dist: uncommitted changes; commit them first (the archive is made from HEAD)" >&2; exit 1; }
	mkdir -p $(CURDIR)/build/dist
	sh $(srcdir)/scripts/build-version --committed >$(CURDIR)/build/dist/.build-version
	git -C $(srcdir) archive --format=zip --prefix=$(EXTENSION)-$(DISTVERSION)/ \
	  --add-file=$(CURDIR)/build/dist/.build-version \
	  -o $(CURDIR)/$(EXTENSION)-$(DISTVERSION).zip HEAD
	git -C $(srcdir) archive --format=tar.gz --prefix=$(EXTENSION)-$(DISTVERSION)/ \
	  --add-file=$(CURDIR)/build/dist/.build-version \
	  -o $(CURDIR)/$(EXTENSION)-$(DISTVERSION).tar.gz HEAD

.PHONY: dist
