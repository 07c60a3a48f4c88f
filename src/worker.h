/*
 * worker.h
 *		A worker's private state and the per-I/O steps both engines share.
 *
 * A worker drives nstreams processes (streams) of the batch, possibly of
 * several groups; each stream has its group's queue_depth slots, and a slot
 * is one I/O in flight: its buffer, where it goes, and when it started.  The
 * engines (engine_uring.c, engine_sync.c) own the loop; the steps inside it
 * live here as inline functions so that the loop compiles to straight-line
 * code with no calls per I/O but the syscall.
 *
 * When an I/O's latency starts: when its slot became free, that is, when
 * the engine saw the previous I/O of the slot complete (or the run start).
 * Whatever happens between, choosing the block, the submission, a submit
 * that blocks because the storage takes only so many requests, is part of
 * what the stream waited for, so a stream's latencies add up to the time it
 * ran (Little's law; figures.c checks it as "busy").  Under a rate limit a
 * slot is idle between I/Os by design, and latency counts from when the I/O
 * was due instead, so a stalled device still shows (no coordinated omission).
 */
#ifndef RANREAD_WORKER_H
#define RANREAD_WORKER_H

#include "ranread.h"
#include "engine.h"
#include "storage/pmsignal.h"
#include "target.h"

typedef struct Stream
{
	const GroupParams *g;		/* what the stream does */
	int			group;
	int			fd_base;		/* its target's first file in Worker.fds */
	bool		fill;			/* writes are target pages (not scratch bytes) */
	uint64		rng[4];			/* block choice and read/write mix */
	uint64		data_rng[4];	/* contents of written pages */
	uint64		remaining;		/* measured I/Os still to issue */
	uint64		seq_pos;		/* sequential: next unit, in [seq_lo, seq_hi) */
	uint64		seq_lo;
	uint64		seq_hi;
	StreamStats *stats;			/* in the batch's shared memory */
	IntervalSlot *intervals;	/* this worker's seconds of the stream's group */
} Stream;

typedef struct Slot
{
	int			stream;
	bool		is_write;
	bool		measured;
	int			file;			/* index into Worker.fds */
	uint64		offset;
	uint64		start_ns;
	uint64		due_ns;			/* paced: when the next I/O is due */
	uint64		rate_interval_ns;	/* paced: between its I/Os; 0 unpaced */
	char	   *buf;
	unsigned	len;			/* its group's block size */
} Slot;

typedef struct Worker
{
	BatchShared *bs;
	const BatchParams *p;
	WorkerSlot *me;
	volatile uint32 *stop;		/* the control block's stop flag */
	int			index;

	int			nstreams;
	Stream	   *streams;
	int			nslots;
	Slot	   *slots;
	int			nfds;
	int		   *fds;			/* every segment of every target */

	/* paced slots waiting for their due time: a binary heap on due_ns */
	int		   *parked;
	int			nparked;

	uint64		measure_ns;		/* measured part starts */
	uint64		end_ns;			/* duration ends (UINT64_MAX: none) */
	uint64		last_second;	/* I/Os in flight at the end count here */
	bool		timing;			/* time each I/O (ranread.timing) */
	uint64		next_report_ns;
	uint64		ios;			/* measured completions */

	void	   *engine;			/* the engine's own state */

	char		error[RANREAD_MSG_LEN]; /* set by an engine on I/O failure */
} Worker;

extern volatile sig_atomic_t ranread_worker_terminate;

/*
 * Has the batch been stopped, or this worker failed or been told to go, or
 * the postmaster died?  (PostmasterIsAlive reads a flag that a signal sets:
 * the engines notice a dead postmaster within their 0.1 s waits.)
 */
static inline bool
io_stopping(Worker *w)
{
	return *w->stop != STOP_NONE || w->error[0] || ranread_worker_terminate ||
		unlikely(!PostmasterIsAlive());
}

