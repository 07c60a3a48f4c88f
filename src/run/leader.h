/*
 * leader.h
 *		Running one batch as its leader (leader.c), for the SQL functions that
 *		run batches (run.c, commit.c).
 */
#ifndef RANREAD_LEADER_H
#define RANREAD_LEADER_H

#include "ranread.h"
#include "batch.h"

#include "postmaster/bgworker.h"
#include "storage/dsm.h"

/* What the leader keeps besides the BatchParams: its arguments' leftovers */
typedef struct RunContext
{
	const char *fn;				/* the SQL function the user called */
	int			workers;		/* asked for; 0 = choose */
	dsm_segment *seg;
	BatchShared *bs;
	BackgroundWorkerHandle **handles;
	int			nworkers;
} RunContext;

/*
 * Run a batch whose arguments are checked, and wait for it: rc->bs holds
 * its figures and status afterwards, until the caller detaches rc->seg.
 */
extern void run_batch(BatchParams *p, RunContext *rc);

#endif							/* RANREAD_LEADER_H */
