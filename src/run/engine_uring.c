/*
 * engine_uring.c
 *		The io_uring engine: one worker keeps every slot of its streams in
 *		flight through a single ring.  It runs in a batch's background
 *		workers and, for setup's fill, in the calling backend; prepare makes
 *		the ring before the worker counts itself ready, run is the hot loop,
 *		release closes the ring (engine.h).
 *
 * The loop: wait for a completion (at most 0.1 s, so that a stop is noticed
 * even when the device hangs), reap every completion that is ready, stamped
 * with one clock read when they were seen, and re-arm each freed slot at
 * once: next block, one io_uring_enter (the last one's is the wait's that
 * follows, which submits it).  Each re-armed I/O's latency starts
 * at that same clock read, when its slot became free (io.h says why):
 * if a submit blocks because the storage takes only so many requests in
 * flight, the slots re-armed after it count the wait.  Files are registered
 * with the ring, and buffers too when they are in huge pages, so the kernel
 * skips per-I/O file lookups and page pinning.
 *
 * A write whose group syncs (the sync option) carries RWF_DSYNC or RWF_SYNC
 * for the open_* methods; for fdatasync and fsync it is linked to an fsync
 * of its file, and the slot is free when the fsync completes (the write's
 * own completion only counts when it failed).
 *
 * Under a rate limit a slot whose next I/O is not yet due is parked in a
 * heap ordered by due time; the wait then also times out at the earliest due
 * time, and a paced I/O's latency counts from when it was due.
 */
#include "postgres.h"

#include <liburing.h>

#include "engine.h"
#include "io.h"

#define WAIT_CAP_NS		((uint64) 100 * 1000000)	/* notice a stop within 0.1 s */
#define HUNG_GRACE_NS	((uint64) 5 * 1000000000)	/* in flight after a stop */
#define CQE_BATCH		256
#define MAX_SUBMIT_RETRIES 1000
#define LINKED_WRITE	((uint64) 1 << 62)	/* user_data: a write an fsync follows */

/* The engine's state, made before the batch starts */
typedef struct UringEngine
{
	struct io_uring ring;
	bool		fixed_files;
	bool		fixed_bufs;
	int			inflight;
	bool		hung;			/* the run gave up on I/O in flight */
} UringEngine;

/*
 * Can this kernel and this process run the engine?  It needs a ring with a
 * chosen completion queue size, timeouts on the wait (IORING_FEAT_EXT_ARG,
 * Linux 5.11) and the read/write opcodes.  why gets the reason if not.
 */
static bool
uring_available(char *why, int whylen)
{
	struct io_uring ring;
	struct io_uring_params params;
	struct io_uring_probe *probe;
	int			rc;
	bool		ok = true;

	memset(&params, 0, sizeof(params));
	params.flags = IORING_SETUP_CQSIZE;
	params.cq_entries = 4;
	rc = io_uring_queue_init_params(2, &ring, &params);
	if (rc < 0)
	{
		snprintf(why, whylen, "%s", strerror(-rc));
		return false;
	}
	probe = io_uring_get_probe_ring(&ring);
	if (!(params.features & IORING_FEAT_EXT_ARG))
	{
		snprintf(why, whylen, "the kernel lacks IORING_FEAT_EXT_ARG (Linux 5.11)");
		ok = false;
	}
	else if (probe == NULL ||
			 !io_uring_opcode_supported(probe, IORING_OP_READ) ||
			 !io_uring_opcode_supported(probe, IORING_OP_WRITE) ||
			 !io_uring_opcode_supported(probe, IORING_OP_READ_FIXED) ||
			 !io_uring_opcode_supported(probe, IORING_OP_WRITE_FIXED))
	{
		snprintf(why, whylen, "the kernel lacks the io_uring read and write operations");
		ok = false;
	}
	if (probe)
		io_uring_free_probe(probe);
	io_uring_queue_exit(&ring);
	return ok;
}

static unsigned
pow2_at_least(unsigned n)
{
	unsigned	v = 1;

	while (v < n)
		v <<= 1;
	return v;
}

/*
 * Set up the ring with the cheapest flags this kernel takes, and register
 * the files and buffers.  Runs before the worker counts itself ready, so
 * none of it lands in the measured time.
 */