/* May this slot's stream start another I/O now? */
static inline bool
io_may_issue(Worker *w, Slot *s, uint64 now)
{
	Stream	   *st = &w->streams[s->stream];

	if (io_stopping(w))
		return false;
	if (now < w->measure_ns)
		return true;			/* warm-up */
	return st->remaining > 0 && now < w->end_ns;
}

/* Choose where the slot's next I/O goes and whether it writes */
static inline void
io_prepare(Worker *w, Slot *s, uint64 now)
{
	Stream	   *st = &w->streams[s->stream];
	const GroupParams *g = st->g;
	uint64		unit;
	int			seg;

	if (g->pattern == PATTERN_RANDOM)
		unit = blocks_next(&g->blocks, st->rng);
	else
	{
		unit = st->seq_pos++;
		if (st->seq_pos >= st->seq_hi)
			st->seq_pos = st->seq_lo;
	}
	seg = (int) (unit / g->units_per_seg);
	s->file = st->fd_base + seg;
	s->offset = (unit % g->units_per_seg) * (uint64) g->block_size;
	s->measured = now >= w->measure_ns;
	if (s->measured)
		st->remaining--;
	s->is_write = g->write_pct > 0 && (int) rng_below(st->rng, 100) < g->write_pct;
	if (s->is_write && st->fill)
	{
		BlockNumber blk = (BlockNumber) ((uint64) seg * RELSEG_SIZE + s->offset / BLCKSZ);

		for (int off = 0; off < g->block_size; off += BLCKSZ)
			target_fill_page(s->buf + off, blk++, st->data_rng);
	}
}

/*
 * Stamp a slot's I/O as it goes out: from now, when the slot became free
 * (see the top of this file), or under a rate limit from when it was due
 * (and the next is due one interval later).
 */
static inline void
io_stamp(Worker *w, Slot *s, uint64 now)
{
	if (s->rate_interval_ns)
	{
		s->start_ns = s->due_ns;
		s->due_ns += s->rate_interval_ns;
	}
	else
		s->start_ns = now;
	if (s->measured)
	{
		StreamStats *stats = w->streams[s->stream].stats;

		if (stats->first_ns == 0)
			stats->first_ns = s->start_ns;
	}
}

/*
 * Account a completed I/O: latency from its start.  With ranread.timing off
 * only the counts are kept (to measure what timing costs).
 */
static inline void
io_complete(Worker *w, Slot *s, uint64 now)
{
	Stream	   *st;
	StreamStats *stats;
	uint64		lat;
	uint64		sec;
	IntervalSlot *iv;

	if (!s->measured)
		return;
	st = &w->streams[s->stream];
	stats = st->stats;
	if (s->is_write)
		stats->writes++;
	else
		stats->reads++;
	stats->last_ns = now;
	w->ios++;

	lat = now - s->start_ns;
	if (likely(w->timing))
		hist_add(&stats->hist[s->is_write ? HIST_WRITES : HIST_READS], lat);

	sec = Min((now - w->measure_ns) / 1000000000, w->last_second);
	if (likely(sec < (uint64) w->p->nintervals))
	{
		iv = &st->intervals[sec];
		if (s->is_write)
			iv->writes++;
		else
			iv->reads++;
		if (likely(w->timing))
		{
			iv->sum_ns += lat;
			if (lat > iv->max_ns)
				iv->max_ns = lat;
		}
	}
}

/* The paced slot due first, or -1 */
static inline int
parked_first(Worker *w)
{
	return w->nparked > 0 ? w->parked[0] : -1;
}

extern PGDLLEXPORT void ranread_worker_main(Datum arg);
extern void parked_push(Worker *w, int slot);
extern int	parked_pop(Worker *w);
extern void worker_progress(Worker *w, uint64 now);
extern void worker_plan(const BatchParams *p, int stream, int n, int64 *offsets);
extern void worker_io_error(Worker *w, Slot *s, int err, int got);
extern void worker_sync_error(Worker *w, Slot *s, int err);
extern void worker_engine_error(Worker *w, const char *msg);

#endif							/* RANREAD_WORKER_H */
