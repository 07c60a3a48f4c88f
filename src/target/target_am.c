/*
 * target_am.c
 *		The ranread_target table access method: what a target's relation is
 *		made of, so that routine maintenance leaves it alone.
 *
 * A target is a relation whose pages ranread writes and reads itself, with
 * O_DIRECT, and which holds no rows.  As a heap table it was at the mercy of
 * maintenance: a first plain VACUUM or an anti-wraparound autovacuum read
 * and dirtied every page (a 2x RAM target read end to end through shared
 * buffers), and VACUUM FULL or CLUSTER rewrote it into a new, empty file.
 * This access method gives each of those a cheap, harmless answer:
 *
 *	 VACUUM, VACUUM FREEZE, autovacuum	 nothing to do: relation_vacuum returns
 *		at once, and the relation stores no transaction ids (relfrozenxid and
 *		relminmxid are invalid), so anti-wraparound autovacuum never picks it
 *		and never holds back the database's datfrozenxid;
 *	 ANALYZE, pg_prewarm, the planner	 the relation reports a size of 0
 *		blocks (relation_size), so ANALYZE samples no block and prefetches
 *		none (PostgreSQL 15 issues posix_fadvise(WILLNEED) for every block
 *		it means to sample, and the kernel reads them), and nothing that
 *		walks a relation's blocks through shared buffers touches the data.
 *		pg_relation_size, which looks at the files, shows the real size;
 *	 VACUUM FULL, CLUSTER	 "copies" the table by moving its segment files to
 *		the new relfilenode (rename, in the same directory), in no time and
 *		without reading a page.  Should the transaction or subtransaction
 *		abort, a transaction callback moves them back before PostgreSQL
 *		deletes the new relfilenode's files; a transaction with moves pending
 *		cannot be prepared (PREPARE TRANSACTION), because ROLLBACK PREPARED
 *		would delete the new relfilenode's files with no callback to move
 *		them back.  Before moving, the old files' dirty buffers are flushed
 *		and their pending fsync requests cancelled, as md.c does when it
 *		unlinks a relation, and moving back cancels the fsync the new
 *		relfilenode's first file got when it was created: the checkpointer
 *		never looks for a file that moved (with fsync on, it would PANIC).
 *		(Hard links would not do: at commit md.c truncates the old
 *		relfilenode's files before unlinking them, which would empty the
 *		shared data.)
 *	 ALTER TABLE ... SET TABLESPACE		 copies every fork, as heap does: the
 *		target's data really moves to the new storage;
 *	 SELECT			 sees no rows, reading no page; INSERT, UPDATE, DELETE and
 *		COPY FROM are refused.
 *
 * Only ranread makes relations of this access method.  PostgreSQL has no
 * privilege on table access methods, so relation_set_new_filenode, which
 * every new relation of the method passes through, refuses any but three
 * (and what pg_upgrade restores): the relation ranread_setup is creating
 * (target.c announces it by name),
 * a new relfilenode of an existing one (TRUNCATE), and the transient table
 * of a rewrite of an existing one, made by the session that holds it in
 * AccessExclusiveLock (VACUUM FULL, CLUSTER, ALTER TABLE).  A rewrite that
 * copies rows instead of calling relation_copy_for_cluster (ALTER TABLE
 * ADD COLUMN with a volatile default, ALTER COLUMN TYPE, SET LOGGED, REFRESH
 * MATERIALIZED VIEW) would leave the relation with PostgreSQL's
 * relfrozenxid, which VACUUM here never advances: it is refused when it
 * finishes its bulk insert, and, whatever the path, a transaction that
 * would commit such a relation with a transaction id in relfrozenxid or
 * relminmxid is refused at commit.
 *
 * No fsync request of a target's files is left to the checkpointer: each
 * writer of them syncs what it writes or needs no sync (the fill and the
 * durability file sync themselves, a batch's writes are benchmark I/O with
 * O_DIRECT, the copy of SET TABLESPACE is synced here), and the requests
 * md.c makes when it creates or truncates a file are cancelled at once
 * (forget_fsync).  So a target
 * whose files vanish (a lost disk, files removed by hand), purged or not,
 * costs the next checkpoint nothing: a pending fsync of a missing file is a
 * PANIC of the whole server (docs/design.md, "Failures").
 *
 * Pages stay valid empty heap pages with pseudo-random free space (see
 * fill.c), so tools that read the files through smgr (RelationCopyStorage,
 * pg_checksums) accept them.  Targets made by 1.0 remain heap relations
 * until ranread_setup makes them again; ranread_targets says which is which.
 */
