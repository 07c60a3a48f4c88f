# ranread: PGXS build.  `make`, `make install`, `make installcheck`,
# `make installcheck-pgtap`.

MODULE_big = ranread
# The library, by wing (docs/design.md, "The house"): the core in src/ (the
# module's init and settings, the histogram every wing shares), then a
# folder per concern.  Each folder is on the include path, so a file
# includes another wing's header by its name.
OBJS = \
	src/ranread.o \
	src/extension.o \
	src/histogram.o \
	src/errcontext.o \
	src/limits.o \
	$(WORKLOAD_OBJS) \
	$(RUN_OBJS) \
	$(TARGET_OBJS) \
	$(HISTORY_OBJS) \
	$(ADVISE_OBJS) \
	$(WATCH_OBJS) \
	$(FLEET_OBJS) \
	$(REPORT_OBJS)
WINGS = workload run target history advise watch fleet report

# Describing a workload: the option table, parameters, the forwarders
# behind the SQL functions users call, a run step's point
WORKLOAD_OBJS = \
	src/workload/options.o \
	src/workload/params.o \
	src/workload/workload.o \
	src/workload/point.o \
	src/workload/forward.o

# Measuring: a batch's leader, its workers and their engines, where each
# I/O goes, buffers, figures, verified I/O, the server path
RUN_OBJS = \
	src/run/run.o \
	src/run/leader.o \
	src/run/placement.o \
	src/run/worker.o \
	src/run/engine_uring.o \
	src/run/engine_sync.o \
	src/run/engine_bufmgr.o \
	src/run/serverpath.o \
	src/run/io.o \
	src/run/blocks.o \
	src/run/iobuf.o \
	src/run/figures.o \
	src/run/progress_batch.o \
	src/run/verify.o \
	src/run/verify_target.o

# Targets: making, filling, finding and purging them; their access method
TARGET_OBJS = \
	src/target/target.o \
	src/target/target_am.o \
	src/target/fill.o \
	src/target/fsinfo.o \
	src/target/purge.o

# The history: recording a batch, repairing what a crash left, the calls
# that run many batches and what runs now (ranread_progress)
HISTORY_OBJS = \
	src/history/history.o \
	src/history/repair.o \
	src/history/calls.o \
	src/history/progress.o

# The commit path and durability, which the advisor reads
ADVISE_OBJS = \
	src/advise/commit.o \
	src/advise/durability.o

# Keeping watch: comparing histograms, the probe's cap, what a pg_cron
# schedule of it needs
WATCH_OBJS = \
	src/watch/compare.o \
	src/watch/probe.o \
	src/watch/probe_cron.o

# The fleet's connections to other servers (src/fleet/, docs/design.md "The house"):
# libpq, asynchronous, every wait bounded and interruptible; connection
# strings read by libpq's rules and shown without their passwords.  The
# coordinator that uses them is PL/pgSQL (sql/code/51_fleet_loop.sql).
FLEET_OBJS = \
	src/fleet/registry.o \
	src/fleet/lookup.o \
	src/fleet/progress.o \
	src/fleet/wait.o \
	src/fleet/cancel.o \
	src/fleet/remote_sql.o \
	src/fleet/conninfo.o \
	src/fleet/secrets.o

# The report module (src/report/, docs/design.md "The house"): the chart
# renderer, its jsonb spec reader, the charts of the history, export, server
# info.  It reads the history through SPI and uses the core's headers
# (ranread.h, target.h); the benchmark core in src/ includes nothing of it.
REPORT_OBJS = \
	src/report/svg.o \
	src/report/svg_axis.o \
	src/report/svg_line.o \
	src/report/svg_bar.o \
	src/report/svg_heat.o \
	src/report/chart_json.o \
	src/report/charts.o \
	src/report/export.o \
	src/report/server_info.o

