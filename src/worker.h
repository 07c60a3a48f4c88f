/*
 * worker.h
 *		A worker's private state and the per-I/O steps both engines share.
 *
 * A worker drives nstreams processes (streams) of the batch; each stream has
 * queue_depth slots, and a slot is one I/O in flight: its buffer, where it
 * goes, and when it started.  The engines (engine_uring.c, engine_sync.c) own
 * the loop; the steps inside it live here as inline functions so that the
 * loop compiles to straight-line code with no calls per I/O but the syscall.
 */
#ifndef RANREAD_WORKER_H
#define RANREAD_WORKER_H

#include "ranread.h"

typedef struct Stream
{
	uint64		rng[4];			/* block choice and read/write mix */
	uint64		data_rng[4];	/* contents of written pages */
	uint64		remaining;		/* measured I/Os still to issue */
	uint64		seq_pos;		/* sequential: next unit, in [seq_lo, seq_hi) */
	uint64		seq_lo;
	uint64		seq_hi;
	StreamStats *stats;			/* in the batch's shared memory */
} Stream;

typedef struct Slot
{
	int			stream;
	bool		is_write;
	bool		measured;
	bool		parked;			/* rate-limited: waiting for due_ns */
	int			seg;
	uint64		offset;
	uint64		start_ns;
	uint64		due_ns;
	char	   *buf;
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
	int		   *fds;			/* one per segment */

	uint64		nunits;			/* region size in units */
	uint64		measure_ns;		/* measured part starts */
	uint64		end_ns;			/* duration ends (UINT64_MAX: none) */
	uint64		last_second;	/* I/Os in flight at the end count here */
	uint64		rate_interval_ns;	/* per slot; 0: no rate limit */
	bool		timing;			/* time each I/O (ranread.timing) */
	uint64		next_report_ns;
	uint64		ios;			/* measured completions */
	IntervalSlot *intervals;

	void	   *engine;			/* the engine's own state */

	char		error[RANREAD_MSG_LEN];	/* set by an engine on I/O failure */
} Worker;

/* May this slot's stream start another I/O now? */
static inline bool
io_may_issue(Worker *w, Slot *s, uint64 now)
{
	Stream	   *st = &w->streams[s->stream];

	if (*w->stop != STOP_NONE || w->error[0])
		return false;
	if (now < w->measure_ns)
		return true;			/* warm-up */
	return st->remaining > 0 && now < w->end_ns;
}

/* Choose where the slot's next I/O goes and whether it writes */
static inline void
io_prepare(Worker *w, Slot *s, uint64 now)
{
	const BatchParams *p = w->p;
	Stream	   *st = &w->streams[s->stream];
	uint64		unit;

	if (p->pattern == PATTERN_RANDOM)
		unit = p->unit_lo + rng_below(st->rng, w->nunits);
	else
	{
		unit = st->seq_pos++;
		if (st->seq_pos >= st->seq_hi)
			st->seq_pos = st->seq_lo;
	}
	s->seg = (int) (unit / p->units_per_seg);
	s->offset = (unit % p->units_per_seg) * (uint64) p->block_size;
	s->measured = now >= w->measure_ns;
	if (s->measured)
		st->remaining--;
	s->is_write = p->write_pct > 0 && (int) rng_below(st->rng, 100) < p->write_pct;
	if (s->is_write)
	{
		BlockNumber blk = (BlockNumber) ((uint64) s->seg * RELSEG_SIZE + s->offset / BLCKSZ);

		for (int off = 0; off < p->block_size; off += BLCKSZ)
			target_fill_page(s->buf + off, blk++, st->data_rng);
	}
}

/*
 * Stamp a slot's I/O as it goes out.  Under a rate limit its latency counts
 * from when it was due (and the next is due one interval later); otherwise
 * from now, read just before the submitting syscall.
 */
static inline void
io_stamp(Worker *w, Slot *s, uint64 now)
{
	if (w->rate_interval_ns)
	{
		s->start_ns = s->due_ns;
		s->due_ns += w->rate_interval_ns;
	}
	else
		s->start_ns = w->timing ? ranread_now_ns() : now;
}

/*
 * Account a completed I/O: latency from start (or from due, when paced).
 * With ranread.timing off only the counts are kept (to measure what timing
 * costs).
 */
static inline void
io_complete(Worker *w, Slot *s, uint64 now)
{
	StreamStats *stats;
	uint64		lat;
	uint64		sec;
	IntervalSlot *iv;

	if (!s->measured)
		return;
	stats = w->streams[s->stream].stats;
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
		iv = &w->intervals[sec];
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

extern void worker_progress(Worker *w, uint64 now);
extern void worker_plan(const BatchParams *p, int g, int n, int64 *offsets);
extern void worker_io_error(Worker *w, Slot *s, int err, int got);
extern void worker_engine_error(Worker *w, const char *msg);

/* engines */
extern void engine_uring_prepare(Worker *w);
extern void engine_uring_run(Worker *w);
extern void engine_sync_run(Worker *w);

#endif							/* RANREAD_WORKER_H */