#include "postgres.h"

#include <unistd.h>

#include "access/htup_details.h"
#include "access/multixact.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/storage.h"
#include "catalog/storage_xlog.h"
#include "commands/defrem.h"
#include "commands/vacuum.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lock.h"
#include "storage/smgr.h"
#include "storage/sync.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "ranread.h"
#include "target.h"

PG_FUNCTION_INFO_V1(ranread_target_handler);

/* A segment file moved by VACUUM FULL, to move back if the transaction aborts */
typedef struct MovedSegment
{
	char	   *from;
	char	   *to;
	RelFileNode to_node;		/* the new relfilenode, and the segment */
	uint32		segno;
	int			nest_level;
	struct MovedSegment *next;
} MovedSegment;

static MovedSegment *moved = NULL;
static bool callbacks_registered = false;

/* The relation ranread_setup is creating now (target_am_allow_create) */
static char creating_relname[NAMEDATALEN];
static Oid	creating_nsp = InvalidOid;
static bool creating_logged = false;	/* a durability file (durability.c) */

/*
 * Relations of this access method that this transaction gave a new
 * relfilenode (created, truncated or rewritten), checked before commit;
 * in TopTransactionContext.
 */
static List *touched = NIL;

static void register_callbacks(void);

/*
 * The name make_new_heap (cluster.c) gives the transient table of a
 * rewrite: "pg_temp_<OID of the table rewritten>".  Returns that OID, or
 * InvalidOid for any other name.
 */
static Oid
transient_of(Relation rel)
{
	const char *name = RelationGetRelationName(rel);
	char	   *end;
	unsigned long oid;

	if (strncmp(name, "pg_temp_", 8) != 0 || name[8] < '1' || name[8] > '9')
		return InvalidOid;
	errno = 0;
	oid = strtoul(name + 8, &end, 10);
	if (errno != 0 || *end != '\0' || oid > PG_UINT32_MAX)
		return InvalidOid;
	return (Oid) oid;
}

/*
 * Refuse anything that would store a row; into the transient table of a
 * rewrite, refuse the rewrite, naming the relation rewritten.
 */
static void
no_rows(Relation rel)
{
	Oid			old = transient_of(rel);
	char	   *name = OidIsValid(old) ? get_rel_name(old) : NULL;

	if (name != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ranread target relation \"%s\" cannot be rewritten", name),
				 errdetail("This command copies rows into a new relation, which PostgreSQL would give a "
						   "transaction id (relfrozenxid) that VACUUM never advances for a target; "
						   "VACUUM FULL, CLUSTER, TRUNCATE and SET TABLESPACE keep a target as it is."),
				 errhint("Leave the target's definition to ranread: ranread_purge drops it, ranread_setup makes it again.")));
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("ranread target relation \"%s\" holds no rows", RelationGetRelationName(rel)),
			 errdetail("Its pages are benchmark data that ranread reads and writes directly."),
			 errhint("Use ranread_setup and ranread_purge to make and drop targets.")));
}

/* ---------------------------------------------------------------------
 * Scans: there is never a row
 * ---------------------------------------------------------------------
 */

static const TupleTableSlotOps *
ta_slot_callbacks(Relation rel)
{
	return &TTSOpsVirtual;
}

static TableScanDesc
ta_scan_begin(Relation rel, Snapshot snapshot, int nkeys, struct ScanKeyData *key,
			  ParallelTableScanDesc pscan, uint32 flags)
{
	TableScanDesc scan = palloc0(sizeof(TableScanDescData));

	scan->rs_rd = rel;
	scan->rs_snapshot = snapshot;
	scan->rs_nkeys = nkeys;
	scan->rs_key = key;
	scan->rs_flags = flags;
	scan->rs_parallel = pscan;
	return scan;
}

static void
ta_scan_end(TableScanDesc scan)
{
	if (scan->rs_flags & SO_TEMP_SNAPSHOT)
		UnregisterSnapshot(scan->rs_snapshot);
	pfree(scan);
}

static void
ta_scan_rescan(TableScanDesc scan, struct ScanKeyData *key, bool set_params,
			   bool allow_strat, bool allow_sync, bool allow_pagemode)
{
}

static bool
ta_scan_getnextslot(TableScanDesc scan, ScanDirection direction, TupleTableSlot *slot)
{
	ExecClearTuple(slot);
	return false;
}

