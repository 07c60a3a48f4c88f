/*
 * engine.h
 *		The I/O engines: io_uring (engine_uring.c), one ring per worker for
 *		all its streams, and synchronous pread/pwrite (engine_sync.c), one
 *		stream per worker.
 */
#ifndef RANREAD_ENGINE_H
#define RANREAD_ENGINE_H

#include "c.h"

struct Worker;

extern bool engine_uring_available(char *why, int whylen);
extern void engine_uring_prepare(struct Worker *w);
extern void engine_uring_run(struct Worker *w);
extern void engine_sync_run(struct Worker *w);

#endif							/* RANREAD_ENGINE_H */
