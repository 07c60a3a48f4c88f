/*
 * worker.h
 *		The background worker of a batch (worker.c): its entry point, and the
 *		blocks a stream would read, chosen by the code the engines use.
 */
#ifndef RANREAD_WORKER_H
#define RANREAD_WORKER_H

#include "ranread.h"

extern PGDLLEXPORT void ranread_worker_main(Datum arg);
extern void worker_plan(const BatchParams *p, int stream, int n, int64 *offsets);

#endif							/* RANREAD_WORKER_H */