static void
uring_prepare(Worker *w)
{
	UringEngine *e = palloc0(sizeof(UringEngine));
	struct io_uring_params params;
	bool		linked = false;
	unsigned	sq;
	unsigned	cq;
	int			rc;

	/*
	 * A write with an fsync linked behind it takes two entries.  An I/O of
	 * several writes (the commit test's) is the synchronous engine's only:
	 * the leader gives those batches to it (leader.c, settle_engine).
	 */
	for (int i = 0; i < w->nstreams; i++)
	{
		Assert(w->streams[i].g->writes_per_op == 1);
		if (w->streams[i].g->sync == SYNC_FDATASYNC || w->streams[i].g->sync == SYNC_FSYNC)
			linked = true;
	}
	sq = pow2_at_least(linked ? Min(w->nslots * 2, 8192) : Min(w->nslots, 4096));
	/* the kernel takes at most 65536; beyond, completions wait in its overflow list */
	cq = Min(pow2_at_least(Max(w->nslots * (linked ? 2 : 1), 2 * sq)), 65536);
	memset(&params, 0, sizeof(params));
	params.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER |
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_DEFER_TASKRUN;
	params.cq_entries = cq;
	rc = io_uring_queue_init_params(sq, &e->ring, &params);
	if (rc == -EINVAL)
	{
		memset(&params, 0, sizeof(params));
		params.flags = IORING_SETUP_CQSIZE;
		params.cq_entries = cq;
		rc = io_uring_queue_init_params(sq, &e->ring, &params);
	}
	if (rc < 0)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not set up io_uring: %s", strerror(-rc)),
				 errhint("SET ranread.engine = sync to use the synchronous engine.")));

	e->fixed_files = io_uring_register_files(&e->ring, w->fds, w->nfds) == 0;

	/*
	 * Register the buffers only when they are huge pages: a registered
	 * buffer reaches the device one bvec per page, while an unregistered one
	 * is pinned per I/O and neighbouring physical pages merge into one
	 * segment, which in 4 kB pages is worth more than the saved pinning.
	 * And only when the whole batch's fit the locked memory the server may
	 * pin (BatchParams.register_buffers, iobuf.c); setup's fill has no batch.
	 */
	if (w->pages == PAGES_HUGE && w->nslots <= 16384 && (w->p->claim == 0 || w->p->register_buffers))
	{
		struct iovec *iov = palloc(sizeof(struct iovec) * w->nslots);

		for (int i = 0; i < w->nslots; i++)
		{
			iov[i].iov_base = w->slots[i].buf;
			iov[i].iov_len = w->slots[i].len;
		}
		e->fixed_bufs = io_uring_register_buffers(&e->ring, iov, w->nslots) == 0;
		pfree(iov);
	}
	w->registered = e->fixed_bufs;
	w->engine = e;
}

/* Is this slot's I/O a write with an fsync linked behind it? */
static inline bool
synced_by_call(Worker *w, Slot *s)
{
	RanreadSync sync = w->streams[s->stream].g->sync;

	return s->is_write && (sync == SYNC_FDATASYNC || sync == SYNC_FSYNC);
}

/* A free submission queue entry; NULL if the queue is stuck */
static inline struct io_uring_sqe *
next_sqe(UringEngine *e)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);

	if (unlikely(sqe == NULL))
	{
		(void) io_uring_submit(&e->ring);
		sqe = io_uring_get_sqe(&e->ring);
	}
	return sqe;
}

/* A write's sync: per-write flags, or an fsync linked behind it */
static bool
queue_sync(UringEngine *e, Worker *w, int idx, struct io_uring_sqe *write)
{
	Slot	   *s = &w->slots[idx];
	RanreadSync sync = w->streams[s->stream].g->sync;
	struct io_uring_sqe *sqe;

	if (sync == SYNC_OPEN_DATASYNC || sync == SYNC_OPEN_SYNC)
	{
		write->rw_flags = sync == SYNC_OPEN_DATASYNC ? RWF_DSYNC : RWF_SYNC;
		return true;
	}
	write->flags |= IOSQE_IO_LINK;
	io_uring_sqe_set_data64(write, (uint64) idx | LINKED_WRITE);
	if ((sqe = next_sqe(e)) == NULL)
		return false;
	io_uring_prep_fsync(sqe, e->fixed_files ? s->file : w->fds[s->file],
						sync == SYNC_FDATASYNC ? IORING_FSYNC_DATASYNC : 0);
	if (e->fixed_files)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, (uint64) idx);
	return true;
}

