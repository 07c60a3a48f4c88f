/*
 * serverpath.c
 *		The server path around its engine (engine_bufmgr.c): what a group of
 *		path 'server' may do, the prefetch distance it takes from the
 *		target's tablespace, the caches emptied before the batch, and what
 *		the batch says and records about the caches that answered it.
 *
 * The device path (every other group) reads the target's files with
 * O_DIRECT: what the storage gives.  A group of path 'server' reads the
 * target's blocks through PostgreSQL's buffer manager, as a query does: each
 * process is a background worker of its own, as a backend is a process of
 * its own, reading one 8 kB block at a time with ReadBufferExtended through
 * a ring of buffers (BAS_BULKREAD, so a batch never floods shared buffers),
 * prefetching effective_io_concurrency blocks ahead with PrefetchBuffer,
 * which on PostgreSQL 15 is posix_fadvise(WILLNEED) into the page cache.
 * It only reads: a write of the device path to the same target would leave
 * stale pages in shared buffers and the page cache, so a batch whose group
 * reads a target on the server path writes no group to it.
 *
 * Caches are stated, never hidden (docs/design.md, "The server path"):
 *	 before the batch the leader evicts what it can: the target's buffers
 *	 (written first if dirty, then dropped, with the claim held, so no
 *	 ranread worker has one pinned) and its pages in the page cache
 *	 (posix_fadvise DONTNEED), and counts with mincore what the page cache
 *	 still holds (cache_left, said at the start and in the notes);
 *	 during it the engine counts, per measured read, whether shared buffers
 *	 had the block (the buffer manager's own count of hits) or else whether
 *	 every page of it was in the page cache when the process chose it,
 *	 before its own prefetch asked for it (mincore);
 *	 after it the batch records both counts and their share, says them in a
 *	 NOTICE, and a batch whose reads mostly came from caches says so in a
 *	 WARNING and in its notes: its figures are memory's, not the device's.
 *
 * What the server path's figures mean, and how to read them beside the
 * device path's, is docs/server-path.md; how later servers'
 * read streams and asynchronous I/O slot in is docs/design.md.
 */
#include "postgres.h"

#include <fcntl.h>
#include <math.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "common/relpath.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/lock.h"
#include "storage/smgr.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/json.h"
#include "utils/spccache.h"
#include "utils/syscache.h"

#include "serverpath.h"

StaticAssertDecl(RANREAD_MAX_PREFETCH == MAX_IO_CONCURRENCY,
				 "effective_io_concurrency's bounds are PostgreSQL's");

/* Whose argument a group's is, for messages: the group's in a mix */
static const char *
whose(const BatchParams *p, const GroupParams *g, const char *fn)
{
	return p->ngroups > 1 || p->mix ? psprintf("group \"%s\" of %s", g->label, fn) : fn;
}

/*
 * effective_io_concurrency is the server path's: a group of the device path
 * may not give it (its own queue_depth is what it keeps in flight), and one
 * the top of a spec gave every group is left to the server-path groups
 */
void
serverpath_check_prefetch(GroupParams *g, bool given, const char *who)
{
	if (g->path == PATH_SERVER)
		return;
	if (given)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("effective_io_concurrency of %s applies to path 'server' only", who),
				 errdetail("On the device path each process keeps queue_depth I/Os in flight itself."),
				 errhint("Give path 'server' to read through PostgreSQL's buffer manager, or leave effective_io_concurrency out.")));
	g->prefetch = -1;
}

/* effective_io_concurrency at the top of a spec needs a group to take it */
void
serverpath_check_prefetch_default(const BatchParams *p, const char *fn)
{
	if (!batch_server_path(p))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("effective_io_concurrency of %s applies to path 'server' only", fn),
				 errdetail("No group of the batch reads on the server path."),
				 errhint("Give path 'server' to read through PostgreSQL's buffer manager, or leave effective_io_concurrency out.")));
}

