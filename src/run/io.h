/*
 * io.h
 *		The state an engine's loop drives and the steps of one I/O, shared by
 *		the engines (engine_uring.c, engine_sync.c) and by whoever runs them:
 *		a batch's background workers (worker.c) and setup's fill in the
 *		calling backend (fill.c).  Nothing here knows who that is: what the
 *		owner must hear it learns through Worker.progress and Worker.error.
 *
 * A Worker drives nstreams processes (streams), possibly of several groups;
 * each stream has its group's queue_depth slots, and a slot is one I/O in
 * flight: its buffer, where it goes, and when it started.  The engine owns
 * the loop; the steps inside it are inline functions here, so that the loop
 * compiles to straight-line code with no calls per I/O but the syscall.
 * The rest (seeding a stream, the slots and their buffers, the heap of
 * paced slots, the error reporters, making a target page) is io.c.
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
#ifndef RANREAD_IO_H
#define RANREAD_IO_H

#include <signal.h>

#include "ranread.h"
#include "batch.h"
#include "storage/block.h"
#include "storage/pmsignal.h"

#define IO_REPORT_NS	((uint64) 1000000000)	/* Worker.progress, once a second */

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
	StreamStats *stats;			/* its counts (in the batch's shared memory) */
	IntervalSlot *intervals;	/* its group's seconds; NULL without them */
	/* the stamp of its written pages (verify.h); verify: its group's option */
	PageStamp	stamp;			/* target, batch, flags (blkno, seq per page) */
	bool		verify;			/* stamp writes with sequences, check reads */
	pg_atomic_uint64 *words;	/* verify: its target's per-block words, */
	pg_atomic_uint32 *begun;	/* ... and counts of writes begun, */
	BlockNumber words_first;	/* ... whose first are this block's */
	VerifyShared *vs;			/* verify: the batch's sequence and bad blocks */
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
	BlockNumber blkno;			/* verify: its first page's relation block */
	uint64		vseq;			/* verify: a write's sequence */
	uint64	   *vwords;			/* verify: a read's words at its start, per page, */
	uint32	   *vbegun;			/* ... and its blocks' writes begun */
} Slot;

/* Why a run failed (Worker.failure) */
typedef enum IoFailure
{
	IO_OK = 0,
	IO_FAILED,					/* an I/O returned an error (failure_errno) */
	IO_SHORT,					/* an I/O moved fewer bytes than asked */
	IO_SYNC_FAILED,				/* the fdatasync or fsync after a write failed */
	IO_ENGINE_FAILED			/* the engine itself (the ring, a hung device) */
} IoFailure;

typedef struct Worker Worker;
typedef void (*IoProgress) (Worker *w, uint64 now);

/*
 * What an engine drives.  The owner fills in the first block (and the
 * streams, io_stream_init), then io_alloc_slots, and sets the clock fields
 * before the run; the engine keeps its own state in engine.
 */
struct Worker
{
	const BatchParams *p;		/* the groups and targets of the streams */
	volatile uint32 *stop;		/* a stop flag: the control block's */
	volatile sig_atomic_t *interrupt;	/* set by a signal: stop at once */
	IoProgress	progress;		/* the owner's, once a second and at the end */

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
	uint64		next_report_ns; /* when progress is due */
	uint64		ios;			/* measured completions */

	char	   *bufs;			/* every slot's buffer (io_alloc_slots) */
	Size		buf_bytes;
	bool		huge;			/* asked for huge pages */
	RanreadPages pages;			/* what they got */
	bool		registered;		/* the engine registered them (io_uring) */
	void	   *engine;			/* the engine's own state */

	IoFailure	failure;		/* set once, by the first error reporter */
	int			failure_errno;
	char		error[RANREAD_MSG_LEN]; /* the failure in a sentence */
};

/*
 * Should the loop stop: the batch stopped, this run failed, a signal came,
 * or the postmaster died?  (PostmasterIsAlive reads a flag that a signal
 * sets: the engines notice a dead postmaster within their 0.1 s waits.)
 */
static inline bool
io_stopping(Worker *w)
{
	return *w->stop != STOP_NONE || w->error[0] || *w->interrupt ||
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

extern void io_fill_page(char *page, BlockNumber blkno, uint64 *rng, const PageStamp *stamp,
						 uint64 seq);
extern void io_verify_begin(Worker *w, Slot *s);
extern void io_verify_end(Worker *w, Slot *s, uint64 now);

/*
 * Choose where the slot's next I/O goes and whether it writes; a write to a
 * target gets fresh target pages (io_fill_page), each unlike any other.
 */
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
	if (unlikely(st->verify))
	{
		/* its sequence, its words: before the I/O is submitted */
		s->blkno = (BlockNumber) ((uint64) seg * RELSEG_SIZE + s->offset / BLCKSZ);
		io_verify_begin(w, s);
	}
	else if (s->is_write && st->fill)
	{
		BlockNumber blk = (BlockNumber) ((uint64) seg * RELSEG_SIZE + s->offset / BLCKSZ);

		for (int off = 0; off < g->block_size; off += BLCKSZ)
			io_fill_page(s->buf + off, blk++, st->data_rng, &st->stamp, 0);
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

	st = &w->streams[s->stream];
	if (unlikely(st->verify))
		io_verify_end(w, s, now);	/* warm-up included */
	if (!s->measured)
		return;
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

/* Tell the owner how far the run got; the engines call it once a second */
static inline void
io_report(Worker *w, uint64 now)
{
	w->next_report_ns = now + IO_REPORT_NS;
	w->progress(w, now);
}

/* The paced slot due first, or -1 */
static inline int
parked_first(Worker *w)
{
	return w->nparked > 0 ? w->parked[0] : -1;
}

/* io.c */
extern void io_stream_init(Stream *st, const BatchParams *p, int s);
extern void io_alloc_slots(Worker *w, bool huge);
extern void io_free_slots(Worker *w);
extern void parked_push(Worker *w, int slot);
extern int	parked_pop(Worker *w);
extern void io_error(Worker *w, Slot *s, int err, int got);
extern void io_sync_error(Worker *w, Slot *s, int err);
extern void io_engine_error(Worker *w, const char *msg);
extern void io_sleep_until(Worker *w, uint64 due);

#endif							/* RANREAD_IO_H */