static void
ta_scan_set_tidrange(TableScanDesc scan, ItemPointer mintid, ItemPointer maxtid)
{
}

static Size
ta_parallelscan_estimate(Relation rel)
{
	return sizeof(ParallelTableScanDescData);
}

static Size
ta_parallelscan_initialize(Relation rel, ParallelTableScanDesc pscan)
{
	pscan->phs_relid = RelationGetRelid(rel);
	pscan->phs_syncscan = false;
	return sizeof(ParallelTableScanDescData);
}

static void
ta_parallelscan_reinitialize(Relation rel, ParallelTableScanDesc pscan)
{
}

static struct IndexFetchTableData *
ta_index_fetch_begin(Relation rel)
{
	IndexFetchTableData *f = palloc0(sizeof(IndexFetchTableData));

	f->rel = rel;
	return f;
}

static void
ta_index_fetch_reset(struct IndexFetchTableData *data)
{
}

static void
ta_index_fetch_end(struct IndexFetchTableData *data)
{
	pfree(data);
}

static bool
ta_index_fetch_tuple(struct IndexFetchTableData *scan, ItemPointer tid, Snapshot snapshot,
					 TupleTableSlot *slot, bool *call_again, bool *all_dead)
{
	*call_again = false;
	if (all_dead)
		*all_dead = true;
	return false;
}

static bool
ta_tuple_fetch_row_version(Relation rel, ItemPointer tid, Snapshot snapshot,
						   TupleTableSlot *slot)
{
	return false;
}

static bool
ta_tuple_tid_valid(TableScanDesc scan, ItemPointer tid)
{
	return false;
}

static void
ta_tuple_get_latest_tid(TableScanDesc scan, ItemPointer tid)
{
}

static bool
ta_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot, Snapshot snapshot)
{
	return false;
}

static TransactionId
ta_index_delete_tuples(Relation rel, TM_IndexDeleteOp *delstate)
{
	return InvalidTransactionId;
}

/* ---------------------------------------------------------------------
 * Writes of rows: refused
 * ---------------------------------------------------------------------
 */

static void
ta_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid, int options,
				struct BulkInsertStateData *bistate)
{
	no_rows(rel);
}

static void
ta_tuple_insert_speculative(Relation rel, TupleTableSlot *slot, CommandId cid, int options,
							struct BulkInsertStateData *bistate, uint32 specToken)
{
	no_rows(rel);
}

static void
ta_tuple_complete_speculative(Relation rel, TupleTableSlot *slot, uint32 specToken,
							  bool succeeded)
{
	no_rows(rel);
}

static void
ta_multi_insert(Relation rel, TupleTableSlot **slots, int nslots, CommandId cid,
				int options, struct BulkInsertStateData *bistate)
{
	no_rows(rel);
}

static TM_Result
ta_tuple_delete(Relation rel, ItemPointer tid, CommandId cid, Snapshot snapshot,
				Snapshot crosscheck, bool wait, TM_FailureData *tmfd, bool changingPart)
{
	no_rows(rel);
	return TM_Invisible;
}

static TM_Result
ta_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot, CommandId cid,
				Snapshot snapshot, Snapshot crosscheck, bool wait, TM_FailureData *tmfd,
				LockTupleMode *lockmode, bool *update_indexes)
{
	no_rows(rel);
	return TM_Invisible;
}

static TM_Result
ta_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot, TupleTableSlot *slot,
			  CommandId cid, LockTupleMode mode, LockWaitPolicy wait_policy, uint8 flags,
			  TM_FailureData *tmfd)
{
	no_rows(rel);
	return TM_Invisible;
}

/*
 * The end of a bulk insert: COPY FROM, and the rewrites that copy rows into
 * a new relation (ALTER TABLE ADD COLUMN with a volatile default, ALTER
 * COLUMN ... TYPE, SET LOGGED; REFRESH MATERIALIZED VIEW).  PostgreSQL
 * would then give the relation a relfrozenxid that VACUUM never advances
 * here: refused (no_rows names the rewrite), before the new relation
 * replaces the old one.
 */
static void
ta_finish_bulk_insert(Relation rel, int options)
{
	no_rows(rel);
}

/* ---------------------------------------------------------------------
 * Storage: what DDL and maintenance do to the files
 * ---------------------------------------------------------------------
 */