/* Queue one prepared slot's I/O; false if the submission queue is stuck */
static inline bool
queue_io(UringEngine *e, Worker *w, int idx)
{
	Slot	   *s = &w->slots[idx];
	struct io_uring_sqe *sqe;
	int			fd = e->fixed_files ? s->file : w->fds[s->file];

	/* a link does not span submissions: a write and its fsync go in one */
	if (unlikely(synced_by_call(w, s)) && io_uring_sq_space_left(&e->ring) < 2)
		(void) io_uring_submit(&e->ring);
	if (unlikely((sqe = next_sqe(e)) == NULL))
		return false;
	if (e->fixed_bufs)
	{
		if (s->is_write)
			io_uring_prep_write_fixed(sqe, fd, s->buf, s->len, s->offset, idx);
		else
			io_uring_prep_read_fixed(sqe, fd, s->buf, s->len, s->offset, idx);
	}
	else if (s->is_write)
		io_uring_prep_write(sqe, fd, s->buf, s->len, s->offset);
	else
		io_uring_prep_read(sqe, fd, s->buf, s->len, s->offset);
	if (e->fixed_files)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, (uint64) idx);
	if (unlikely(s->is_write && w->streams[s->stream].g->sync != SYNC_NONE))
		return queue_sync(e, w, idx, sqe);
	return true;
}

/* Prepare, stamp and queue a slot's next I/O (not yet submitted) */
static inline void
arm(UringEngine *e, Worker *w, int idx, uint64 now)
{
	Slot	   *s = &w->slots[idx];

	io_prepare(w, s, now);
	io_stamp(w, s, now);
	if (unlikely(!queue_io(e, w, idx)))
	{
		io_engine_error(w, "the io_uring submission queue is stuck");
		return;
	}
	e->inflight++;
}

/*
 * Give a freed slot its next I/O now, park it until due, or let it rest.
 * It goes out at once (submit), unless it is the last of the completions
 * seen together: then the wait that follows submits it in the same
 * io_uring_enter, one system call fewer per reap and nothing later.
 */
static inline void
rearm(UringEngine *e, Worker *w, int idx, uint64 now, bool submit)
{
	Slot	   *s = &w->slots[idx];

	if (!io_may_issue(w, s, Max(now, s->due_ns)))
		return;
	if (s->rate_interval_ns && s->due_ns > now)
		parked_push(w, idx);
	else
	{
		arm(e, w, idx, now);
		if (submit)
			(void) io_uring_submit(&e->ring);
	}
}

/* Arm the parked slots whose time has come; returns the next due time */
static uint64
unpark(UringEngine *e, Worker *w, uint64 now)
{
	int			idx;

	while ((idx = parked_first(w)) >= 0 && w->slots[idx].due_ns <= now)
	{
		(void) parked_pop(w);
		if (io_may_issue(w, &w->slots[idx], w->slots[idx].due_ns))
			arm(e, w, idx, now);
	}
	return idx >= 0 ? w->slots[idx].due_ns : UINT64_MAX;
}

/*
 * Submit what is queued and wait for a completion, at most until the next
 * due time or WAIT_CAP_NS.  Returns false when the ring has failed.
 */
static bool
submit_and_wait(UringEngine *e, Worker *w, uint64 now, uint64 next_due, int *failures)
{
	uint64		wait = WAIT_CAP_NS;
	struct __kernel_timespec ts;
	struct io_uring_cqe *cqe;
	int			rc;

	if (next_due != UINT64_MAX)
		wait = next_due > now ? Min(next_due - now, WAIT_CAP_NS) : 0;
	ts.tv_sec = wait / 1000000000;
	ts.tv_nsec = wait % 1000000000;
	rc = io_uring_submit_and_wait_timeout(&e->ring, &cqe, 1, &ts, NULL);
	if (likely(rc >= 0 || rc == -ETIME || rc == -EINTR))
	{
		*failures = 0;
		return true;
	}
	/* -EAGAIN, -EBUSY: the kernel is short of something; retry a while */
	if ((rc == -EAGAIN || rc == -EBUSY) && ++*failures <= MAX_SUBMIT_RETRIES)
		return true;
	io_engine_error(w, psprintf("io_uring_enter failed: %s", strerror(-rc)));
	return false;
}

