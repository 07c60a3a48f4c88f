/*
 * placement.h
 *		Which background worker drives which process (placement.c): how many
 *		workers a batch asks for, how its streams are divided among the ones
 *		that started, and how the NOTICE and the history say it.
 */
#ifndef RANREAD_PLACEMENT_H
#define RANREAD_PLACEMENT_H

#include "batch.h"

/* The workers a batch asks for: asked (0 = choose), within the server's limits */
extern int	placement_want(const BatchParams *p, int asked, bool one_stream_per_worker);

/* Divide the streams among the nworkers that started (WorkerSlot ranges) */
extern void placement_divide(BatchShared *bs, int nworkers);

/* The workers that drive some stream of group g */
extern int	placement_group_workers(const BatchShared *bs, int g);

/* The worker (0-based) that drives stream s; -1 if none */
extern int	placement_worker_of(const BatchShared *bs, int s);

/* Does some worker drive streams of more than one group? */
extern bool placement_groups_share(const BatchShared *bs);

/* The division as a sentence, for the start NOTICE's detail */
extern char *placement_words(const BatchShared *bs);

#endif							/* RANREAD_PLACEMENT_H */
