/*
 * iobuf.h
 *		Memory for O_DIRECT buffers (iobuf.c).
 */
#ifndef RANREAD_IOBUF_H
#define RANREAD_IOBUF_H

#include "batch.h"

#define IOBUF_STRIDE(block_size)	TYPEALIGN(4096, (block_size))	/* one slot's buffer */

extern char *ranread_iobuf_alloc(Size size, bool huge, RanreadPages *pages);
extern void ranread_iobuf_free(char *buf, Size size, bool huge);
extern Size ranread_iobuf_length(Size size, bool huge);
extern const char *ranread_pages_name(RanreadPages pages);
extern bool ranread_iobuf_may_register(double bytes, double *limit);

#endif							/* RANREAD_IOBUF_H */
