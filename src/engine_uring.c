/*
 * engine_uring.c
 *		The io_uring engine: one worker keeps every slot of its streams in
 *		flight through a single ring.
 *
 * Each loop turn waits for a completion, reaps every completion that is
 * ready (stamped with one clock read when they were seen), and re-arms each
 * freed slot at once: next block, a clock read, one io_uring_enter.
 * Files and buffers are registered with the ring when the kernel allows it,
 * so the kernel skips per-I/O file lookups and page pinning.
 *
 * Under a rate limit a slot whose next I/O is not yet due is parked; the wait
 * then also times out at the earliest due time, and a paced I/O's latency
 * counts from when it was due, not when it went out.
 */
#include "postgres.h"

#include <liburing.h>

#include "worker.h"

#define WAIT_CAP_NS		((uint64) 100 * 1000000)	/* notice a stop within 0.1 s */
#define CQE_BATCH		256
#define MAX_SUBMIT_RETRIES 1000

/* The engine's state, made before the batch starts */
typedef struct UringEngine
{
	struct io_uring ring;
	bool		fixed_files;
	bool		fixed_bufs;
} UringEngine;

/*
 * Can this kernel and this process run the engine?  It needs a ring with a
 * chosen completion queue size, timeouts on the wait (IORING_FEAT_EXT_ARG,
 * Linux 5.11) and the read/write opcodes.  why gets the reason if not.
 */
bool
engine_uring_available(char *why, int whylen)
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
void
engine_uring_prepare(Worker *w)
{
	UringEngine *e = palloc0(sizeof(UringEngine));
	struct io_uring_params params;
	unsigned	sq = pow2_at_least(Min(w->nslots, 4096));
	unsigned	cq = pow2_at_least(Max(w->nslots, 2 * sq));
	int			rc;

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

	e->fixed_files = io_uring_register_files(&e->ring, w->fds, w->p->nsegs) == 0;
	/*
	 * Register the buffers only when they are huge pages: a registered
	 * buffer reaches the device one bvec per page, while an unregistered one
	 * is pinned per I/O and neighbouring physical pages merge into one
	 * segment, which in 4 kB pages is worth more than the saved pinning.
	 */
	if (w->me->pages == PAGES_HUGE && w->nslots <= 16384)
	{
		struct iovec *iov = palloc(sizeof(struct iovec) * w->nslots);

		for (int i = 0; i < w->nslots; i++)
		{
			iov[i].iov_base = w->slots[i].buf;
			iov[i].iov_len = w->p->block_size;
		}
		e->fixed_bufs = io_uring_register_buffers(&e->ring, iov, w->nslots) == 0;
		pfree(iov);
	}
	w->engine = e;
}

/* Queue one prepared slot's I/O; false if the submission queue is stuck */
static inline bool
queue_io(UringEngine *e, Worker *w, int idx)
{
	Slot	   *s = &w->slots[idx];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);
	int			fd = e->fixed_files ? s->seg : w->fds[s->seg];
	unsigned	len = (unsigned) w->p->block_size;

	if (unlikely(sqe == NULL))
	{
		(void) io_uring_submit(&e->ring);
		sqe = io_uring_get_sqe(&e->ring);
		if (sqe == NULL)
			return false;
	}
	if (e->fixed_bufs)
	{
		if (s->is_write)
			io_uring_prep_write_fixed(sqe, fd, s->buf, len, s->offset, idx);
		else
			io_uring_prep_read_fixed(sqe, fd, s->buf, len, s->offset, idx);
	}
	else if (s->is_write)
		io_uring_prep_write(sqe, fd, s->buf, len, s->offset);
	else
		io_uring_prep_read(sqe, fd, s->buf, len, s->offset);
	if (e->fixed_files)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, (uint64) idx);
	return true;
}

/* Stamp a prepared slot and queue it */
static inline bool
arm(UringEngine *e, Worker *w, int idx, uint64 now)
{
	io_stamp(w, &w->slots[idx], now);
	if (unlikely(!queue_io(e, w, idx)))
	{
		worker_engine_error(w, "the io_uring submission queue is stuck");
		return false;
	}
	return true;
}