/* Error: an option of a server-path group that the path cannot honour */
static void
not_on_server_path(const char *what, const char *who, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s of %s does not apply to path 'server'", what, who),
			 errdetail("%s", detail),
			 errhint("%s", hint)));
}

/*
 * What a group of path 'server' may do: read, one 8 kB block at a time,
 * unverified (the buffer manager checks each page it reads itself)
 */
void
serverpath_check_batch(BatchParams *p, const char *fn)
{
	for (int i = 0; i < p->ngroups; i++)
	{
		GroupParams *g = &p->groups[i];
		const char *who = whose(p, g, fn);

		if (g->path != PATH_SERVER)
			continue;
		if (g->write_pct > 0)
			not_on_server_path(psprintf("write_pct %d", g->write_pct), who,
							   "The server path reads the target's blocks through shared buffers, as queries do; PostgreSQL writes through the checkpointer, the background writer and the WAL.",
							   "Measure writes on the device path (path 'device'), beside the reading group in a mix if they should run at once.");
		if (g->queue_depth != 1)
			not_on_server_path(psprintf("queue_depth %d", g->queue_depth), who,
							   "A PostgreSQL process waits for one buffer at a time; what it keeps in flight besides is its prefetch.",
							   "Give effective_io_concurrency for the prefetch distance, and processes for more readers.");
		if (g->block_size != BLCKSZ)
			not_on_server_path(psprintf("block_size %d", g->block_size), who,
							   psprintf("The buffer manager reads pages of %d bytes.", BLCKSZ),
							   psprintf("Leave block_size out (%d), or use path 'device' for larger blocks.", BLCKSZ));
		if (g->verify)
			not_on_server_path("verify", who,
							   "The buffer manager checks every page it reads itself: its header, and its checksum where the cluster has data checksums; a bad page fails the batch.",
							   "Leave verify out, or use path 'device'.");
	}
}

/*
 * The server path's processes open the target's relation as sessions of
 * their own (engine_bufmgr.c): a target this transaction holds in
 * AccessExclusiveLock (it made the target, or rewrote or moved it) they
 * cannot see as it is until this transaction commits; refused before
 * anything runs
 */
static void
refuse_locked_by_me(const BatchTarget *bt)
{
	LOCKTAG		tag;

	SET_LOCKTAG_RELATION(tag, MyDatabaseId, bt->relid);
	if (LockHeldByMe(&tag, AccessExclusiveLock))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("target \"%s\" is locked by this transaction, which made or changed it", bt->name),
				 errdetail("On path 'server' each process opens the target's relation as a session of its own, which sees the target only as committed."),
				 errhint("Commit the transaction that ran ranread_setup (or VACUUM FULL, ALTER TABLE) first, or use path 'device'.")));
}

/*
 * Once the targets are found: mark the targets read on the server path,
 * take a group's prefetch distance from its target's tablespace where it
 * gave none (effective_io_concurrency as PostgreSQL's own scans of that
 * tablespace take it), and refuse a batch that writes such a target.
 */
void
serverpath_resolve(BatchParams *p, const char *fn)
{
	for (int i = 0; i < p->ngroups; i++)
	{
		GroupParams *g = &p->groups[i];
		BatchTarget *bt = &p->targets[g->target];

		if (g->path != PATH_SERVER)
			continue;
		if (!bt->server)
			refuse_locked_by_me(bt);
		bt->server = true;
		bt->cache_left = -1;
		if (g->prefetch < 0)
			g->prefetch = get_tablespace_io_concurrency(bt->spcoid);
#ifndef USE_PREFETCH
		if (g->prefetch > 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("effective_io_concurrency %d of %s cannot be used: this server cannot prefetch",
							g->prefetch, whose(p, g, fn)),
					 errhint("Give effective_io_concurrency 0.")));
#endif
	}
	for (int i = 0; i < p->ngroups; i++)
	{
		const GroupParams *w = &p->groups[i];

		if (w->write_pct == 0 || !p->targets[w->target].server)
			continue;
		for (int j = 0; j < p->ngroups; j++)
			if (p->groups[j].path == PATH_SERVER && p->groups[j].target == w->target)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("group \"%s\" of %s writes target \"%s\", which group \"%s\" reads through shared buffers (path 'server')",
								w->label, fn, p->targets[w->target].name, p->groups[j].label),
						 errdetail("Writes of the device path go around shared buffers and the page cache, which would then hold stale pages."),
						 errhint("Write another target, or run the two in separate batches.")));
	}
}

