/*
 * fill.c
 *		Writing every block of a new target: valid, empty heap pages whose
 *		free space holds pseudo-random bytes, each page different.
 *
 * The segment files are opened with O_DIRECT and written in 1 MiB chunks,
 * eight in flight through io_uring (synchronous pwrite where io_uring is not
 * allowed), then fdatasync'd and dropped from the page cache.  Nothing is
 * sparse or fallocated: reads of unwritten extents return zeros without
 * touching the device, and compressing or deduplicating storage flatters
 * repeated patterns.  The buffers are the huge-page I/O buffers of iobuf.c.
 * The caller created the relation in its transaction, so an error here
 * (a full disk, a cancel) rolls it back and the server unlinks every
 * segment written so far.
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>
#include <liburing.h>

#include "common/file_perm.h"
#include "miscadmin.h"
#include "storage/pmsignal.h"

#include "engine.h"
#include "io.h"
#include "iobuf.h"
#include "target.h"

#define FILL_CHUNK			(1024 * 1024)
#define FILL_DEPTH			8
#define FILL_PROGRESS_NS	((uint64) 5 * 1000000000)

/* The fill: what it writes to and how far it got */
typedef struct Filler
{
	int		   *fds;
	int			nsegs;
	char	   *bufs;
	bool		uring;
	struct io_uring ring;
	int			inflight;
	uint64		rng[4];
	const char *target;
} Filler;


/* A write came back short or with ENOSPC: the filesystem is full */
static pg_attribute_noreturn() void
fill_disk_full(Filler *f)
{
	ereport(ERROR,
			(errcode(ERRCODE_DISK_FULL),
			 errmsg("could not write target \"%s\": no space left on device", f->target),
			 errdetail("The target was removed; nothing was kept."),
			 errhint("Free space in the tablespace or choose a smaller size.")));
}
/*
 * The postmaster died during the fill: leave at once, so that the server
 * can be started again (pg_ctl start waits for every child of the old one).
 * Not through the transaction's abort, as a FATAL would: that removes the
 * new relation's init fork at once and its main fork only at the next
 * checkpoint, while the abort's WAL record stays in the buffers no WAL
 * writer flushes any more; crash recovery then finds the init fork again in
 * the WAL and a main fork in its way, and the server cannot start.  Exiting
 * like a crashed backend leaves both forks to crash recovery, which resets
 * the unlogged relation as it should (an orphan of the transaction that
 * never committed, as after any crash).
 */
static pg_attribute_noreturn() void
fill_postmaster_died(Filler *f)
{
	ereport(LOG,
			(errmsg("terminating ranread_setup of target \"%s\" because the postmaster exited", f->target)));
	_exit(1);
}

/* Wait for in-flight writes; with check, error on a failed or short one */
static void
fill_reap(Filler *f, bool wait_all, bool check, uint32 *free_stack, int *nfree)
{
	struct io_uring_cqe *cqe;

	while (f->inflight > 0)
	{
		int			rc;

		if (wait_all || *nfree == 0)
			rc = io_uring_wait_cqe(&f->ring, &cqe);
		else
			rc = io_uring_peek_cqe(&f->ring, &cqe);
		if (rc == -EINTR)
			continue;
		if (rc == -EAGAIN)
			break;
		if (rc < 0)
			ereport(ERROR,
					(errcode(ERRCODE_IO_ERROR),
					 errmsg("io_uring wait failed while filling target \"%s\": %s",
							f->target, strerror(-rc))));
		{
			int			res = cqe->res;
			uint32		slot = (uint32) (cqe->user_data & 0xffffffff);
			uint32		want = (uint32) (cqe->user_data >> 32);

			io_uring_cqe_seen(&f->ring, cqe);
			f->inflight--;
			free_stack[(*nfree)++] = slot;
			if (check && res != (int) want)
			{
				if (res == -ENOSPC || (res >= 0 && res < (int) want))
					fill_disk_full(f);
				ereport(ERROR,
						(errcode(ERRCODE_IO_ERROR),
						 errmsg("could not write target \"%s\": %s", f->target, strerror(-res))));
			}
		}
	}
}

