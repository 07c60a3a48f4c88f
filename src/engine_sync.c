/*
 * engine_sync.c
 *		The synchronous engine: one stream per worker, one pread or pwrite at
 *		a time.  Used where io_uring is not allowed (kernel.io_uring_disabled,
 *		seccomp, old kernels) or when ranread.engine = sync.
 */
#include "postgres.h"

#include <time.h>
#include <unistd.h>

#include "worker.h"

/* Sleep until the monotonic clock reads due (or a stop) */
static void
sleep_until(Worker *w, uint64 due)
{
	struct timespec ts;

	ts.tv_sec = due / 1000000000;
	ts.tv_nsec = due % 1000000000;
	while (*w->stop == STOP_NONE &&
		   clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Run the worker's single stream to its end */
void
engine_sync_run(Worker *w)
{
	Slot	   *s = &w->slots[0];
	int			bs = w->p->block_size;
	uint64		now = ranread_now_ns();

	for (;;)
	{
		ssize_t		rc;

		if (w->rate_interval_ns)
		{
			if (s->due_ns > now)
			{
				sleep_until(w, s->due_ns);
				now = ranread_now_ns();
			}
		}
		if (!io_may_issue(w, s, now))
			break;
		io_prepare(w, s, now);
		s->start_ns = w->rate_interval_ns ? s->due_ns : w->timing ? ranread_now_ns() : now;
		s->due_ns += w->rate_interval_ns;

		if (s->is_write)
			rc = pwrite(w->fds[s->seg], s->buf, bs, s->offset);
		else
			rc = pread(w->fds[s->seg], s->buf, bs, s->offset);
		now = ranread_now_ns();
		if (unlikely(rc != bs))
		{
			worker_io_error(w, s, rc < 0 ? errno : 0, (int) rc);
			break;
		}
		io_complete(w, s, now);
		if (unlikely(now >= w->next_report_ns))
			worker_progress(w, now);
	}
	worker_progress(w, now);
}
