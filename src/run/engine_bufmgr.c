/*
 * engine_bufmgr.c
 *		The server path's engine (docs/design.md, "The server path"): one
 *		stream per worker, reading the target's blocks through PostgreSQL's
 *		buffer manager as a query's backend does, one 8 kB block at a time,
 *		through a ring of buffers, prefetching ahead.
 *
 * prepare, in the worker before it counts itself ready: a transaction of
 * the worker's own, held until release, in which it opens the target's
 * relation.  The relation is locked already, by the leader: target_lookup
 * holds AccessShareLock until the end of the caller's transaction, so
 * nothing drops, rewrites or moves it while the batch runs, as a parallel
 * query's workers rely on their leader's lock.  The workers take no lock of
 * their own, so none of them can queue behind a session that waits for
 * AccessExclusiveLock behind the leader's (which would wait for them); a
 * target the caller's own transaction holds in AccessExclusiveLock (it made
 * it) is refused before the batch (serverpath.c).  The files it opens must
 * be those the batch resolved, and hold every block the target was made
 * with.  The catalog snapshot is dropped at once, so the worker holds back
 * no vacuum (no xmin) while it reads.  Each segment file is mapped, never
 * touched, only for mincore.
 *
 * run: the hot loop.  Each I/O of the stream is one ReadBufferExtended of
 * the next block (RBM_NORMAL, the BAS_BULKREAD ring) and its ReleaseBuffer;
 * its latency runs, as on the device path (io.h), from when the previous
 * one completed (or when it was due, under a rate limit), so it holds what
 * PostgreSQL spends around the read too: choosing the block d ahead, its
 * PrefetchBuffer (posix_fadvise WILLNEED on PostgreSQL 15, whose read the
 * kernel starts at once), and ranread's mincore probe of that block, about
 * a microsecond.  The blocks are the stream's own sequence (the seed's, as
 * io_prepare draws it), chosen d = effective_io_concurrency blocks ahead of
 * the one read, each prefetched when chosen, as a bitmap heap scan does.
 * A read the prefetch made fast counts as a read: it is what PostgreSQL
 * gets.  Per measured read the loop counts what the caches answered: a hit
 * in shared buffers (pgBufferUsage's own count moved during the call), or
 * else a block every page of which was in the page cache when it was
 * chosen, before this stream's prefetch (for a sequential stream, only from
 * its second lap over its part on: in its first lap, what is resident was
 * brought by the kernel's readahead of its own reads, which the device
 * served).  No allocation, no elog, no SQL in the loop; an ERROR from the
 * buffer manager (a page that fails its checksum or header check, an I/O
 * error, a short file) ends the run: the transaction is aborted, which
 * unpins the buffer, and the batch fails with the buffer manager's words.
 *
 * release: the transaction is committed and the relation's I/O counts are
 * sent to the statistics (pg_statio_all_tables moves by every read, warm-up
 * included).
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "access/relation.h"
#include "access/xact.h"
#include "common/relpath.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "engine.h"
#include "io.h"
#include "serverpath.h"

#define RESIDENT_VEC		(BLCKSZ / 4096 + 2)

/* A block chosen ahead of its read */
typedef struct Ahead
{
	BlockNumber blkno;
	bool		cached;			/* all of it was in the page cache when chosen */
} Ahead;

/* The engine's state in one worker */
typedef struct BufmgrState
{
	MemoryContext cxt;			/* the worker's: outlives the transaction */
	bool		in_xact;
	Relation	rel;
	BufferAccessStrategy strategy;
	int			distance;		/* prefetch: blocks chosen ahead of the read */
	Ahead	   *ahead;			/* a ring of distance + 1 */
	int			head;			/* the next to read */
	int			nahead;			/* chosen, not read yet */
	bool		lapped;			/* sequential: the stream came round its part */
	BlockNumber reading;		/* for the message of a failed read */
	int			nmaps;			/* every segment mapped, for mincore */
	char	  **maps;
	Size	   *map_len;
	long		page_size;
} BufmgrState;

/*
 * Is every page of the block in the page cache?  mincore of the mapped
 * segment; false where it cannot say
 */
static inline bool
bufmgr_resident(BufmgrState *bm, BlockNumber blkno)
{
	int			seg = (int) (blkno / RELSEG_SIZE);
	Size		off = (Size) (blkno % RELSEG_SIZE) * BLCKSZ;
	Size		start = off & ~((Size) bm->page_size - 1);
	Size		len = off + BLCKSZ - start;
	unsigned char vec[RESIDENT_VEC];

	if (seg >= bm->nmaps || bm->maps[seg] == NULL || off + BLCKSZ > bm->map_len[seg])
		return false;
	if (mincore(bm->maps[seg] + start, len, vec) != 0)
		return false;
	for (Size i = 0; i < (len + bm->page_size - 1) / bm->page_size; i++)
		if (!(vec[i] & 1))
			return false;
	return true;
}

