/*
 * engine_sync.c
 *		The synchronous engine: one stream per worker, one pread or pwrite at
 *		a time.  The leader chooses it where io_uring is not allowed
 *		(kernel.io_uring_disabled, seccomp, old kernels) or when
 *		ranread.engine = sync, and for a batch whose every worker keeps a
 *		single I/O in flight (one process at queue depth 1 each), where a
 *		plain syscall costs less than a ring; setup's fill uses it wherever
 *		io_uring is not to be used.  It needs no state of its own: no prepare,
 *		no release.
 */
#include "postgres.h"

#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "miscadmin.h"

#include "engine.h"
#include "io.h"

/*
 * A write that the group's sync option makes durable, as the server's
 * wal_sync_method would: the open_* methods as per-write flags (what O_DSYNC
 * and O_SYNC do to each write), fdatasync and fsync as a call after the
 * write.  The commit test writes an op as several pieces (2 x 8 kB, 16 x
 * 1 kB) before the one sync.  Returns len; what was written when a piece
 * came back short; -1 with errno when a write failed, SYNC_FAILED with errno
 * when the sync did.
 */
#define SYNC_FAILED (-2)

static ssize_t
write_durably(int fd, Slot *s, const GroupParams *g)
{
	int			pieces = g->writes_per_op;
	size_t		piece = s->len / pieces;
	int			flags = g->sync == SYNC_OPEN_DATASYNC ? RWF_DSYNC :
		g->sync == SYNC_OPEN_SYNC ? RWF_SYNC : 0;

	for (int k = 0; k < pieces; k++)
	{
		struct iovec iov = {s->buf + k * piece, piece};
		ssize_t		rc = pwritev2(fd, &iov, 1, s->offset + k * piece, flags);

		if (rc != (ssize_t) piece)
			return rc < 0 ? rc : (ssize_t) (k * piece) + rc;
	}
	if ((g->sync == SYNC_FDATASYNC && fdatasync(fd) != 0) ||
		(g->sync == SYNC_FSYNC && fsync(fd) != 0))
		return SYNC_FAILED;
	return s->len;
}

/*
 * Run the worker's single stream to its end, or until it is stopped.  Each
 * I/O's latency starts when the previous one completed (io.h), or when it
 * was due under a rate limit.
 */
static void
sync_run(Worker *w)
{
	Slot	   *s = &w->slots[0];
	int			len = (int) s->len;
	const GroupParams *g = w->streams[s->stream].g;
	bool		durable = g->sync != SYNC_NONE || g->writes_per_op > 1;
	uint64		now = ranread_now_ns();

	Assert(w->nslots == 1);
	for (;;)
	{
		ssize_t		rc;

		if (s->rate_interval_ns)
		{
			if (s->due_ns > now)
			{
				io_sleep_until(w, s->due_ns);
				now = ranread_now_ns();
			}
		}
		if (!io_may_issue(w, s, now))
			break;
		io_prepare(w, s, now);
		io_stamp(w, s, now);

		if (s->is_write && unlikely(durable))
			rc = write_durably(w->fds[s->file], s, g);
		else if (s->is_write)
			rc = pwrite(w->fds[s->file], s->buf, len, s->offset);
		else
			rc = pread(w->fds[s->file], s->buf, len, s->offset);
		now = ranread_now_ns();
		if (unlikely(rc != len))
		{
			if (rc == SYNC_FAILED)
				io_sync_error(w, s, errno);
			else
				io_error(w, s, rc < 0 ? errno : 0, (int) rc);
			break;
		}
		io_complete(w, s, now);
		if (unlikely(now >= w->next_report_ns))
			io_report(w, now);
	}
	io_report(w, now);
}

/* Always there: pread and pwrite */
static bool
sync_available(char *why, int whylen)
{
	return true;
}

const EngineOps engine_sync_ops = {
	.name = "sync",
	.max_queue_depth = 1,
	.one_stream_per_worker = true,
	.available = sync_available,
	.run = sync_run,
};