/* The ring a server-path process reads through: GetAccessStrategy(BAS_BULKREAD)'s size */
int
serverpath_ring_buffers(void)
{
	return Min(256 * 1024 / BLCKSZ, NBuffers / 8);
}

/*
 * The target's files as the buffer manager names them now, from pg_class;
 * false when the relation is gone or its files are not the ones the batch
 * resolved (the workers then fail, saying so)
 */
static bool
target_rnode(const BatchTarget *bt, RelFileNode *rnode)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(bt->relid));
	Form_pg_class rel;
	bool		same;

	if (!HeapTupleIsValid(tup))
		return false;
	rel = (Form_pg_class) GETSTRUCT(tup);
	rnode->spcNode = OidIsValid(rel->reltablespace) ? rel->reltablespace : MyDatabaseTableSpace;
	rnode->dbNode = MyDatabaseId;
	rnode->relNode = rel->relfilenode;
	ReleaseSysCache(tup);
	same = OidIsValid(rnode->relNode) && strcmp(relpathperm(*rnode, MAIN_FORKNUM), bt->relpath) == 0;
	return same;
}

/*
 * Drop one segment's pages from the page cache and count the target's
 * blocks it still holds (every page of the block resident); -1 when the
 * file cannot be read so
 */
static int64
evict_segment(const char *path)
{
	int			fd = open(path, O_RDONLY | PG_BINARY);
	long		page = sysconf(_SC_PAGESIZE);
	struct stat st;
	unsigned char *vec;
	char	   *map;
	int64		left = 0;
	int			per_block = Max(BLCKSZ / page, 1);

	if (fd < 0)
		return -1;
	(void) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (fstat(fd, &st) != 0)
	{
		close(fd);
		return -1;
	}
	if (st.st_size == 0)
	{
		close(fd);
		return 0;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	vec = palloc((st.st_size + page - 1) / page);
	if (mincore(map, st.st_size, vec) != 0)
		left = -1;
	for (off_t b = 0; left >= 0 && b + BLCKSZ <= st.st_size; b += BLCKSZ)
	{
		bool		resident = true;

		for (int k = 0; k < per_block; k++)
			resident = resident && (vec[(b / page) + k] & 1);
		left += resident;
	}
	pfree(vec);
	munmap(map, st.st_size);
	return left;
}

/*
 * Before a batch that reads on the server path (the leader, once it holds
 * the claim, before any worker): evict each such target's buffers and its
 * pages in the page cache, and count what the page cache still holds in
 * BatchTarget.cache_left.  The claim keeps ranread's own workers away; a
 * buffer someone else has pinned is waited for (briefly: nothing reads a
 * target's pages but ranread).
 */
void
serverpath_evict(BatchParams *p)
{
	for (int t = 0; t < p->ntargets; t++)
	{
		BatchTarget *bt = &p->targets[t];
		RelFileNode rnode;
		SMgrRelation smgr;
		int64		left = 0;

		if (!bt->server || !target_rnode(bt, &rnode))
			continue;
		smgr = smgropen(rnode, InvalidBackendId);
		FlushRelationsAllBuffers(&smgr, 1);
		DropRelFileNodesAllBuffers(&smgr, 1);
		for (int s = 0; s < bt->nsegs && left >= 0; s++)
		{
			int64		n = evict_segment(s == 0 ? bt->relpath : psprintf("%s.%d", bt->relpath, s));

			left = n < 0 ? -1 : left + n;
		}
		bt->cache_left = left;
	}
}

/* The start of a batch that reads on the server path, in a line per group */
void
serverpath_start_notice(const BatchParams *p, int level)
{
	for (int i = 0; i < p->ngroups; i++)
	{
		const GroupParams *g = &p->groups[i];
		const BatchTarget *bt = &p->targets[g->target];

		if (g->path != PATH_SERVER)
			continue;
		ereport(level,
				(errmsg("ranread batch " INT64_FORMAT "%s: path 'server', %d process%s reading through shared buffers (a ring of %d of its %d buffers each) and the page cache, prefetching %d block%s ahead (effective_io_concurrency)",
						p->batch, p->ngroups > 1 || p->mix ? psprintf(", group \"%s\"", g->label) : "",
						g->processes, g->processes == 1 ? "" : "es", serverpath_ring_buffers(), NBuffers,
						g->prefetch, g->prefetch == 1 ? "" : "s"),
				 bt->cache_left < 0 ?
				 errdetail("The target's buffers were evicted; what the page cache still holds of target \"%s\" could not be counted.", bt->name) :
				 errdetail("Before the batch the target's buffers were evicted and the page cache dropped its pages: it still held " INT64_FORMAT " of the " UINT64_FORMAT " blocks of target \"%s\".",
						   bt->cache_left, bt->size_bytes / BLCKSZ, bt->name)));
	}
}

/* The path a group took, or the batch's (group -1: NULL when its groups differ) */
const char *
serverpath_path_name(const BatchParams *p, int group)
{
	RanreadPath path = p->groups[group < 0 ? 0 : group].path;

	for (int i = 0; group < 0 && i < p->ngroups; i++)
		if (p->groups[i].path != path)
			return NULL;
	return path == PATH_SERVER ? "server" : "device";
}

/*
 * The prefetch distance of a server-path group, or of the batch's (group
 * -1: its server-path groups', when they agree); -1 where none
 */
int
serverpath_prefetch(const BatchParams *p, int group)
{
	int			d = -1;

	for (int i = 0; i < p->ngroups; i++)
	{
		const GroupParams *g = &p->groups[i];

		if ((group >= 0 && i != group) || g->path != PATH_SERVER)
			continue;
		if (d >= 0 && g->prefetch != d)
			return -1;
		d = g->prefetch;
	}
	return d;
}

/* What the caches answered of a group's server-path reads (group -1: all) */
void
serverpath_counts(BatchShared *bs, int group, ServerCounts *c)
{
	const BatchParams *p = &bs->p;

	memset(c, 0, sizeof(*c));
	for (int s = 0; s < p->processes; s++)
	{
		int			g = batch_group_of(p, s);
		StreamStats *st = batch_stream(bs, s);

		if ((group >= 0 && g != group) || p->groups[g].path != PATH_SERVER)
			continue;
		c->server = true;
		c->reads += st->reads;
		c->shared_hits += st->shared_hits;
		c->cache_hits += st->cache_hits;
	}
	c->cache_pct = c->reads > 0 ? 100.0 * (c->shared_hits + c->cache_hits) / c->reads : get_float8_nan();
}

/* Add one setting in force to the JSON object, if this server has it */
static void
json_setting(StringInfo s, const char *name)
{
	const char *v = GetConfigOptionByName(name, NULL, true);

	if (v == NULL)
		return;
	appendStringInfo(s, "%s\"%s\": ", s->len > 1 ? ", " : "", name);
	escape_json(s, v);
}

/*
 * The server's settings in force that the server path's figures depend on,
 * as a JSON object for ranread_batches.server_settings: the buffer pool and
 * the ring a process reads through, data checksums, the prefetch settings,
 * and where the server has them (PostgreSQL 17, 18) read streams' combining
 * and asynchronous I/O's method and workers
 */
char *
serverpath_settings_json(const BatchParams *p)
{
	static const char *const names[] = {
		"server_version_num", "block_size", "shared_buffers", "data_checksums",
		"effective_io_concurrency", "maintenance_io_concurrency",
		"io_combine_limit", "io_method", "io_workers"
	};
	StringInfoData s;
	int64		left = 0;

	initStringInfo(&s);
	appendStringInfoChar(&s, '{');
	for (int i = 0; i < lengthof(names); i++)
		json_setting(&s, names[i]);
	appendStringInfo(&s, ", \"shared_buffers_blocks\": %d, \"ring_buffers\": %d",
					 NBuffers, serverpath_ring_buffers());
	for (int t = 0; t < p->ntargets; t++)
		if (p->targets[t].server)
			left = left < 0 || p->targets[t].cache_left < 0 ? -1 : left + p->targets[t].cache_left;
	if (left >= 0)
		appendStringInfo(&s, ", \"page_cache_left_blocks\": " INT64_FORMAT, left);
	appendStringInfoChar(&s, '}');
	return s.data;
}

/*
 * The notes of a batch that read on the server path: the share the caches
 * answered (a batch mostly answered by them says its figures are not the
 * device's), and pages the eviction could not drop
 */
void
serverpath_notes(BatchShared *bs, StringInfo s)
{
	ServerCounts c;

	serverpath_counts(bs, -1, &c);
	if (!c.server)
		return;
	if (c.reads > 0 && c.cache_pct >= SERVERPATH_MOSTLY_CACHED)
		appendStringInfo(s, "%smostly cache hits: %.1f%% of the server path's reads came from shared buffers (%.1f%%) or the page cache (%.1f%%), not the device: the figures are memory's, not the disk's",
						 s->len ? "; " : "", c.cache_pct, 100.0 * c.shared_hits / c.reads,
						 100.0 * c.cache_hits / c.reads);
	else if (c.reads > 0 && c.cache_pct >= 1.0)
		appendStringInfo(s, "%s%.1f%% of the server path's reads came from shared buffers (%.1f%%) or the page cache (%.1f%%), not the device",
						 s->len ? "; " : "", c.cache_pct, 100.0 * c.shared_hits / c.reads,
						 100.0 * c.cache_hits / c.reads);
	for (int t = 0; t < bs->p.ntargets; t++)
		if (bs->p.targets[t].server && bs->p.targets[t].cache_left > 0)
			appendStringInfo(s, "%sthe page cache kept " INT64_FORMAT " blocks of target \"%s\" that the eviction before the batch could not drop",
							 s->len ? "; " : "", bs->p.targets[t].cache_left, bs->p.targets[t].name);
}

/*
 * The end of a batch that read on the server path: per group, what the
 * caches answered; a WARNING when it was most of it
 */
void
serverpath_report(BatchShared *bs, int level)
{
	const BatchParams *p = &bs->p;

	for (int i = 0; i < p->ngroups; i++)
	{
		ServerCounts c;
		const char *grp = p->ngroups > 1 || p->mix ? psprintf(", group \"%s\"", p->groups[i].label) : "";

		if (p->groups[i].path != PATH_SERVER)
			continue;
		serverpath_counts(bs, i, &c);
		if (c.reads == 0)
			continue;
		if (c.cache_pct >= SERVERPATH_MOSTLY_CACHED)
			ereport(WARNING,
					(errmsg("ranread batch " INT64_FORMAT "%s: %.1f%% of its reads came from caches, not the device: its figures are not the disk's",
							p->batch, grp, c.cache_pct),
					 errdetail("Of " UINT64_FORMAT " measured reads through shared buffers, " UINT64_FORMAT " found their block in shared buffers and " UINT64_FORMAT " in the page cache; its IOPS and latency are what PostgreSQL gets from memory.",
							   c.reads, c.shared_hits, c.cache_hits),
					 errhint("Read a target at least twice the server's RAM, a wider region, or a uniform distribution to measure the storage; ranread_summary_full's notes say so too.")));
		else
			ereport(level,
					(errmsg("ranread batch " INT64_FORMAT "%s: %.1f%% of its reads came from caches (shared buffers " UINT64_FORMAT ", the page cache " UINT64_FORMAT " of " UINT64_FORMAT "), the rest from the device",
							p->batch, grp, c.cache_pct, c.shared_hits, c.cache_hits, c.reads)));
	}
}
