/*
 * repair.h
 *		Upkeep of the history (repair.c): batches a crash left running, who
 *		holds a lock a recording waits for, and what a batch's row says of
 *		its buffers and notes.
 */
#ifndef RANREAD_REPAIR_H
#define RANREAD_REPAIR_H

#include "ranread.h"
#include "batch.h"

extern void history_repair_orphans(const BatchParams *p);
extern void history_remember_unrecorded(BatchShared *bs);
extern char *history_unrecorded_words(BatchShared *bs);
extern void history_describe_blockers(BatchShared *bs);
extern RanreadPages history_pages(BatchShared *bs);
extern char *history_notes(BatchShared *bs);
extern char *history_cache_words(const BatchShared *bs);
extern char *history_device_words(BatchShared *bs);

#endif							/* RANREAD_REPAIR_H */