/*
 * ranread_setup is about to create the relation relname in schema nsp: let
 * that one (and no other) be made with this access method.  Cleared once it
 * is made, by target_am_end_create, and by the end of the transaction.
 */
void
target_am_allow_create(const char *relname, Oid nsp)
{
	register_callbacks();
	strlcpy(creating_relname, relname, NAMEDATALEN);
	creating_nsp = nsp;
	creating_logged = false;
}

/*
 * The durability check is about to create its durability file, relname in
 * schema nsp: a permanent relation (an unlogged one's main fork is reset
 * after a crash).  Cleared as target_am_allow_create's.
 */
void
target_am_allow_create_logged(const char *relname, Oid nsp)
{
	target_am_allow_create(relname, nsp);
	creating_logged = true;
}

void
target_am_end_create(void)
{
	creating_nsp = InvalidOid;
	creating_relname[0] = '\0';
	creating_logged = false;
}

/* A relation this transaction gave a new relfilenode, to check before commit */
typedef struct Touched
{
	Oid			relid;
	int			nest_level;
} Touched;

static void
remember_touched(Oid relid)
{
	MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
	Touched    *t = palloc(sizeof(Touched));

	t->relid = relid;
	t->nest_level = GetCurrentTransactionNestLevel();
	touched = lappend(touched, t);
	MemoryContextSwitchTo(old);
}

/* Does this session hold relid in AccessExclusiveLock? */
static bool
locked_exclusively(Oid relid)
{
	LOCKTAG		tag;

	SET_LOCKTAG_RELATION(tag, MyDatabaseId, relid);
	return LockHeldByMe(&tag, AccessExclusiveLock);
}

/*
 * Which relation a new relfilenode of this access method is for, or an
 * error if it is none of ranread's (see the top of this file).  Returns the
 * OID to check before commit: the relation itself, or the one a transient
 * table rewrites.
 */
static Oid
allowed_relation(Relation rel, char persistence)
{
	Oid			relid = RelationGetRelid(rel);
	Oid			old;
	char	   *name;

	/* TRUNCATE: a new relfilenode of a relation that exists */
	if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		return relid;

	/* pg_upgrade restores the targets of the old cluster, as they were */
	if (IsBinaryUpgrade)
		return relid;

	/* the target ranread_setup is creating */
	if (OidIsValid(creating_nsp) && RelationGetNamespace(rel) == creating_nsp &&
		strcmp(RelationGetRelationName(rel), creating_relname) == 0 &&
		rel->rd_rel->relkind == RELKIND_RELATION &&
		persistence == (creating_logged ? RELPERSISTENCE_PERMANENT : RELPERSISTENCE_UNLOGGED))
	{
		target_am_end_create();
		return relid;
	}

	/* the transient table of a rewrite, in the rewritten relation's schema */
	old = transient_of(rel);
	if (OidIsValid(old) && rel->rd_rel->relkind == RELKIND_RELATION)
	{
		HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(old));
		bool		ours = false;

		if (HeapTupleIsValid(tup))
		{
			Form_pg_class c = (Form_pg_class) GETSTRUCT(tup);

			ours = c->relam == rel->rd_rel->relam && c->relnamespace == RelationGetNamespace(rel);
			ReleaseSysCache(tup);
		}
		if (ours && locked_exclusively(old))
			return old;
	}

	name = OidIsValid(old) ? get_rel_name(old) : NULL;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("relation \"%s\" cannot use access method \"ranread_target\"",
					name ? name : RelationGetRelationName(rel)),
			 errdetail("The ranread_target access method is for the targets ranread_setup makes: "
					   "their relations hold no rows, and VACUUM never processes them."),
			 errhint("Use another table access method, such as heap (PostgreSQL's default); "
					 "ranread_setup makes a target.")));
	return InvalidOid;			/* keep the compiler quiet */
}

/*
 * Cancel the checkpointer's pending fsync of one segment of a fork, as md.c
 * does before it unlinks one.
 *
 * A relation of this access method leaves no fsync request behind (the
 * rule is atop this file): whoever writes its files syncs them itself (the
 * fill, fill.c; the durability file's writes, durability.c; the copy of SET
 * TABLESPACE, below), and every request PostgreSQL's storage manager makes
 * for it (md.c registers one for each file it creates, and for each
 * segment it truncates) is cancelled here at once.  A request that
 * outlived a target's files (a lost disk, files removed by hand, the purge
 * of such a target) would make the next checkpoint fail to fsync a file
 * that is not there, which PostgreSQL treats as a lost write: a PANIC, and
 * with the tablespace's directory gone, a crash recovery that may not start.
 */
