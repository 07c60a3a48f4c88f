/*
 * options.h
 *		The table of a workload's options (options.c): what each option is,
 *		where it stands in a spec, its type, default and bounds.  The rows
 *		and the keys are made from src/workload/options.tsv (options_table.h).
 */
#ifndef RANREAD_OPTIONS_H
#define RANREAD_OPTIONS_H

#include "ranread.h"
#include "batch.h"
#include "options_table.h"

/* Where an option stands in a spec */
typedef enum WorkloadLevel
{
	LEVEL_BATCH,				/* the batch's: at the top of the spec */
	LEVEL_GROUP					/* a group's: in each object of "groups" */
} WorkloadLevel;

/* The SQL type of an option's value (its JSON spelling follows from it) */
typedef enum WorkloadType
{
	WT_INT4,
	WT_INT8,
	WT_FLOAT8,
	WT_TEXT,
	WT_NAME,
	WT_INTERVAL,
	WT_TIMESTAMPTZ,
	WT_JSONB,
	WT_BOOL
} WorkloadType;

/* Each option's key: OPT_ and its name in capitals (src/workload/options.tsv) */
typedef enum WorkloadKey
{
	WORKLOAD_KEYS
} WorkloadKey;

/* One option of a workload: one row of ranread_options() */
typedef struct WorkloadOption
{
	const char *name;
	WorkloadKey key;
	WorkloadLevel level;		/* where a spec built from flat options has it */
	bool		both;			/* it may stand at the other level too: a
								 * group's own iterations, the top's target
								 * as every group's default */
	WorkloadType type;
	const char *default_value;	/* as text; NULL: none (see null_means) */
	int64		min;			/* integer options: the range; else 0, 0 */
	int64		max;
	const char *allowed;		/* what is allowed, in words */
	const char *unit;
	const char *null_means;		/* what NULL (or leaving it out) means; NULL:
								 * it must be given (a default fills it in) */
	const char *help;			/* one line; the hint of its errors */
	bool		internal;		/* set by the functions that run many batches */
} WorkloadOption;

#define RANREAD_MAX_RATE_IOPS	100000000

extern const WorkloadOption workload_options[];
extern const int workload_noptions;

extern const WorkloadOption *workload_option(const char *name);
extern const WorkloadOption *workload_option_by_key(WorkloadKey key);
extern Oid	workload_type_oid(WorkloadType type);
extern void workload_require(bool isnull, const char *arg, const char *fn, const char *hint);

#endif							/* RANREAD_OPTIONS_H */
