# ranread: PGXS build.  `make`, `make install`, `make installcheck`,
# `make installcheck-pgtap`.

MODULE_big = ranread
OBJS = \
	src/ranread.o \
	src/extension.o \
	src/histogram.o \
	src/compare.o \
	src/target.o \
	src/target_am.o \
	src/fill.o \
	src/fsinfo.o \
	src/params.o \
	src/options.o \
	src/workload.o \
	src/forward.o \
	src/errcontext.o \
	src/run.o \
	src/leader.o \
	src/placement.o \
	src/commit.o \
	src/durability.o \
	src/worker.o \
	src/engine_uring.o \
	src/engine_sync.o \
	src/io.o \
	src/blocks.o \
	src/iobuf.o \
	src/figures.o \
	src/history.o \
	src/repair.o \
	src/calls.o \
	src/limits.o \
	src/remote.o \
	src/probe.o \
	src/verify.o \
	src/verify_target.o \
	$(REPORT_OBJS)

# The report module (src/report/, README "Layout"): the chart renderer, its
# jsonb spec reader, the charts of the history, export, server info.  It
# reads the history through SPI and uses the core's headers (ranread.h,
# target.h); the benchmark core in src/ includes nothing of it.
REPORT_OBJS = \
	src/report/svg.o \
	src/report/chart_json.o \
	src/report/charts.o \
	src/report/export.o \
	src/report/server_info.o

EXTENSION = ranread
# The install script of the version being written is assembled from the
# parts in sql/install/, in name order, and its upgrade scripts (UPGRADES)
# from their sources in sql/upgrades/.  scripts/freeze-release releases a
# version: its scripts are then kept as released in sql/versions/ (checked by
# test/shell/14_released.sh), and the next change to the surface starts the
# next version (EXTVERSION, and UPGRADES from the released one).
EXTVERSION = 1.2
UPGRADES = ranread--1.1--1.2.sql
DATA_built = $(if $(wildcard sql/versions/ranread--$(EXTVERSION).sql),,ranread--$(EXTVERSION).sql) $(UPGRADES)
DATA = $(wildcard sql/versions/ranread--*.sql)
# The queries file for prometheus-postgres-exporter (README, "Keeping
# watch"), beside the extension's scripts: `pg_config --sharedir`/extension/
DATA += metrics/ranread_postgres_exporter.yaml
INSTALL_PARTS = $(sort $(wildcard sql/install/*.sql))

# pg_regress (make installcheck): test/sql/NAME.sql run, its output compared
# with test/expected/NAME.out; results/, regression.diffs and regression.out
# are written under test/.  In this order: surface creates the extension.
REGRESS = surface setup_errors run_argument_errors bad_input
REGRESS_OPTS = --inputdir=test --outputdir=test

# libpq: the fleet talks to other servers itself (src/remote.c)
SHLIB_LINK += -luring -lpq
PG_CPPFLAGS += -Isrc -I$(libpq_srcdir)
# PostgreSQL 15 loads extension libraries with RTLD_GLOBAL and marks nothing
# for export, so build with hidden symbols and export only what the server
# looks up by name: SQL functions (PG_FUNCTION_INFO_V1), the magic block,
# _PG_init and the background workers' entry points, all PGDLLEXPORT.
PG_CPPFLAGS += '-DPGDLLEXPORT=__attribute__((visibility("default")))'
PG_CFLAGS += -fvisibility=hidden
PG_CFLAGS += -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wno-sign-compare
ifdef WERROR
PG_CFLAGS += -Werror
endif
# make SANITIZE=undefined (or address,undefined): a build for finding bugs,
# not for use; test/sanitize builds and tests one (README, "Sanitizer
# build").  Every finding aborts the process (no recovery), frames are kept
# for the reports' stacks, and float-to-integer casts out of range are
# checked too (gcc leaves them out of "undefined").  The flags a build was
# made with are kept in .build-flags, so changing them rebuilds everything.
ifdef SANITIZE
SANITIZE_FLAGS = -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
ifneq (,$(findstring undefined,$(SANITIZE)))
SANITIZE_FLAGS += -fsanitize=float-cast-overflow
endif
PG_CFLAGS += $(SANITIZE_FLAGS)
SHLIB_LINK += $(SANITIZE_FLAGS)
OBJS += src/sanitize.o
endif

EXTRA_CLEAN = test/results test/regression.diffs test/regression.out .build-flags src/sanitize.o \
	src/report/chart_sweep.sql.h src/report/chart_timeline.sql.h src/report/chart_timeline_heat.sql.h

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

ranread--$(EXTVERSION).sql: $(INSTALL_PARTS)
	cat $^ > $@

# An upgrade script: its source in sql/upgrades/, each "-- @include FILE"
# line replaced by the whole text of that file of sql/install/
ranread--%.sql: sql/upgrades/ranread--%.sql $(INSTALL_PARTS)
	awk '/^-- @include /{ f = $$3; while ((getline line < f) > 0) print line; close(f); next } { print }' $< > $@

$(OBJS): $(wildcard src/*.h) .build-flags
$(REPORT_OBJS): $(wildcard src/report/*.h)

# The charts' spec queries (src/report/chart_*.sql) as C strings for
# charts.c, their comment lines left out (src/report/charts.c says why)
src/report/%.sql.h: src/report/%.sql
	sed -e '/^[[:space:]]*--/d' -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@
src/report/charts.o src/report/charts.bc: src/report/chart_sweep.sql.h src/report/chart_timeline.sql.h src/report/chart_timeline_heat.sql.h

.build-flags: FORCE
	@echo '$(SANITIZE_FLAGS)' | cmp -s - $@ || echo '$(SANITIZE_FLAGS)' > $@
.PHONY: FORCE

# make installcheck-pgtap: the pgTAP files (test/*.sql) with pg_prove, in a
# database made afresh (PGTAP_DB) with pgtap and ranread created, on the
# running server that psql reaches (PGHOST, PGPORT, PGUSER: a superuser), as
# installcheck does: no root needed, only the extension and pgTAP installed
# where that server finds them.  PGTAP_TESTS= picks files, PROVE_FLAGS=-v
# shows every test.
PGTAP_DB ?= ranread_tap
PGTAP_TESTS ?= $(wildcard test/*.sql)
installcheck-pgtap:
	$(bindir)/psql -qX -v ON_ERROR_STOP=1 -d postgres -c 'DROP DATABASE IF EXISTS $(PGTAP_DB)' -c 'CREATE DATABASE $(PGTAP_DB)'
	$(bindir)/psql -qX -v ON_ERROR_STOP=1 -d $(PGTAP_DB) -c 'CREATE EXTENSION pgtap' -c 'CREATE EXTENSION ranread'
	pg_prove --psql-bin $(bindir)/psql -d $(PGTAP_DB) $(PROVE_FLAGS) $(PGTAP_TESTS)
.PHONY: installcheck-pgtap

# make dist: $(DISTNAME).tar.gz, the committed tree (git archive HEAD) under
# $(DISTNAME)/, for PGXN and as the Debian orig tarball; DISTDIR= says where.
DISTNAME = $(EXTENSION)-$(EXTVERSION)
DISTDIR ?= .
dist:
	git archive --format=tar.gz --prefix=$(DISTNAME)/ -o $(DISTDIR)/$(DISTNAME).tar.gz HEAD
	@test -z "$$(git status --porcelain --untracked-files=no)" || \
	  echo "make dist: uncommitted changes are not in $(DISTNAME).tar.gz (it is HEAD)"
.PHONY: dist