static void
forget_fsync(RelFileNode rnode, ForkNumber forknum, uint32 segno)
{
	FileTag		tag;

	memset(&tag, 0, sizeof(tag));
	tag.handler = SYNC_HANDLER_MD;
	tag.forknum = forknum;
	tag.rnode = rnode;
	tag.segno = segno;
	RegisterSyncRequest(&tag, SYNC_FORGET_REQUEST, true);
}

/*
 * A new relfilenode (CREATE TABLE, TRUNCATE, VACUUM FULL's new table) of a
 * relation ranread allows: the main fork, and the init fork an unlogged
 * relation needs.  No transaction ids are stored, so none is recorded.
 * The init fork is synced here; the main fork is empty, and its writers
 * sync what they write: the fsyncs md.c asked for both files are cancelled.
 */
static void
ta_relation_set_new_filenode(Relation rel, const RelFileNode *newrnode, char persistence,
							 TransactionId *freezeXid, MultiXactId *minmulti)
{
	SMgrRelation srel;
	Oid			checked;

	register_callbacks();
	checked = allowed_relation(rel, persistence);
	remember_touched(checked);

	*freezeXid = InvalidTransactionId;
	*minmulti = InvalidMultiXactId;
	srel = RelationCreateStorage(*newrnode, persistence, true);
	forget_fsync(*newrnode, MAIN_FORKNUM, 0);
	if (persistence == RELPERSISTENCE_UNLOGGED)
	{
		smgrcreate(srel, INIT_FORKNUM, false);
		log_smgrcreate(newrnode, INIT_FORKNUM);
		smgrimmedsync(srel, INIT_FORKNUM);
		forget_fsync(*newrnode, INIT_FORKNUM, 0);
	}
	smgrclose(srel);
}

/*
 * TRUNCATE of a relation made in this very transaction: empty its main
 * fork in place.  md.c asks a fsync of every segment it truncates (the
 * first becomes empty, the others stay as empty files): cancel them all.
 */
static void
ta_relation_nontransactional_truncate(Relation rel)
{
	BlockNumber nblocks = smgrnblocks(RelationGetSmgr(rel), MAIN_FORKNUM);
	uint32		nsegs = nblocks / RELSEG_SIZE + 1;

	RelationTruncate(rel, 0);
	for (uint32 seg = 0; seg < nsegs; seg++)
		forget_fsync(rel->rd_node, MAIN_FORKNUM, seg);
}

/*
 * ALTER TABLE ... SET TABLESPACE: copy every fork to the new relfilenode,
 * page by page through smgr, and drop the old one at commit (as heap does);
 * each copy is synced here, and no fsync request of the new files is left.
 */
static void
ta_relation_copy_data(Relation rel, const RelFileNode *newrnode)
{
	SMgrRelation dstrel = smgropen(*newrnode, rel->rd_backend);

	FlushRelationBuffers(rel);
	RelationCreateStorage(*newrnode, rel->rd_rel->relpersistence, true);
	RelationCopyStorage(RelationGetSmgr(rel), dstrel, MAIN_FORKNUM,
						rel->rd_rel->relpersistence);
	/* PostgreSQL syncs an unlogged main fork's copy only at checkpoints: sync it now */
	smgrimmedsync(dstrel, MAIN_FORKNUM);
	forget_fsync(*newrnode, MAIN_FORKNUM, 0);
	for (ForkNumber fork = MAIN_FORKNUM + 1; fork <= MAX_FORKNUM; fork++)
	{
		if (!smgrexists(RelationGetSmgr(rel), fork))
			continue;
		smgrcreate(dstrel, fork, false);
		if (RelationIsPermanent(rel) ||
			(rel->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED && fork == INIT_FORKNUM))
			log_smgrcreate(newrnode, fork);
		RelationCopyStorage(RelationGetSmgr(rel), dstrel, fork, rel->rd_rel->relpersistence);
		smgrimmedsync(dstrel, fork);
		forget_fsync(*newrnode, fork, 0);
	}
	RelationDropStorage(rel);
	smgrclose(dstrel);
}

/*
 * Move the moved segments back: the transaction (or subtransaction)
 * aborted.  PostgreSQL, deleting the new relfilenode at abort, expects its
 * first segment there (it keeps it as an empty file until the next
 * checkpoint, for a pending fsync), but it has just been moved away; the
 * fsync md.c asked at its creation was cancelled then, and is cancelled
 * again here, so that the checkpointer never looks for it.
 */