/*
 * Run the worker's streams to their end.
 *
 * Each I/O is submitted as soon as its slot is free, one io_uring_enter per
 * I/O, as fio does by default: measured on virtio disks, handing the device
 * bursts of requests behind one notification cost about 10% of the IOPS at
 * queue depth 32, while the extra syscalls still leave the engine cheaper
 * per I/O than fio.
 */
void
engine_uring_run(Worker *w)
{
	UringEngine *e = (UringEngine *) w->engine;
	struct io_uring_cqe *cqes[CQE_BATCH];
	int			inflight = 0;
	int			nparked = 0;
	int			failures = 0;
	uint64		rate = w->rate_interval_ns;
	uint64		now = ranread_now_ns();

	/* the first I/O of every slot goes out in one submission */
	for (int i = 0; i < w->nslots; i++)
	{
		if (rate)
		{
			w->slots[i].parked = true;
			nparked++;
		}
		else if (io_may_issue(w, &w->slots[i], now))
		{
			io_prepare(w, &w->slots[i], now);
			if (!arm(e, w, i, now))
				break;
			inflight++;
		}
	}

	for (;;)
	{
		uint64		next_due = UINT64_MAX;
		unsigned	n;
		int			rc;

		/* paced slots whose time has come */
		if (nparked)
		{
			for (int i = 0; i < w->nslots; i++)
			{
				Slot	   *s = &w->slots[i];

				if (!s->parked)
					continue;
				if (!io_may_issue(w, s, Max(now, s->due_ns)))
				{
					s->parked = false;
					nparked--;
				}
				else if (s->due_ns <= now)
				{
					s->parked = false;
					nparked--;
					io_prepare(w, s, now);
					if (arm(e, w, i, now))
						inflight++;
				}
				else
					next_due = Min(next_due, s->due_ns);
			}
		}
		if (inflight == 0 && nparked == 0)
			break;

		/* submit anything queued, and wait for a completion */
		if (nparked)
		{
			uint64		wait = WAIT_CAP_NS;
			struct __kernel_timespec ts;
			struct io_uring_cqe *cqe;

			if (next_due != UINT64_MAX)
				wait = next_due > now ? Min(next_due - now, WAIT_CAP_NS) : 0;
			ts.tv_sec = wait / 1000000000;
			ts.tv_nsec = wait % 1000000000;
			rc = io_uring_submit_and_wait_timeout(&e->ring, &cqe, 1, &ts, NULL);
		}
		else
			rc = io_uring_submit_and_wait(&e->ring, 1);
		if (unlikely(rc < 0 && rc != -ETIME && rc != -EINTR))
		{
			/* -EAGAIN, -EBUSY: the kernel is short of something; retry a while */
			if (++failures > MAX_SUBMIT_RETRIES ||
				(rc != -EAGAIN && rc != -EBUSY))
			{
				worker_engine_error(w, psprintf("io_uring_enter failed: %s", strerror(-rc)));
				break;			/* in-flight I/O dies with the ring */
			}
		}
		else
			failures = 0;

		/* reap what completed, stamped when seen; re-arm each slot at once */
		while ((n = io_uring_peek_batch_cqe(&e->ring, cqes, CQE_BATCH)) > 0)
		{
			now = ranread_now_ns();
			for (unsigned k = 0; k < n; k++)
			{
				struct io_uring_cqe *cqe = cqes[k];
				int			idx;
				Slot	   *s;

				if (unlikely(cqe->user_data == LIBURING_UDATA_TIMEOUT))
					continue;
				idx = (int) cqe->user_data;
				s = &w->slots[idx];
				inflight--;
				if (unlikely(cqe->res != w->p->block_size))
				{
					worker_io_error(w, s, cqe->res < 0 ? -cqe->res : 0, cqe->res);
					continue;
				}
				io_complete(w, s, now);
				if (!io_may_issue(w, s, now))
					continue;
				if (rate)
				{
					s->parked = true;
					nparked++;
					continue;
				}
				io_prepare(w, s, now);
				if (arm(e, w, idx, now))
				{
					inflight++;
					(void) io_uring_submit(&e->ring);
				}
			}
			io_uring_cq_advance(&e->ring, n);
			if (n < CQE_BATCH)
				break;
		}
		now = ranread_now_ns();

		if (unlikely(now >= w->next_report_ns))
			worker_progress(w, now);
	}

	io_uring_queue_exit(&e->ring);
	worker_progress(w, now);
}
