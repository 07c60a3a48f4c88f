/*
 * fill.h
 *		Writing every block of a new target (fill.c), for ranread_setup.
 */
#ifndef RANREAD_FILL_H
#define RANREAD_FILL_H

#include "c.h"

extern double target_fill(const char *target, Oid relid, const char *relpath, const char *spcname,
						  int64 size);

#endif							/* RANREAD_FILL_H */