static void
undo_moves(int from_level)
{
	while (moved != NULL && moved->nest_level >= from_level)
	{
		MovedSegment *m = moved;

		if (rename(m->to, m->from) != 0)
			ereport(WARNING,
					(errcode_for_file_access(),
					 errmsg("could not move ranread target file \"%s\" back to \"%s\": %m",
							m->to, m->from),
					 errhint("Run ranread_setup again to re-create the target.")));
		else
			forget_fsync(m->to_node, MAIN_FORKNUM, m->segno);
		moved = m->next;
		pfree(m->from);
		pfree(m->to);
		pfree(m);
	}
}

/* Forget the moves of a committed (sub)transaction */
static void
forget_moves(int from_level, int to_level)
{
	for (MovedSegment *m = moved; m != NULL; m = m->next)
		if (m->nest_level >= from_level)
			m->nest_level = to_level;
	if (to_level == 0)
	{
		while (moved != NULL)
		{
			MovedSegment *m = moved;

			moved = m->next;
			pfree(m->from);
			pfree(m->to);
			pfree(m);
		}
	}
}

/*
 * Before commit: no relation of this access method that this transaction
 * gave a new relfilenode may keep a transaction id, whatever command did it
 * (the rewrites that would are refused earlier; this holds for any path).
 */
static void
check_touched(void)
{
	Oid			am;
	ListCell   *lc;

	if (touched == NIL)
		return;
	am = get_am_oid("ranread_target", true);
	CommandCounterIncrement();
	foreach(lc, touched)
	{
		Touched    *t = lfirst(lc);
		HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(t->relid));
		Form_pg_class c;

		if (!HeapTupleIsValid(tup))
			continue;			/* dropped since */
		c = (Form_pg_class) GETSTRUCT(tup);
		if (c->relam == am &&
			(TransactionIdIsValid(c->relfrozenxid) || MultiXactIdIsValid(c->relminmxid)))
		{
			char	   *name = pstrdup(NameStr(c->relname));
			TransactionId xid = c->relfrozenxid;
			MultiXactId mxid = c->relminmxid;

			ReleaseSysCache(tup);
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("relation \"%s\" of access method \"ranread_target\" would keep a transaction id", name),
					 errdetail("Its relfrozenxid would be %u and its relminmxid %u; VACUUM never processes "
							   "relations of this access method, so they would hold back the database's "
							   "datfrozenxid until it is dropped.", xid, mxid),
					 errhint("The transaction is rolled back; ranread_setup makes a target again.")));
		}
		ReleaseSysCache(tup);
	}
}

/* Forget the relations touched by an aborted subtransaction, or pass them up */
static void
sub_touched(int level, bool abort)
{
	ListCell   *lc;

	foreach(lc, touched)
	{
		Touched    *t = lfirst(lc);

		if (t->nest_level < level)
			continue;
		if (abort)
			touched = foreach_delete_current(touched, lc);
		else
			t->nest_level = level - 1;
	}
}

static void
ta_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
			check_touched();
			break;
		case XACT_EVENT_PRE_PREPARE:

			/*
			 * ROLLBACK PREPARED would delete the new relfilenode's files, in
			 * a session (or after a restart) where no callback knows to move
			 * them back first: the target's data would be lost.
			 */
			if (moved != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot PREPARE a transaction that has moved the files of a ranread target"),
						 errdetail("CLUSTER moved the target's files to its new relfilenode; ROLLBACK PREPARED "
								   "would delete them, with nothing to move them back."),
						 errhint("Commit the transaction instead of preparing it, or run CLUSTER of a target "
								 "in a transaction of its own.")));
			check_touched();
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			undo_moves(0);
			touched = NIL;
			target_am_end_create();
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			forget_moves(0, 0);
			touched = NIL;
			target_am_end_create();
			break;
		default:
			break;
	}
}

static void
ta_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					SubTransactionId parentSubid, void *arg)
{
	int			level = GetCurrentTransactionNestLevel();

	if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		undo_moves(level);
		sub_touched(level, true);
	}
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
	{
		forget_moves(level, level - 1);
		sub_touched(level, false);
	}
}

static void
register_callbacks(void)
{
	if (callbacks_registered)
		return;
	RegisterXactCallback(ta_xact_callback, NULL);
	RegisterSubXactCallback(ta_subxact_callback, NULL);
	callbacks_registered = true;
}

