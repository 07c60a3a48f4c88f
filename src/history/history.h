/*
 * history.h
 *		The history rows of a batch (history.c); their upkeep is repair.h.
 */
#ifndef RANREAD_HISTORY_H
#define RANREAD_HISTORY_H

#include "ranread.h"

extern void history_set_hists(RanreadHist *all, RanreadHist *writes);
extern void history_insert_running(BatchShared *bs);
extern void history_finish(BatchShared *bs);
extern void history_mark_unrecorded(BatchShared *bs);
extern char *history_layout_words(BatchShared *bs);
extern uint64 history_start_late_ns(BatchShared *bs, int *worker);

#endif							/* RANREAD_HISTORY_H */
