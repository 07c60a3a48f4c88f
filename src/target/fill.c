/*
 * fill.c
 *		Writing every block of a new target: valid, empty heap pages whose
 *		free space holds pseudo-random bytes, each page different.
 *
 * The fill runs in the backend that calls ranread_setup, through the same
 * engine loop as a batch's workers (engine.h, io.h).  It describes itself
 * as a small batch with no claim: one target and one process that writes
 * it from the first block to the last, in 1 MiB writes eight in flight
 * through io_uring, or one at a time with pwrite where a batch would not
 * use io_uring (ranread.engine = sync, or not allowed here); a tail shorter
 * than 1 MiB is a second such process of 8 kB writes, run after it.
 * io_prepare makes each write's pages (io_fill_page, stamped for the
 * block as setup's, batch 0, and with the block's checksum: verify.h) just
 * before it goes out, so ranread_verify can check a fresh target.  The
 * segment files are opened with O_DIRECT and, once written, fdatasync'd
 * and dropped from the page cache.
 * Nothing is sparse or fallocated: reads of unwritten extents return zeros
 * without touching the device, and compressing or deduplicating storage
 * flatters repeated patterns.  The buffers are the huge-page I/O buffers of
 * iobuf.c.
 *
 * The engine's loop never throws: any interrupt (InterruptPending), a dead
 * postmaster or a failed write stops it, with nothing in flight, and the
 * fill acts outside it.  A dead postmaster: leave at once.  A failed write:
 * a disk-full or I/O error.  An interrupt: CHECK_FOR_INTERRUPTS, which
 * errors out on a cancel or a terminate, and after anything else the loop
 * goes on where it stopped.  The loop's progress call, once a second,
 * publishes the bytes written for ranread_progress (progress.c) and brings
 * a NOTICE every 5 s.  The caller created the relation in its
 * transaction, so an error here (a full disk, a cancel) rolls it back and
 * the server unlinks every segment written so far.
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>

#include "common/file_perm.h"
#include "miscadmin.h"
#include "storage/pmsignal.h"

#include "engine.h"
#include "fill.h"
#include "io.h"
#include "progress.h"

#define FILL_CHUNK			(1024 * 1024)
#define FILL_DEPTH			8
#define FILL_PROGRESS_NS	((uint64) 5 * 1000000000)

/* The fill: the loop's state first, so that fill_progress finds the rest */
typedef struct Filler
{
	Worker		w;				/* of the pass that runs */
	Stream		stream;
	const EngineOps *ops;		/* the engine that writes */
	BatchParams *p;				/* the fill as a batch: a group per pass */
	StreamStats *stats;
	int		   *fds;
	int			nsegs;
	const char *target;
	Oid			relid;			/* the target's relation: its pages' stamp */
	int64		size;
	uint64		done_blocks;	/* by the passes before this one */
	uint64		start_ns;
	uint64		last_note_ns;
} Filler;

/* A fill stops no batch and is stopped by none */
static volatile uint32 fill_stop = STOP_NONE;
static volatile sig_atomic_t fill_no_interrupt = false;

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