/*
 * VACUUM FULL and CLUSTER: give the new relfilenode the old one's segment
 * files by renaming them, instead of copying rows (there are none) or pages.
 */
static void
ta_relation_copy_for_cluster(Relation OldTable, Relation NewTable, Relation OldIndex,
							 bool use_sort, TransactionId OldestXmin,
							 TransactionId *xid_cutoff, MultiXactId *multi_cutoff,
							 double *num_tuples, double *tups_vacuumed,
							 double *tups_recently_dead)
{
	char	   *oldpath = relpathperm(OldTable->rd_node, MAIN_FORKNUM);
	char	   *newpath = relpathperm(NewTable->rd_node, MAIN_FORKNUM);
	int			level = GetCurrentTransactionNestLevel();

	register_callbacks();

	/* everything of the old files on disk, and nothing left for fsync */
	FlushRelationBuffers(OldTable);
	RelationCloseSmgr(OldTable);
	RelationCloseSmgr(NewTable);

	for (uint32 seg = 0;; seg++)
	{
		char	   *from = seg == 0 ? pstrdup(oldpath) : psprintf("%s.%u", oldpath, seg);
		char	   *to = seg == 0 ? pstrdup(newpath) : psprintf("%s.%u", newpath, seg);
		MovedSegment *m;

		if (access(from, F_OK) != 0)
		{
			/* files gone behind PostgreSQL's back: the new one stays empty */
			if (seg == 0)
				ereport(WARNING,
						(errcode_for_file_access(),
						 errmsg("could not find the file \"%s\" of ranread target relation \"%s\": %m",
								from, RelationGetRelationName(OldTable)),
						 errdetail("The relation's new file is empty."),
						 errhint("ranread_targets shows the target as empty; run ranread_setup again.")));
			break;
		}
		forget_fsync(OldTable->rd_node, MAIN_FORKNUM, seg);
		m = MemoryContextAlloc(TopMemoryContext, sizeof(MovedSegment));
		m->from = MemoryContextStrdup(TopMemoryContext, from);
		m->to = MemoryContextStrdup(TopMemoryContext, to);
		m->nest_level = level;
		m->to_node = NewTable->rd_node;
		m->segno = seg;
		if (rename(from, to) != 0)
		{
			pfree(m->from);
			pfree(m->to);
			pfree(m);
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not move ranread target file \"%s\" to \"%s\": %m", from, to)));
		}
		m->next = moved;
		moved = m;
	}

	*xid_cutoff = InvalidTransactionId;
	*multi_cutoff = InvalidMultiXactId;
	*num_tuples = 0;
	*tups_vacuumed = 0;
	*tups_recently_dead = 0;
}

/* VACUUM in all its plain forms: nothing to vacuum, nothing read */
static void
ta_relation_vacuum(Relation rel, struct VacuumParams *params, BufferAccessStrategy bstrategy)
{
	if (params->options & VACOPT_VERBOSE)
		ereport(INFO,
				(errmsg("ranread target relation \"%s\": nothing to vacuum, no page read",
						RelationGetRelationName(rel)),
				 errdetail("It holds benchmark data and no rows or transaction ids.")));
}

static bool
ta_scan_analyze_next_block(TableScanDesc scan, BlockNumber blockno,
						   BufferAccessStrategy bstrategy)
{
	return false;
}

static bool
ta_scan_analyze_next_tuple(TableScanDesc scan, TransactionId OldestXmin, double *liverows,
						   double *deadrows, TupleTableSlot *slot)
{
	return false;
}

static double
ta_index_build_range_scan(Relation table_rel, Relation index_rel, struct IndexInfo *index_info,
						  bool allow_sync, bool anyvisible, bool progress,
						  BlockNumber start_blockno, BlockNumber numblocks,
						  IndexBuildCallback callback, void *callback_state, TableScanDesc scan)
{
	if (scan)
		table_endscan(scan);
	return 0;
}

static void
ta_index_validate_scan(Relation table_rel, Relation index_rel, struct IndexInfo *index_info,
					   Snapshot snapshot, struct ValidateIndexState *state)
{
}

static bool
ta_relation_needs_toast_table(Relation rel)
{
	return false;
}

static Oid
ta_relation_toast_am(Relation rel)
{
	return InvalidOid;
}

