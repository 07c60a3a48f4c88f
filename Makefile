# ranread: PGXS build.  `make`, `make install`, `make installcheck`.

MODULE_big = ranread
OBJS = \
	src/ranread.o \
	src/hist.o \
	src/target.o \
	src/run.o \
	src/worker.o \
	src/engine_uring.o \
	src/engine_sync.o \
	src/iobuf.o \
	src/history.o \
	src/svg.o \
	src/svg_spec.o \
	src/chart.o \
	src/export.o \
	src/limits.o

EXTENSION = ranread
# The install script of the current version is assembled from the parts in
# sql/install/, in name order.  Released install scripts and the upgrade
# scripts between versions are kept as they are, in sql/versions/.
EXTVERSION = 1.1
DATA_built = ranread--$(EXTVERSION).sql
DATA = $(wildcard sql/versions/ranread--*.sql)
INSTALL_PARTS = $(sort $(wildcard sql/install/*.sql))

REGRESS = surface setup_errors run_errors bad_input
REGRESS_OPTS = --inputdir=. --outputdir=.

SHLIB_LINK += -luring
PG_CPPFLAGS += -Isrc
PG_CFLAGS += -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wno-sign-compare
ifdef WERROR
PG_CFLAGS += -Werror
endif

EXTRA_CLEAN = results regression.diffs regression.out

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

ranread--$(EXTVERSION).sql: $(INSTALL_PARTS)
	cat $^ > $@

$(OBJS): src/ranread.h src/hist.h src/worker.h src/svg.h
