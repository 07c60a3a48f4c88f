/*
 * engine_uring.c
 *		The io_uring engine: one worker keeps every slot of its streams in
 *		flight through a single ring.
 *
 * Each loop turn reaps every completion that is ready (one clock read for
 * the batch: that is when they were seen complete), chooses the next I/O of
 * each freed slot, stamps all of them with one clock read just before the
 * io_uring_enter that submits them, and waits for at least one completion.
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

/* Can this kernel and this process use io_uring?  why gets the reason */
bool
engine_uring_available(char *why, int whylen)
{
	struct io_uring ring;
	int			rc = io_uring_queue_init(2, &ring, 0);

	if (rc < 0)
	{
		snprintf(why, whylen, "%s", strerror(-rc));
		return false;
	}
	io_uring_queue_exit(&ring);
	return true;
}

static unsigned
pow2_at_least(unsigned n)
{
	unsigned	v = 1;

	while (v < n)
		v <<= 1;
	return v;
}

/* Set up the ring with the cheapest flags this kernel takes */
static void
ring_init(Worker *w, struct io_uring *ring, bool *fixed_files, bool *fixed_bufs)
{
	struct io_uring_params params;
	unsigned	sq = pow2_at_least(Min(w->nslots, 4096));
	unsigned	cq = pow2_at_least(Max(w->nslots, 2 * sq));
	int			rc;

	memset(&params, 0, sizeof(params));
	params.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER |
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_DEFER_TASKRUN;
	params.cq_entries = cq;
	rc = io_uring_queue_init_params(sq, ring, &params);
	if (rc == -EINVAL)
	{
		memset(&params, 0, sizeof(params));
		params.flags = IORING_SETUP_CQSIZE;
		params.cq_entries = cq;
		rc = io_uring_queue_init_params(sq, ring, &params);
	}
	if (rc < 0)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not set up io_uring: %s", strerror(-rc)),
				 errhint("SET ranread.engine = sync to use the synchronous engine.")));

	*fixed_files = io_uring_register_files(ring, w->fds, w->p->nsegs) == 0;
	*fixed_bufs = false;
	if (w->nslots <= 16384)
	{
		struct iovec *iov = palloc(sizeof(struct iovec) * w->nslots);

		for (int i = 0; i < w->nslots; i++)
		{
			iov[i].iov_base = w->slots[i].buf;
			iov[i].iov_len = w->p->block_size;
		}
		*fixed_bufs = io_uring_register_buffers(ring, iov, w->nslots) == 0;
		pfree(iov);
	}
}

/* Queue one prepared slot's I/O */
static inline void
queue_io(struct io_uring *ring, Worker *w, int idx, bool fixed_files, bool fixed_bufs)
{
	Slot	   *s = &w->slots[idx];
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	int			fd = fixed_files ? s->seg : w->fds[s->seg];
	unsigned	len = (unsigned) w->p->block_size;

	if (unlikely(sqe == NULL))
	{
		io_uring_submit(ring);
		sqe = io_uring_get_sqe(ring);
	}
	if (fixed_bufs)
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
	if (fixed_files)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, (uint64) idx);
}

/* Run the worker's streams to their end */
void
engine_uring_run(Worker *w)
{
	struct io_uring ring;
	bool		fixed_files;
	bool		fixed_bufs;
	int		   *pending = palloc(sizeof(int) * w->nslots);
	int			npending = 0;
	int			inflight = 0;
	int			nparked = 0;
	uint64		rate = w->rate_interval_ns;
	uint64		now = ranread_now_ns();

	ring_init(w, &ring, &fixed_files, &fixed_bufs);

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
			pending[npending++] = i;
		}
	}

	for (;;)
	{
		struct io_uring_cqe *cqe;
		unsigned	head;
		unsigned	seen = 0;
		uint64		next_due = UINT64_MAX;

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
					pending[npending++] = i;
				}
				else
					next_due = Min(next_due, s->due_ns);
			}
		}

		/* stamp and queue what was chosen, then submit and wait */
		if (npending)
		{
			uint64		t = w->timing ? ranread_now_ns() : now;

			for (int k = 0; k < npending; k++)
			{
				Slot	   *s = &w->slots[pending[k]];

				if (rate)
				{
					s->start_ns = s->due_ns;
					s->due_ns += rate;
				}
				else
					s->start_ns = t;
				queue_io(&ring, w, pending[k], fixed_files, fixed_bufs);
			}
			inflight += npending;
			npending = 0;
		}
		if (inflight == 0 && nparked == 0)
			break;

		if (nparked)
		{
			uint64		wait = WAIT_CAP_NS;
			struct __kernel_timespec ts;

			if (next_due != UINT64_MAX)
				wait = next_due > now ? Min(next_due - now, WAIT_CAP_NS) : 0;
			ts.tv_sec = wait / 1000000000;
			ts.tv_nsec = wait % 1000000000;
			io_uring_submit_and_wait_timeout(&ring, &cqe, 1, &ts, NULL);
		}
		else
			io_uring_submit_and_wait(&ring, 1);
		now = ranread_now_ns();

		io_uring_for_each_cqe(&ring, head, cqe)
		{
			int			idx = (int) cqe->user_data;
			Slot	   *s = &w->slots[idx];

			seen++;
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
			}
			else
			{
				io_prepare(w, s, now);
				pending[npending++] = idx;
			}
		}
		io_uring_cq_advance(&ring, seen);

		if (unlikely(now >= w->next_report_ns))
			worker_progress(w, now);
	}

	io_uring_queue_exit(&ring);
	worker_progress(w, now);
}
