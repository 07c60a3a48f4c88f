/*
 * workload.h
 *		The one definition of a workload (workload.c): the spec that
 *		carries a workload from SQL to the leader, and the parser that reads
 *		a spec, through the option table (options.h), into the BatchParams a
 *		batch runs.
 */
#ifndef RANREAD_WORKLOAD_H
#define RANREAD_WORKLOAD_H

#include "ranread.h"
#include "batch.h"
#include "options.h"

#include "utils/jsonb.h"

/* What the parser may take from its caller besides the spec */
#define WORKLOAD_MIX			0x01	/* the groups of ranread_mix */
#define WORKLOAD_TRUST_SWEEP	0x02	/* 1.0's sweep: its id is not registered */
#define WORKLOAD_CHECK			0x04	/* read to be checked, not run (point.c) */


extern Jsonb *workload_spec(JsonbContainer *options, JsonbContainer *base, const char *fn);
extern const char *workload_batch(BatchParams *p, Jsonb *spec, int *workers, int flags);

#endif							/* RANREAD_WORKLOAD_H */
