/*
 * history.h
 *		The history rows of a batch (history.c) and their upkeep (repair.c).
 */
#ifndef RANREAD_HISTORY_H
#define RANREAD_HISTORY_H

#include "ranread.h"

extern void history_set_hists(RanreadHist *all, RanreadHist *writes);
extern void history_insert_running(BatchShared *bs);
extern void history_finish(BatchShared *bs);

/* repair.c */
extern void history_repair_orphans(const BatchParams *p);
extern void history_describe_blockers(BatchShared *bs);
extern RanreadPages history_pages(BatchShared *bs);
extern char *history_notes(BatchShared *bs);

#endif							/* RANREAD_HISTORY_H */