/* The loop stopped on a failure: say which */
static pg_attribute_noreturn() void
fill_failed(Filler *f)
{
	Worker	   *w = &f->w;

	if (w->failure == IO_SHORT || (w->failure == IO_FAILED && w->failure_errno == ENOSPC))
		fill_disk_full(f);
	ereport(ERROR,
			(errcode(ERRCODE_IO_ERROR),
			 w->failure == IO_FAILED ? errmsg("%s", w->error) :
			 errmsg("could not write target \"%s\": %s", f->target, w->error),
			 errdetail("The target was removed; nothing was kept.")));
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

/* The loop's progress: a NOTICE every FILL_PROGRESS_NS */
static void
fill_progress(Worker *w, uint64 now)
{
	Filler	   *f = (Filler *) w;
	uint64		next = f->done_blocks + w->ios * (w->streams[0].g->block_size / BLCKSZ);
	double		secs = (now - f->start_ns) / 1e9;

	progress_bytes("writing", next * BLCKSZ, f->size, secs);
	if (now - f->last_note_ns < FILL_PROGRESS_NS)
		return;
	f->last_note_ns = now;
	ereport(NOTICE,
			(errmsg("ranread_setup: %.1f of %.1f GB written (%.0f%%), %.0f MiB/s",
					next * (double) BLCKSZ / 1e9, f->size / 1e9,
					100.0 * next * BLCKSZ / f->size,
					next * (double) BLCKSZ / 1048576.0 / secs)));
}

/* A pass: a process writing blocks [first, first + nblocks) in order */
static void
fill_group(BatchParams *p, uint64 first, uint64 nblocks, int block_size, int depth)
{
	GroupParams *g = &p->groups[p->ngroups];
	uint64		per = block_size / BLCKSZ;

	g->first_stream = p->processes++;
	g->processes = 1;
	g->iterations = nblocks / per;
	g->block_size = block_size;
	g->write_pct = 100;
	g->queue_depth = depth;
	g->pattern = PATTERN_SEQUENTIAL;
	g->units_per_seg = RELSEG_SIZE / per;
	g->unit_lo = first / per;
	g->unit_hi = g->unit_lo + nblocks / per;
	g->writes_per_op = 1;
	p->ngroups++;
}

/* The fill as a batch: its target, and a pass of 1 MiB writes, then one of 8 kB */
static BatchParams *
fill_describe(Filler *f, const char *relpath)
{
	BatchParams *p = palloc0(sizeof(BatchParams));
	BatchTarget *t = &p->targets[0];
	uint64		blocks = f->size / BLCKSZ;
	uint64		whole = blocks - blocks % (FILL_CHUNK / BLCKSZ);
	int			depth = Min(FILL_DEPTH, f->ops->max_queue_depth);

	p->seed = (int64) (ranread_now_ns() ^ ((uint64) MyProcPid << 32));
	p->ntargets = 1;
	strlcpy(t->name, f->target, NAMEDATALEN);
	strlcpy(t->relpath, relpath, MAXPGPATH);
	t->size_bytes = f->size;
	t->nsegs = f->nsegs;
	t->written = true;
	t->relid = f->relid;
	if (whole > 0)
		fill_group(p, 0, whole, FILL_CHUNK, depth);
	if (blocks > whole)
		fill_group(p, whole, blocks - whole, BLCKSZ, depth);
	return p;
}

/* Let the engine go, then the buffers it used (again: nothing happens) */
static void
fill_end_pass(Filler *f)
{
	if (f->ops->release)
		f->ops->release(&f->w);
	io_free_slots(&f->w);
}

/* Run pass (group) g of the fill to its end */
static void
fill_pass(Filler *f, int g)
{
	Worker	   *w = &f->w;
	Stream	   *st = &f->stream;

	memset(w, 0, sizeof(*w));
	w->p = f->p;
	w->stop = &fill_stop;
	/* any interrupt that can be served stops the loop, to be served outside */
	w->interrupt = INTERRUPTS_CAN_BE_PROCESSED() ? &InterruptPending : &fill_no_interrupt;
	w->progress = fill_progress;
	w->nstreams = 1;
	w->streams = st;
	w->nfds = f->nsegs;
	w->fds = f->fds;
	/* every write counts (no warm-up), no end but the last block, no timing */
	w->end_ns = PG_UINT64_MAX;
	w->last_second = PG_UINT64_MAX;
	io_stream_init(st, f->p, f->p->groups[g].first_stream);
	st->stats = f->stats;
	st->fill = true;
	/* setup's own stamp: batch 0, sequence 0, with a checksum (verify.h) */
	st->stamp.target = f->p->targets[0].relid;
	st->stamp.batch = 0;
	st->stamp.flags = STAMP_CHECKSUM;
	io_alloc_slots(w, ranread_huge_pages_guc);
	if (f->ops->prepare)
		f->ops->prepare(w);
	w->next_report_ns = ranread_now_ns() + IO_REPORT_NS;

	for (;;)
	{
		f->ops->run(w);
		if (!PostmasterIsAlive())
			fill_postmaster_died(f);
		if (w->error[0])
			fill_failed(f);
		if (st->remaining == 0)
			break;
		CHECK_FOR_INTERRUPTS();
	}
	fill_end_pass(f);
	f->done_blocks += (uint64) f->p->groups[g].iterations * (f->p->groups[g].block_size / BLCKSZ);
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
target_fill(const char *target, Oid relid, const char *relpath, const char *spcname, int64 size)
{
	Filler		f;
	char		why[128];
	bool		uring;

	memset(&f, 0, sizeof(f));
	f.target = target;
	f.relid = relid;
	f.size = size;
	f.nsegs = (int) ((size / BLCKSZ + RELSEG_SIZE - 1) / RELSEG_SIZE);
	f.fds = palloc(sizeof(int) * f.nsegs);
	for (int s = 0; s < f.nsegs; s++)
		f.fds[s] = -1;
	/* io_uring only where a batch would use it */
	uring = ranread_engine_guc != ENGINE_SYNC && engine_uring_ops.available(why, sizeof(why));
	f.ops = engine_ops(uring ? ENGINE_URING : ENGINE_SYNC);
	f.p = fill_describe(&f, relpath);
	f.stats = palloc0(stream_stats_size(true));
	ranread_raise_fd_limit();

	f.start_ns = f.last_note_ns = ranread_now_ns();
	progress_work_begin("setup", 0, target, 0, 0, "writing", 0, -1);
	progress_bytes("writing", 0, f.size, 0);
	PG_TRY();
	{
		open_segments(&f, relpath, spcname);
		for (int g = 0; g < f.p->ngroups; g++)
			fill_pass(&f, g);
		progress_bytes("flushing", f.size, f.size, (ranread_now_ns() - f.start_ns) / 1e9);
		close_segments(&f, true);
	}
	PG_FINALLY();
	{
		progress_work_end();
		/* never unmap a buffer the kernel may still use: the engine lets go first */
		fill_end_pass(&f);
		close_segments(&f, false);
	}
	PG_END_TRY();
	return (ranread_now_ns() - f.start_ns) / 1e9;
}
