/*
 * worker.h
 *		The background worker of a batch (worker.c): its entry point, and the
 *		blocks a stream would read, chosen by the code the engines use.
 */
#ifndef RANREAD_WORKER_H
#define RANREAD_WORKER_H

#include "ranread.h"

extern PGDLLEXPORT void ranread_worker_main(Datum arg);
/* a stream's I/Os, one at a time (ranread_blocks) */
typedef struct WorkerPlan WorkerPlan;
extern WorkerPlan *worker_plan_begin(MemoryContext cxt, const BatchParams *p, int stream);
extern int64 worker_plan_next(WorkerPlan *wp);

#endif							/* RANREAD_WORKER_H */