/*
 * The size PostgreSQL sees: none.  No code of PostgreSQL's has anything to
 * read in a target (its blocks are ranread's benchmark data), and what walks
 * a relation's blocks (ANALYZE's sample and its prefetch, pg_prewarm, the
 * cost of a scan) would read them for nothing.  Needs no file, so it also
 * holds after VACUUM FULL moved the files (core logs the old relation's
 * size then) and for a target whose files are gone.  ranread reads the
 * files' sizes itself (target.c); pg_relation_size shows the real size.
 */
static uint64
ta_relation_size(Relation rel, ForkNumber forkNumber)
{
	return 0;
}

/* The planner's estimate: nothing to read, no rows */
static void
ta_relation_estimate_size(Relation rel, int32 *attr_widths, BlockNumber *pages,
						  double *tuples, double *allvisfrac)
{
	*pages = 0;
	*tuples = 0;
	*allvisfrac = 1;
}

static bool
ta_scan_bitmap_next_block(TableScanDesc scan, struct TBMIterateResult *tbmres)
{
	return false;
}

static bool
ta_scan_bitmap_next_tuple(TableScanDesc scan, struct TBMIterateResult *tbmres,
						  TupleTableSlot *slot)
{
	return false;
}

static bool
ta_scan_sample_next_block(TableScanDesc scan, struct SampleScanState *scanstate)
{
	return false;
}

static bool
ta_scan_sample_next_tuple(TableScanDesc scan, struct SampleScanState *scanstate,
						  TupleTableSlot *slot)
{
	return false;
}

static const TableAmRoutine target_am = {
	.type = T_TableAmRoutine,
	.slot_callbacks = ta_slot_callbacks,
	.scan_begin = ta_scan_begin,
	.scan_end = ta_scan_end,
	.scan_rescan = ta_scan_rescan,
	.scan_getnextslot = ta_scan_getnextslot,
	.scan_set_tidrange = ta_scan_set_tidrange,
	.scan_getnextslot_tidrange = ta_scan_getnextslot,
	.parallelscan_estimate = ta_parallelscan_estimate,
	.parallelscan_initialize = ta_parallelscan_initialize,
	.parallelscan_reinitialize = ta_parallelscan_reinitialize,
	.index_fetch_begin = ta_index_fetch_begin,
	.index_fetch_reset = ta_index_fetch_reset,
	.index_fetch_end = ta_index_fetch_end,
	.index_fetch_tuple = ta_index_fetch_tuple,
	.tuple_fetch_row_version = ta_tuple_fetch_row_version,
	.tuple_tid_valid = ta_tuple_tid_valid,
	.tuple_get_latest_tid = ta_tuple_get_latest_tid,
	.tuple_satisfies_snapshot = ta_tuple_satisfies_snapshot,
	.index_delete_tuples = ta_index_delete_tuples,
	.tuple_insert = ta_tuple_insert,
	.tuple_insert_speculative = ta_tuple_insert_speculative,
	.tuple_complete_speculative = ta_tuple_complete_speculative,
	.multi_insert = ta_multi_insert,
	.tuple_delete = ta_tuple_delete,
	.tuple_update = ta_tuple_update,
	.tuple_lock = ta_tuple_lock,
	.finish_bulk_insert = ta_finish_bulk_insert,
	.relation_set_new_filenode = ta_relation_set_new_filenode,
	.relation_nontransactional_truncate = ta_relation_nontransactional_truncate,
	.relation_copy_data = ta_relation_copy_data,
	.relation_copy_for_cluster = ta_relation_copy_for_cluster,
	.relation_vacuum = ta_relation_vacuum,
	.scan_analyze_next_block = ta_scan_analyze_next_block,
	.scan_analyze_next_tuple = ta_scan_analyze_next_tuple,
	.index_build_range_scan = ta_index_build_range_scan,
	.index_validate_scan = ta_index_validate_scan,
	.relation_size = ta_relation_size,
	.relation_needs_toast_table = ta_relation_needs_toast_table,
	.relation_toast_am = ta_relation_toast_am,
	.relation_estimate_size = ta_relation_estimate_size,
	.scan_bitmap_next_block = ta_scan_bitmap_next_block,
	.scan_bitmap_next_tuple = ta_scan_bitmap_next_tuple,
	.scan_sample_next_block = ta_scan_sample_next_block,
	.scan_sample_next_tuple = ta_scan_sample_next_tuple,
};

/* The handler CREATE ACCESS METHOD ranread_target names */
Datum
ranread_target_handler(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(&target_am);
}