/* Write every block of the target; returns bytes written */
static void
fill_target(Filler *f, const char *relpath, int64 size)
{
	uint64		total_blocks = size / BLCKSZ;
	uint64		next = 0;
	uint64		start_ns = ranread_now_ns();
	uint64		last_note = start_ns;
	uint32		free_stack[FILL_DEPTH];
	int			nfree = FILL_DEPTH;

	for (int i = 0; i < FILL_DEPTH; i++)
		free_stack[i] = i;

	while (next < total_blocks)
	{
		int			seg = (int) (next / RELSEG_SIZE);
		uint64		in_seg = next % RELSEG_SIZE;
		uint32		nblk = (uint32) Min(Min((uint64) (FILL_CHUNK / BLCKSZ), total_blocks - next),
										(uint64) RELSEG_SIZE - in_seg);
		uint32		slot;
		char	   *buf;

		CHECK_FOR_INTERRUPTS();
		/* a chunk takes milliseconds: a dead postmaster is noticed at once */
		if (!PostmasterIsAlive())
			fill_postmaster_died(f);
		if (nfree == 0)
			fill_reap(f, false, true, free_stack, &nfree);
		slot = free_stack[--nfree];
		buf = f->bufs + (Size) slot * FILL_CHUNK;
		for (uint32 b = 0; b < nblk; b++)
			io_fill_page(buf + (Size) b * BLCKSZ, (BlockNumber) (next + b), f->rng);

		if (f->uring)
		{
			struct io_uring_sqe *sqe = io_uring_get_sqe(&f->ring);

			io_uring_prep_write(sqe, f->fds[seg], buf, nblk * BLCKSZ, in_seg * BLCKSZ);
			io_uring_sqe_set_data64(sqe, ((uint64) (nblk * BLCKSZ) << 32) | slot);
			f->inflight++;
			io_uring_submit(&f->ring);
		}
		else
		{
			ssize_t		rc = pwrite(f->fds[seg], buf, nblk * BLCKSZ, in_seg * BLCKSZ);

			free_stack[nfree++] = slot;
			if (rc != (ssize_t) (nblk * BLCKSZ))
			{
				if ((rc < 0 && errno == ENOSPC) || rc >= 0)
					fill_disk_full(f);
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not write target \"%s\": %m", f->target)));
			}
		}
		next += nblk;

		if (ranread_now_ns() - last_note >= FILL_PROGRESS_NS)
		{
			double		secs = (ranread_now_ns() - start_ns) / 1e9;

			last_note = ranread_now_ns();
			ereport(NOTICE,
					(errmsg("ranread_setup: %.1f of %.1f GB written (%.0f%%), %.0f MB/s",
							next * (double) BLCKSZ / 1e9, size / 1e9,
							100.0 * next / total_blocks,
							next * (double) BLCKSZ / 1048576.0 / secs)));
		}
	}
	if (f->uring)
		fill_reap(f, true, true, free_stack, &nfree);
}

/* Open (creating all but the first) segment files of a new target */
static void
open_segments(Filler *f, const char *relpath, const char *spcname)
{
	for (int s = 0; s < f->nsegs; s++)
	{
		char	   *path = s == 0 ? pstrdup(relpath) : psprintf("%s.%d", relpath, s);
		int			flags = O_RDWR | O_DIRECT | PG_BINARY | (s == 0 ? 0 : O_CREAT | O_EXCL);

		f->fds[s] = open(path, flags, pg_file_create_mode);
		if (f->fds[s] < 0)
		{
			if (errno == EINVAL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("the filesystem of tablespace \"%s\" does not support O_DIRECT",
								spcname),
						 errdetail("ranread reads with O_DIRECT so that no page cache answers."),
						 errhint("Create the target in a tablespace on a filesystem with direct I/O, such as ext4 or xfs.")));
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open \"%s\": %m", path)));
		}
	}
}

/* Close and flush the segment files; drop them from the page cache */
static void
close_segments(Filler *f, bool sync)
{
	for (int s = 0; s < f->nsegs; s++)
	{
		if (f->fds[s] < 0)
			continue;
		if (sync && fdatasync(f->fds[s]) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not flush target \"%s\": %m", f->target)));
		(void) posix_fadvise(f->fds[s], 0, 0, POSIX_FADV_DONTNEED);
		close(f->fds[s]);
		f->fds[s] = -1;
	}
}


/*
 * Write every block of a new target whose (empty) relation has its first
 * segment at relpath; returns the seconds the fill took.
 */
double
target_fill(const char *target, const char *relpath, const char *spcname, int64 size)
{
	Filler		f;
	bool		huge = ranread_huge_pages_guc;
	uint64		start_ns;

	memset(&f, 0, sizeof(f));
	f.target = target;
	f.nsegs = (int) ((size / BLCKSZ + RELSEG_SIZE - 1) / RELSEG_SIZE);
	f.fds = palloc(sizeof(int) * f.nsegs);
	for (int s = 0; s < f.nsegs; s++)
		f.fds[s] = -1;
	rng_seed(f.rng, ranread_now_ns() ^ ((uint64) MyProcPid << 32));
	f.bufs = ranread_iobuf_alloc((Size) FILL_CHUNK * FILL_DEPTH, huge, NULL);
	if (f.bufs == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	{
		char		why[128];

		/* the fill uses io_uring only where a batch could */
		f.uring = ranread_engine_guc != ENGINE_SYNC && engine_uring_ops.available(why, sizeof(why)) &&
			io_uring_queue_init(FILL_DEPTH, &f.ring, 0) == 0;
	}
	ranread_raise_fd_limit();

	start_ns = ranread_now_ns();
	PG_TRY();
	{
		open_segments(&f, relpath, spcname);
		fill_target(&f, relpath, size);
		close_segments(&f, true);
	}
	PG_FINALLY();
	{
		/* never free a buffer the kernel may still read */
		if (f.uring)
		{
			uint32		dummy[FILL_DEPTH];
			int			nfree = 0;

			fill_reap(&f, true, false, dummy, &nfree);
			io_uring_queue_exit(&f.ring);
		}
		close_segments(&f, false);
		ranread_iobuf_free(f.bufs, (Size) FILL_CHUNK * FILL_DEPTH, huge);
	}
	PG_END_TRY();
	return (ranread_now_ns() - start_ns) / 1e9;
}