/*
 * Choose the stream's next block, as io_prepare would (a unit of block_size
 * BLCKSZ is a relation block), note whether the page cache has it, and
 * prefetch it unless it is read at once
 */
static inline void
bufmgr_choose(BufmgrState *bm, Stream *st)
{
	const GroupParams *g = st->g;
	Ahead	   *a = &bm->ahead[(bm->head + bm->nahead) % (bm->distance + 1)];
	bool		first_lap = !bm->lapped;

	if (g->pattern == PATTERN_RANDOM)
		a->blkno = (BlockNumber) blocks_next(&g->blocks, st->rng);
	else
	{
		a->blkno = (BlockNumber) st->seq_pos++;
		if (st->seq_pos >= st->seq_hi)
		{
			st->seq_pos = st->seq_lo;
			bm->lapped = true;
		}
	}
	a->cached = (g->pattern == PATTERN_RANDOM || !first_lap) && bufmgr_resident(bm, a->blkno);
	if (bm->nahead++ > 0)
		(void) PrefetchBuffer(bm->rel, MAIN_FORKNUM, a->blkno);
}

/* The hot loop: the worker's one stream to its end, or until stopped */
static void
bufmgr_loop(Worker *w, BufmgrState *bm)
{
	Slot	   *s = &w->slots[0];
	Stream	   *st = &w->streams[s->stream];
	StreamStats *stats = st->stats;
	uint64		now = ranread_now_ns();

	for (;;)
	{
		Ahead	   *a;
		Buffer		buf;
		int64		hits;

		if (s->rate_interval_ns && s->due_ns > now)
		{
			io_sleep_until(w, s->due_ns);
			now = ranread_now_ns();
		}
		if (!io_may_issue(w, s, now))
			break;
		s->measured = now >= w->measure_ns;
		if (s->measured)
			st->remaining--;
		io_stamp(w, s, now);
		while (bm->nahead <= bm->distance)
			bufmgr_choose(bm, st);
		a = &bm->ahead[bm->head];
		bm->reading = a->blkno;
		hits = pgBufferUsage.shared_blks_hit;
		buf = ReadBufferExtended(bm->rel, MAIN_FORKNUM, a->blkno, RBM_NORMAL, bm->strategy);
		ReleaseBuffer(buf);
		now = ranread_now_ns();
		if (s->measured)
		{
			if (pgBufferUsage.shared_blks_hit != hits)
				stats->shared_hits++;
			else if (a->cached)
				stats->cache_hits++;
		}
		bm->head = bm->head == bm->distance ? 0 : bm->head + 1;
		bm->nahead--;
		io_complete(w, s, now);
		if (unlikely(now >= w->next_report_ns))
			io_report(w, now);
	}
	io_report(w, now);
}

/* End the worker's transaction: committed (release), or aborted (an error) */
static void
bufmgr_end_xact(BufmgrState *bm, bool commit)
{
	if (!bm->in_xact)
		return;
	if (commit)
	{
		if (bm->rel != NULL)
			relation_close(bm->rel, NoLock);
		CommitTransactionCommand();
		(void) pgstat_report_stat(true);
	}
	else
		AbortCurrentTransaction();
	bm->in_xact = false;
	bm->rel = NULL;
	MemoryContextSwitchTo(bm->cxt);
}

/*
 * Run the loop; an ERROR from the buffer manager fails the run with its
 * words (the block, the target), after the transaction is aborted, which
 * unpins the buffer
 */
static void
bufmgr_run(Worker *w)
{
	BufmgrState *bm = (BufmgrState *) w->engine;
	const Stream *st = &w->streams[0];

	if (bm->rel == NULL)
		return;
	PG_TRY();
	{
		bufmgr_loop(w, bm);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(bm->cxt);
		edata = CopyErrorData();
		FlushErrorState();
		bufmgr_end_xact(bm, false);
		io_engine_error(w, psprintf("could not read block %u of target \"%s\" through shared buffers: %s",
									bm->reading, w->p->targets[st->g->target].name, edata->message));
		ereport(LOG,
				(errcode(edata->sqlerrcode),
				 errmsg("ranread batch " INT64_FORMAT ": %s", w->p->batch, w->error)));
		FreeErrorData(edata);
	}
	PG_END_TRY();
}

/*
 * Open the target's relation, which the leader holds locked (see the top
 * of this file): it must still be the files the batch resolved
 */