EXTENSION = ranread
# The SQL of the version being written (sql/README.md): its state (tables,
# types, sequences) in sql/state/, its code (everything CREATE OR REPLACE
# makes again: functions, views, triggers, comments, privileges) in
# sql/code/.  The install script is the state, then the code, each in name
# order.  An upgrade script is built for every sql/updates/OLD--NEW.sql
# (the state changes from the released OLD): pre-update.sql (given the views
# changed since OLD, scripts/changed-views), that file, the whole of the
# code, post-update.sql.  scripts/freeze-release releases a version: its
# scripts are then kept as released in sql/versions/ (checked by
# test/shell/14_released.sh), and the next change to the surface starts the
# next version (EXTVERSION, and sql/updates/ from the released one).
EXTVERSION = 1.2
STATE_PARTS = $(sort $(wildcard sql/state/*.sql))
CODE_PARTS = $(sort $(wildcard sql/code/*.sql))
UPDATES = $(patsubst sql/updates/%.sql,ranread--%.sql,$(wildcard sql/updates/*--$(EXTVERSION).sql))
DATA_built = $(if $(wildcard sql/versions/ranread--$(EXTVERSION).sql),,ranread--$(EXTVERSION).sql $(UPDATES))
DATA = $(wildcard sql/versions/ranread--*.sql)
# The queries file for prometheus-postgres-exporter (docs/keeping-watch.md,
# "Metrics"), beside the extension's scripts:
# `pg_config --sharedir`/extension/
DATA += metrics/ranread_postgres_exporter.yaml

# pg_regress (make installcheck): test/regress/sql/NAME.sql run, its output
# compared with test/regress/expected/NAME.out; results/, regression.diffs
# and regression.out are written under test/regress/.  In this order:
# surface creates the extension.
REGRESS = surface setup_errors run_argument_errors bad_input
REGRESS_OPTS = --inputdir=test/regress --outputdir=test/regress

# libpq: the fleet talks to other servers itself (src/fleet/)
SHLIB_LINK += -luring -lpq
PG_CPPFLAGS += -Isrc $(addprefix -Isrc/,$(WINGS)) -I$(libpq_srcdir)
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
# not for use; test/sanitize builds and tests one (docs/building.md, "Sanitizer
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

EXTRA_CLEAN = test/regress/results test/regress/regression.diffs test/regress/regression.out .build-flags src/sanitize.o src/workload/options_table.h \
	src/report/chart_sweep.sql.h src/report/chart_timeline.sql.h src/report/chart_timeline_heat.sql.h

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# scripts/assemble writes both, the workload options written out from
# src/workload/options.tsv (scripts/expand-options: a function that forgets one
# stops the build)
ASSEMBLY = scripts/assemble scripts/expand-options scripts/changed-views src/workload/options.tsv
ranread--$(EXTVERSION).sql: $(STATE_PARTS) $(CODE_PARTS) $(ASSEMBLY)
	sh scripts/assemble install > $@.tmp && mv $@.tmp $@

# The upgrade from the released version OLD
ranread--%--$(EXTVERSION).sql: sql/updates/%--$(EXTVERSION).sql sql/versions/ranread--%.sql \
		sql/updates/pre-update.sql sql/updates/post-update.sql $(CODE_PARTS) $(ASSEMBLY)
	sh scripts/assemble update $* > $@.tmp && mv $@.tmp $@

# the C option table, from the same table (scripts/options-c)
src/workload/options_table.h: src/workload/options.tsv scripts/options-c
	sh scripts/options-c src/workload/options.tsv > $@.tmp && mv $@.tmp $@

$(OBJS) $(OBJS:.o=.bc): $(wildcard src/*.h src/*/*.h) src/workload/options_table.h .build-flags

# The charts' spec queries (src/report/chart_*.sql) as C strings for
# charts.c, their comment lines left out (src/report/charts.c says why)
src/report/%.sql.h: src/report/%.sql
	sed -e '/^[[:space:]]*--/d' -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@
src/report/charts.o src/report/charts.bc: src/report/chart_sweep.sql.h src/report/chart_timeline.sql.h src/report/chart_timeline_heat.sql.h

.build-flags: FORCE
	@echo '$(SANITIZE_FLAGS)' | cmp -s - $@ || echo '$(SANITIZE_FLAGS)' > $@
.PHONY: FORCE

# make installcheck-pgtap: the pgTAP files (test/tap/*.sql) with pg_prove, in a
# database made afresh (PGTAP_DB) with pgtap and ranread created, on the
# running server that psql reaches (PGHOST, PGPORT, PGUSER: a superuser), as
# installcheck does: no root needed, only the extension and pgTAP installed
# where that server finds them.  PGTAP_TESTS= picks files, PROVE_FLAGS=-v
# shows every test.
PGTAP_DB ?= ranread_tap
PGTAP_TESTS ?= $(wildcard test/tap/*.sql)
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
