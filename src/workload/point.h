/*
 * point.h
 *		What a batch's point may say (point.c): a study's coordinates or a
 *		latency-target search's window, checked against the batch.
 */
#ifndef RANREAD_POINT_H
#define RANREAD_POINT_H

#include "utils/jsonb.h"

#include "batch.h"

extern void point_check(const BatchParams *p, Jsonb *point, int64 study, const char *fn,
						bool checking);

#endif							/* RANREAD_POINT_H */