static Relation
bufmgr_open(const BatchTarget *bt)
{
	Relation	rel = try_relation_open(bt->relid, NoLock);

	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("ranread target \"%s\" was dropped as the batch started", bt->name),
				 errhint("Create it again with ranread_setup.")));
	if (strcmp(relpathperm(rel->rd_node, MAIN_FORKNUM), bt->relpath) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ranread target \"%s\" moved to other files as the batch started", bt->name),
				 errdetail("The batch resolved \"%s\"; its relation is now \"%s\".",
						   bt->relpath, relpathperm(rel->rd_node, MAIN_FORKNUM)),
				 errhint("Run the batch again.")));
	return rel;
}

/*
 * The target's files hold every block it was made with: the buffer manager
 * opens each of its segments to count them (so every file is open before
 * the first read)
 */
static void
bufmgr_check_length(BufmgrState *bm, const BatchTarget *bt)
{
	BlockNumber have = smgrnblocks(RelationGetSmgr(bm->rel), MAIN_FORKNUM);
	uint64		want = bt->size_bytes / BLCKSZ;

	if ((uint64) have < want)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("ranread target \"%s\" has %u blocks in its files, fewer than the " UINT64_FORMAT " it was made with",
						bt->name, have, want),
				 errdetail("A segment file of \"%s\" was truncated or removed behind ranread's back.", bt->relpath),
				 errhint("Run ranread_setup again to re-create the target.")));
}

/* Map every segment of the target, for mincore only (never touched) */
static void
bufmgr_map(BufmgrState *bm, const BatchTarget *bt)
{
	bm->page_size = sysconf(_SC_PAGESIZE);
	bm->nmaps = bt->nsegs;
	bm->maps = palloc0(sizeof(char *) * bm->nmaps);
	bm->map_len = palloc0(sizeof(Size) * bm->nmaps);
	for (int s = 0; s < bm->nmaps; s++)
	{
		char	   *path = s == 0 ? pstrdup(bt->relpath) : psprintf("%s.%d", bt->relpath, s);
		int			fd = open(path, O_RDONLY | PG_BINARY);
		struct stat sb;
		void	   *map;

		if (fd < 0 || fstat(fd, &sb) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open segment %d of target \"%s\" (\"%s\"): %m", s, bt->name, path),
					 errhint("Run ranread_setup again to re-create the target.")));
		map = sb.st_size > 0 ? mmap(NULL, sb.st_size, PROT_READ, MAP_SHARED, fd, 0) : NULL;
		close(fd);
		if (map == MAP_FAILED)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not map segment %d of target \"%s\" to see what the page cache holds: %m",
							s, bt->name)));
		bm->maps[s] = map;
		bm->map_len[s] = sb.st_size;
	}
}

/*
 * Before the worker counts itself ready: the transaction, the relation,
 * the ring, the blocks ahead, the maps (see the top of this file)
 */
static void
bufmgr_prepare(Worker *w)
{
	const GroupParams *g = w->streams[0].g;
	const BatchTarget *bt = &w->p->targets[g->target];
	BufmgrState *bm = palloc0(sizeof(BufmgrState));

	Assert(w->nstreams == 1 && w->nslots == 1 && g->path == PATH_SERVER && g->block_size == BLCKSZ);
	bm->cxt = CurrentMemoryContext;
	bm->distance = Max(g->prefetch, 0);
	bm->ahead = palloc0(sizeof(Ahead) * (bm->distance + 1));
	bm->strategy = GetAccessStrategy(BAS_BULKREAD);
	w->engine = bm;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	bm->in_xact = true;
	MemoryContextSwitchTo(bm->cxt);
	bm->rel = bufmgr_open(bt);
	bufmgr_check_length(bm, bt);
	bufmgr_map(bm, bt);
	/* no snapshot held while the batch runs: VACUUM need not wait for it */
	InvalidateCatalogSnapshot();
}

/* Commit (the lock goes), send the I/O counts, unmap */
static void
bufmgr_release(Worker *w)
{
	BufmgrState *bm = (BufmgrState *) w->engine;

	if (bm == NULL)
		return;
	bufmgr_end_xact(bm, true);
	for (int s = 0; s < bm->nmaps; s++)
		if (bm->maps[s] != NULL)
			munmap(bm->maps[s], bm->map_len[s]);
	bm->nmaps = 0;
	w->engine = NULL;
}

/* Wherever PostgreSQL runs */
static bool
bufmgr_available(char *why, int whylen)
{
	return true;
}

const EngineOps engine_bufmgr_ops = {
	.name = "bufmgr",
	.max_queue_depth = 1,
	.one_stream_per_worker = true,
	.available = bufmgr_available,
	.prepare = bufmgr_prepare,
	.run = bufmgr_run,
	.release = bufmgr_release,
};