/* Reap every completion there is; each freed slot is re-armed at once */
static uint64
reap(UringEngine *e, Worker *w)
{
	struct io_uring_cqe *cqes[CQE_BATCH];
	unsigned	n;
	uint64		now = 0;

	while ((n = io_uring_peek_batch_cqe(&e->ring, cqes, CQE_BATCH)) > 0)
	{
		now = ranread_now_ns();
		for (unsigned k = 0; k < n; k++)
		{
			int			idx;
			Slot	   *s;

			if (unlikely(cqes[k]->user_data == LIBURING_UDATA_TIMEOUT))
				continue;
			if (unlikely(cqes[k]->user_data & LINKED_WRITE))
			{
				/* the fsync behind it completes the slot; a failure ends the batch */
				s = &w->slots[(int) (cqes[k]->user_data & ~LINKED_WRITE)];
				if (cqes[k]->res != (int) s->len)
					io_error(w, s, cqes[k]->res < 0 ? -cqes[k]->res : 0, cqes[k]->res);
				continue;
			}
			idx = (int) cqes[k]->user_data;
			s = &w->slots[idx];
			e->inflight--;
			if (unlikely(cqes[k]->res != (synced_by_call(w, s) ? 0 : (int) s->len)))
			{
				if (synced_by_call(w, s))
				{
					/* -ECANCELED: its write failed, and said so */
					if (cqes[k]->res != -ECANCELED)
						io_sync_error(w, s, -cqes[k]->res);
					continue;
				}
				io_error(w, s, cqes[k]->res < 0 ? -cqes[k]->res : 0, cqes[k]->res);
				continue;
			}
			io_complete(w, s, now);
			rearm(e, w, idx, now, k + 1 < n || n == CQE_BATCH);
		}
		io_uring_cq_advance(&e->ring, n);
		if (n < CQE_BATCH)
			break;
	}
	return now;
}

/*
 * Run the worker's streams to their end, or until they are stopped.  The
 * ring stays until uring_release, so a run stopped by an interrupt that was
 * not a cancel (the fill's) can go on.
 */
static void
uring_run(Worker *w)
{
	UringEngine *e = (UringEngine *) w->engine;
	uint64		now = ranread_now_ns();
	uint64		stopped_at = 0;
	int			failures = 0;

	/* every unpaced slot's first I/O goes out in one submission */
	for (int i = 0; i < w->nslots; i++)
	{
		if (w->slots[i].rate_interval_ns)
			parked_push(w, i);
		else if (io_may_issue(w, &w->slots[i], now))
			arm(e, w, i, now);
	}

	for (;;)
	{
		uint64		next_due = unpark(e, w, now);

		if (e->inflight == 0 && w->nparked == 0)
			break;
		if (!submit_and_wait(e, w, now, next_due, &failures))
			break;				/* in-flight I/O dies with the ring */
		(void) reap(e, w);
		now = ranread_now_ns();
		if (unlikely(now >= w->next_report_ns))
			io_report(w, now);

		/* stopped: parked slots rest; a device that never answers is given up */
		if (unlikely(io_stopping(w)))
		{
			w->nparked = 0;
			if (stopped_at == 0)
				stopped_at = now;
			else if (e->inflight > 0 && now - stopped_at > HUNG_GRACE_NS)
			{
				io_engine_error(w, psprintf("%d I/Os were still in flight %.0f s after the batch stopped; the device may hang",
											e->inflight, HUNG_GRACE_NS / 1e9));
				e->hung = true;
				break;
			}
		}
	}
	io_report(w, now);
}

/*
 * Close the ring.  An ERROR thrown out of a run (by the owner's progress)
 * may have left I/O in flight: wait for it a while first, so that no buffer
 * is unmapped while the device still fills or reads it (unless the run has
 * waited as long already, and given up).
 */
static void
uring_release(Worker *w)
{
	UringEngine *e = (UringEngine *) w->engine;
	uint64		deadline = ranread_now_ns() + HUNG_GRACE_NS;

	if (e == NULL)
		return;
	while (e->inflight > 0 && !e->hung && ranread_now_ns() < deadline)
	{
		struct __kernel_timespec ts = {0, (long long) WAIT_CAP_NS};
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe_timeout(&e->ring, &cqe, &ts) != 0)
			continue;
		/* a linked write's own completion frees no slot: its fsync's does */
		if (cqe->user_data != LIBURING_UDATA_TIMEOUT && !(cqe->user_data & LINKED_WRITE))
			e->inflight--;
		io_uring_cqe_seen(&e->ring, cqe);
	}
	io_uring_queue_exit(&e->ring);
	pfree(e);
	w->engine = NULL;
}

const EngineOps engine_uring_ops = {
	.name = "io_uring",
	.max_queue_depth = RANREAD_MAX_QUEUE_DEPTH,
	.one_stream_per_worker = false,
	.available = uring_available,
	.prepare = uring_prepare,
	.run = uring_run,
	.release = uring_release,
};
