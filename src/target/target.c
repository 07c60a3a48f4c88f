/*
 * target.c
 *		Targets: the files a batch reads.  ranread_setup, ranread_purge, the
 *		state the ranread_targets view shows, and finding a target's files
 *		for a batch.
 *
 * A target is an unlogged, zero-column relation of the extension
 * ("ranread_target_<md5 of its name>") in the chosen tablespace, using the
 * ranread_target access method (target_am.c) so that VACUUM, VACUUM FULL
 * and anti-wraparound autovacuum leave it alone.  It is made a member of the
 * extension with a pg_depend entry, so DROP EXTENSION removes it and pg_dump
 * never dumps it; unlogged main forks are left out of base backups.  fill.c
 * writes every block.
 *
 * Targets live in the schema ranread_target, a member of the extension
 * that is on nobody's search_path and on which nobody but the extension's
 * owner has a privilege, and they take no privileges themselves: pg_dump
 * leaves a target out but would dump a grant on it, and the restore of that
 * grant would fail.  So GRANT ... ON ALL TABLES IN SCHEMA of the user's
 * schemas never reaches a target, default privileges are taken off a new
 * target here, and a GRANT that reaches one is refused by the extension's
 * event trigger (sql/code/01_access_method.sql).  Where the extension is
 * still at 1.0 (its SQL, with this library) targets stay in the extension's
 * schema, as 1.0 made them; the update to 1.1 moves them.
 *
 * Where a target is, is read from pg_class whenever it is used, never from
 * what setup recorded: ALTER TABLE ... SET TABLESPACE, ALTER TABLESPACE ...
 * RENAME and ALTER TABLE ALL IN TABLESPACE all move or rename behind
 * ranread's back, and a batch must be labelled with where it really read.
 *
 * The catalog is read in a subtransaction that is rolled back at once
 * (ranread_without_locks), so no lock on the extension's tables outlives the
 * lookup: a batch's recording worker needs those tables, and a lock kept by
 * its leader, with a VACUUM FULL queued behind it, would make the worker
 * wait for a leader that waits for the worker.  The target's own relation
 * stays locked (AccessShareLock) until the caller's transaction ends, so it
 * cannot be dropped or rewritten while a batch reads it.
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xlog.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_tablespace_d.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "commands/tablespace.h"
#include "common/hashfn.h"
#include "common/md5.h"
#include "common/relpath.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "figures.h"
#include "fill.h"
#include "target.h"

PG_FUNCTION_INFO_V1(ranread_setup);
PG_FUNCTION_INFO_V1(ranread_purge);
PG_FUNCTION_INFO_V1(ranread_target_state);
PG_FUNCTION_INFO_V1(ranread_ram_bytes);
PG_FUNCTION_INFO_V1(ranread_target_info);

#define MIN_TARGET_BYTES	((int64) 1024 * 1024)
#define MAX_TARGET_BYTES	((int64) MaxBlockNumber * BLCKSZ)

/* The relation name that backs a target */
char *
target_relname(const char *target)
{
	char		hex[33];
	const char *errstr = NULL;

	if (!pg_md5_hash(target, strlen(target), hex, &errstr))
		elog(ERROR, "could not compute MD5 of target name: %s", errstr);
	return psprintf("ranread_target_%s", hex);
}

/*
 * A name argument that must be given and not be empty: a NULL is 22004, as
 * for every other argument, an empty name 22023.  Returns the name.
 */
const char *
name_arg(FunctionCallInfo fcinfo, int argno, const char *what, const char *fn,
		 const char *hint)
{
	bool		isnull = PG_ARGISNULL(argno);

	if (isnull || NameStr(*PG_GETARG_NAME(argno))[0] == '\0')
		ereport(ERROR,
				(errcode(isnull ? ERRCODE_NULL_VALUE_NOT_ALLOWED : ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of %s must be a non-empty name", what, fn),
				 errhint("%s", hint)));
	return NameStr(*PG_GETARG_NAME(argno));
}

/* The target argument of any function that takes one */
const char *
target_arg(FunctionCallInfo fcinfo, int argno, const char *fn)
{
	return name_arg(fcinfo, argno, "target", fn, "The default target is named \"ranread\".");
}

/* What the catalog lookup finds, copied out of its subtransaction */
typedef struct CatalogRow
{
	const char *name;
	bool		found;
	Oid			relid;
	uint64		size_bytes;
	char		tablespace[NAMEDATALEN];
} CatalogRow;

/*
 * Read a target's row of ranread_target_catalog (as the extension's owner),
 * with a snapshot of its own: setup may have waited for another session's
 * setup of the same name, and must see what that one committed.
 */
static void
read_catalog_row(void *arg)
{
	CatalogRow *row = (CatalogRow *) arg;
	Oid			argtypes[1] = {NAMEOID};
	Datum		values[1];
	NameData	n;
	RanreadOwnerState owner;

	namestrcpy(&n, row->name);
	values[0] = NameGetDatum(&n);
	ranread_become_owner(&owner);
	SPI_connect();
	if (SPI_execute_with_args(psprintf("SELECT relid, size_bytes, tablespace FROM %s.ranread_target_catalog "
									   "WHERE target OPERATOR(pg_catalog.=) $1",
									   ranread_schema_name()),
							  1, argtypes, values, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the ranread target catalog");
	if (SPI_processed == 1)
	{
		bool		isnull;

		row->found = true;
		row->relid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0],
													SPI_tuptable->tupdesc, 1, &isnull));
		row->size_bytes = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
													  SPI_tuptable->tupdesc, 2, &isnull));
		strlcpy(row->tablespace, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3),
				NAMEDATALEN);
	}
	SPI_finish();
	ranread_restore_user(&owner);
}

/* Is this relation made with the ranread_target access method? */
static bool
uses_target_am(Relation rel)
{
	Oid			am = get_am_oid("ranread_target", true);

	return OidIsValid(am) && rel->rd_rel->relam == am;
}

/*
 * The blocks of a main fork, from the sizes of its segment files (ranread
 * writes them with O_DIRECT, never through shared buffers, so the files
 * are the truth); without error when they are gone: *missing then says so,
 * and *err why.
 */
static int64
files_nblocks(const char *relpath, bool *missing, int *err)
{
	int64		blocks = 0;

	*missing = false;
	*err = 0;
	for (uint32 seg = 0;; seg++)
	{
		struct stat st;
		char	   *path = seg == 0 ? pstrdup(relpath) : psprintf("%s.%u", relpath, seg);

		CHECK_FOR_INTERRUPTS();
		if (stat(path, &st) != 0)
		{
			if (seg == 0)
			{
				*missing = true;
				*err = errno;
			}
			break;
		}
		blocks += st.st_size / BLCKSZ;
		if (st.st_size < (off_t) RELSEG_SIZE * BLCKSZ)
			break;
	}
	return blocks;
}

/* Fill in where a locked target relation's files are now */
static void
describe_relation(Relation rel, RanreadTarget *t)
{
	Oid			spc = rel->rd_rel->reltablespace;
	char	   *spcname;

	t->spcoid = OidIsValid(spc) ? spc : MyDatabaseTableSpace;
	spcname = get_tablespace_name(t->spcoid);
	strlcpy(t->tablespace, spcname ? spcname : "", NAMEDATALEN);
	strlcpy(t->relpath, relpathperm(rel->rd_node, MAIN_FORKNUM), MAXPGPATH);
	t->rewritten = rel->rd_node.relNode != RelationGetRelid(rel);
	t->protected = uses_target_am(rel);
	if (RecoveryInProgress())
		t->nblocks = -1;
	else
		t->nblocks = files_nblocks(t->relpath, &t->missing, &t->file_errno);
}

/*
 * Find a target and lock its relation until the end of the transaction.
 * Returns false if there is none by that name (or its relation has gone).
 */
bool
target_lookup(const char *name, RanreadTarget *t)
{
	CatalogRow	row;
	Relation	rel;

	memset(&row, 0, sizeof(row));
	row.name = name;
	ranread_without_locks(read_catalog_row, &row);
	if (!row.found)
		return false;

	memset(t, 0, sizeof(*t));
	t->relid = row.relid;
	strlcpy(t->name, name, NAMEDATALEN);
	t->size_bytes = row.size_bytes;
	strlcpy(t->made_in, row.tablespace, NAMEDATALEN);
	rel = try_relation_open(t->relid, AccessShareLock);
	if (rel == NULL)
		return false;			/* purged while we looked */
	describe_relation(rel, t);
	relation_close(rel, NoLock);	/* keep the lock: no purge mid-run */
	return true;
}

/* Can setup make a target in this tablespace's directory (there, real storage)? */
static bool
setup_can_use(Oid spcoid)
{
	const char *dir = spcoid == DEFAULTTABLESPACE_OID ? "base" :
		psprintf("pg_tblspc/%u/%s", spcoid, TABLESPACE_VERSION_DIRECTORY);
	struct stat st;
	FsInfo		fi;

	if (spcoid == GLOBALTABLESPACE_OID || stat(dir, &st) != 0)
		return false;
	fsinfo_read(dir, &fi);
	return !fi.memory;
}

/*
 * Is target the probe target of tablespace spc (ranread_probe_<spc>, or for
 * a long name ranread_probe_ and 16 hex digits of its md5, as
 * ranread_internal.ranread_probe_target names it, sql/code/61_probe.sql)?
 */
static bool
probe_target_of(const char *target, const char *spc)
{
	char		hex[33];
	const char *errstr = NULL;

	if (spc == NULL || spc[0] == '\0' || strncmp(target, "ranread_probe_", 14) != 0)
		return false;
	if (strlen(spc) <= 49)
		return strcmp(target + 14, spc) == 0;
	if (!pg_md5_hash(spc, strlen(spc), hex, &errstr))
		return false;
	return strlen(target + 14) == 16 && strncmp(target + 14, hex, 16) == 0;
}

/*
 * The tablespace whose probe target t is, or NULL when t is not a probe
 * target (made by ranread_probe_setup, docs/keeping-watch.md)
 */
static const char *
probe_tablespace(const RanreadTarget *t)
{
	if (probe_target_of(t->name, t->made_in))
		return t->made_in;
	if (probe_target_of(t->name, t->tablespace))
		return t->tablespace;
	return NULL;
}

/* The function that makes t again: ranread_probe_setup for a probe target */
static const char *
setup_fn(const RanreadTarget *t)
{
	return probe_tablespace(t) ? "ranread_probe_setup" : "ranread_setup";
}

/*
 * The call that makes a target again: for a probe target, ranread_probe_setup
 * of its tablespace; else ranread_setup where its files are now, or where
 * it was made, or pg_default, whichever setup would accept (not a memory
 * filesystem, not a tablespace whose directory is gone).
 */
static char *
setup_again(const RanreadTarget *t)
{
	const char *cand[3] = {t->tablespace, t->made_in, "pg_default"};
	const char *spc = "pg_default";
	const char *probe_spc = probe_tablespace(t);

	if (probe_spc)
		return psprintf("SELECT * FROM ranread_probe_setup(%s, %s);",
						quote_literal_cstr(probe_spc), quote_literal_cstr(fsinfo_pretty(t->size_bytes)));
	for (int i = 0; i < 3; i++)
	{
		Oid			oid = cand[i][0] ? get_tablespace_oid(cand[i], true) : InvalidOid;

		if (OidIsValid(oid) && setup_can_use(oid))
		{
			spc = cand[i];
			break;
		}
	}
	return psprintf("SELECT * FROM ranread_setup(%s, %s, %s);",
					quote_literal_cstr(fsinfo_pretty(t->size_bytes)),
					quote_literal_cstr(spc), quote_literal_cstr(t->name));
}

/*
 * Why a target is empty.  A relation of the ranread_target access method
 * keeps its data through VACUUM FULL, CLUSTER and SET TABLESPACE (a new
 * relfilenode says nothing), so only crash recovery (targets are unlogged)
 * or a TRUNCATE empties it; a heap target (made by 1.0, or given heap with
 * ALTER TABLE ... SET ACCESS METHOD) is also emptied by VACUUM FULL, CLUSTER
 * and TRUNCATE, which give it a new relfilenode.
 */
static const char *
empty_reason(const RanreadTarget *t)
{
	if (t->protected)
		return "crash recovery reset it (targets are unlogged), or a TRUNCATE emptied it";
	if (t->rewritten)
		return "it is a heap relation (made by ranread 1.0, or given heap by ALTER TABLE ... SET ACCESS METHOD), "
			"which VACUUM FULL, CLUSTER and TRUNCATE rewrite into an empty file; crash recovery also resets it";
	return "crash recovery reset it (targets are unlogged)";
}

/* A clause as a sentence: its first letter in upper case */
static char *
sentence(const char *clause)
{
	char	   *s = pstrdup(clause);

	s[0] = pg_toupper((unsigned char) s[0]);
	return s;
}

/*
 * Refuse a target that cannot be read: its files gone, emptied (by crash
 * recovery, or by a rewrite of a heap target) or not the size it was made
 * with.
 */
void
target_check_usable(const RanreadTarget *t, const char *fn)
{
	char	   *again = setup_again(t);

	if (t->missing)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FILE),
				 errmsg("ranread target \"%s\" has no files", t->name),
				 errdetail("Its relation's file \"%s\" is gone: %s.", t->relpath, strerror(t->file_errno)),
				 errhint("Make it again: %s  Or forget it: SELECT ranread_purge(%s);",
						 again, quote_literal_cstr(t->name))));
	if (t->nblocks == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ranread target \"%s\" is empty", t->name),
				 errdetail("%s.", sentence(empty_reason(t))),
				 errhint("Run %s again%s: %s", setup_fn(t),
						 t->protected ? "" : "; it makes a target that maintenance leaves alone", again)));
	if ((uint64) t->nblocks * BLCKSZ != t->size_bytes)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ranread target \"%s\" has " INT64_FORMAT " bytes on disk, not the " UINT64_FORMAT " it was made with",
						t->name, t->nblocks * BLCKSZ, t->size_bytes),
				 errhint("Run %s again to re-create it: %s", setup_fn(t), again)));
}

/* State and explanation of a target, for the views */
static const char *
target_state(Oid relid, int64 size, RanreadTarget *t, const char **note)
{
	Relation	rel;

	*note = NULL;
	if (RecoveryInProgress())
	{
		*note = "targets are unlogged: their data exists only on the primary";
		rel = try_relation_open(relid, AccessShareLock);
		if (rel != NULL)
		{
			describe_relation(rel, t);
			relation_close(rel, AccessShareLock);
		}
		return "unavailable on a standby";
	}
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
	{
		*note = "its relation was dropped behind ranread's back; run ranread_purge to forget it, or ranread_setup to make it again";
		return "missing";
	}
	rel = try_relation_open(relid, AccessShareLock);
	if (rel == NULL)
	{
		*note = "its relation was dropped behind ranread's back; run ranread_purge to forget it, or ranread_setup to make it again";
		return "missing";
	}
	describe_relation(rel, t);
	relation_close(rel, AccessShareLock);
	if (t->missing)
	{
		*note = psprintf("its files are gone (%s: %s), removed outside PostgreSQL; "
						 "run ranread_purge to forget it, or ranread_setup to make it again",
						 t->relpath, strerror(t->file_errno));
		return "missing";
	}
	if (t->nblocks == 0)
	{
		*note = psprintf("%s; run ranread_setup again", empty_reason(t));
		return "empty";
	}
	if (t->nblocks * BLCKSZ != size)
	{
		*note = "its size on disk is not the size it was made with; run ranread_setup again";
		return "damaged";
	}
	if (!setup_can_use(t->spcoid))
	{
		struct stat st;

		if (stat(t->relpath, &st) == 0)
		{
			FsInfo		fi;

			fsinfo_read(t->relpath, &fi);
			if (fi.memory)
				*note = psprintf("its files were moved to a memory filesystem (%s at %s), where reads measure RAM: "
								 "batches refuse it; move it back with ALTER TABLE ... SET TABLESPACE, "
								 "or run ranread_setup in a tablespace on storage", fi.type, fi.mount_point);
		}
	}
	if (*note == NULL && !t->protected)
		*note = "not protected (a heap relation, made by ranread 1.0): VACUUM reads it and VACUUM FULL empties it; run ranread_setup again to protect it";
	return "ready";
}

/* ranread_target_state(relid, size_bytes): ready, empty, missing or damaged */
Datum
ranread_target_state(PG_FUNCTION_ARGS)
{
	RanreadTarget t;
	const char *note;

	memset(&t, 0, sizeof(t));
	PG_RETURN_TEXT_P(cstring_to_text(target_state(PG_GETARG_OID(0), PG_GETARG_INT64(1), &t, &note)));
}

/*
 * ranread_target_info(relid, size_bytes): state, the tablespace its files
 * are in now, whether maintenance leaves it alone, and what to do about it
 */
Datum
ranread_target_info(PG_FUNCTION_ARGS)
{
	RanreadTarget t;
	const char *note;
	const char *state;
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	memset(&t, 0, sizeof(t));
	state = target_state(PG_GETARG_OID(0), PG_GETARG_INT64(1), &t, &note);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	values[0] = CStringGetTextDatum(state);
	if (t.tablespace[0])
	{
		NameData   *n = palloc(sizeof(NameData));

		namestrcpy(n, t.tablespace);
		values[1] = NameGetDatum(n);
	}
	else
		nulls[1] = true;
	values[2] = BoolGetDatum(t.protected);
	nulls[2] = t.tablespace[0] == '\0';
	values[3] = note ? CStringGetTextDatum(note) : (Datum) 0;
	nulls[3] = note == NULL;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * Serialize setup and purge of one target name across sessions: the second
 * waits for the first to commit, then replaces what it made.
 *
 * The lock is on the extension's own object (pg_extension's row of ranread)
 * with a sub-id from the name, a lock no SQL command of another role can
 * take (an advisory lock could be: any role may call pg_advisory_lock).  It
 * shows in pg_locks as locktype "object", classid pg_extension; the wait is
 * PostgreSQL's lock wait: cancel, statement_timeout, lock_timeout and the
 * deadlock detector all end it.  Two names whose sub-ids meet only wait for
 * each other.
 */
static void
lock_target_name(const char *target)
{
	uint32		h = hash_bytes((const unsigned char *) target, strlen(target));

	LockDatabaseObject(ExtensionRelationId, get_extension_oid("ranread", false),
					   (uint16) (1 + h % 65535), ExclusiveLock);
	/* see what the session we waited for committed */
	InvalidateCatalogSnapshot();
}

/*
 * One setup at a time in the cluster, from its check of the free space to
 * its commit: two setups checked side by side would each see the space the
 * other is about to fill, and together take the reserve (docs/design.md,
 * "Failures").  A setup waits for the one before it as for
 * any lock (cancel, statement_timeout and lock_timeout end the wait), and
 * then checks the space that one left.  An advisory lock of no database:
 * no user's advisory lock can meet it (theirs carry their database).
 */
static void
lock_setup_space(void)
{
	LOCKTAG		tag;

	SET_LOCKTAG_ADVISORY(tag, InvalidOid, 0x72726472, 0x73657475, 2);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
}

/* Run SQL as the extension's owner; returns SPI_processed */
static uint64
exec_as_owner(const char *sql, int nargs, Oid *types, Datum *values, int expect)
{
	RanreadOwnerState owner;
	uint64		n;

	ranread_become_owner(&owner);
	SPI_connect();
	if (SPI_execute_with_args(sql, nargs, types, values, NULL, false, 0) != expect)
		elog(ERROR, "ranread target statement failed: %s", sql);
	n = SPI_processed;
	SPI_finish();
	ranread_restore_user(&owner);
	return n;
}

/* Drop a target's relation and catalog row; false if there was none */
static bool
target_drop(const char *name)
{
	RanreadTarget t;
	Oid			argtypes[1] = {NAMEOID};
	Datum		values[1];
	NameData	n;

	if (target_lookup(name, &t))
	{
		ObjectAddress obj;

		/* Not an extension member any more, so it may be dropped */
		deleteDependencyRecordsForClass(RelationRelationId, t.relid,
										ExtensionRelationId, DEPENDENCY_EXTENSION);
		CommandCounterIncrement();
		ObjectAddressSet(obj, RelationRelationId, t.relid);
		performDeletion(&obj, DROP_RESTRICT, 0);
	}

	namestrcpy(&n, name);
	values[0] = NameGetDatum(&n);
	return exec_as_owner(psprintf("DELETE FROM %s.ranread_target_catalog "
								  "WHERE target OPERATOR(pg_catalog.=) $1", ranread_schema_name()),
						 1, argtypes, values, SPI_OK_DELETE) > 0;
}

/*
 * The filesystem a new target goes to must be real storage, and must keep
 * its reserve free after the target (fsinfo.c says why and how much).
 */
static void
check_filesystem(const char *dir, const char *spcname, const char *target, int64 size,
				 const RanreadTarget *old)
{
	FsInfo		fi;
	FsReserve	r;
	int64		left;

	fsinfo_read(dir, &fi);
	if (fi.memory)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("tablespace \"%s\" is on a memory filesystem without real O_DIRECT", spcname),
				 errdetail("Its directory is on %s at %s; reads from tmpfs or ramfs measure memory, not storage.",
						   fi.type, fi.mount_point),
				 errhint("Create the target in a tablespace on the storage you want to measure.")));

	fsinfo_reserve(&fi, &r);
	left = (int64) fi.avail_bytes - size;
	if (left >= (int64) r.bytes)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_DISK_FULL),
			 errmsg("not enough free space in tablespace \"%s\" for target \"%s\"", spcname, target),
			 errdetail("The target needs " INT64_FORMAT " bytes (%s); the filesystem (%s at %s) has " UINT64_FORMAT " bytes available (%s), so it would leave %s%s, less than the reserve of %s%s.",
					   size, fsinfo_pretty(size), fi.type, fi.mount_point,
					   fi.avail_bytes, fsinfo_pretty(fi.avail_bytes),
					   left < 0 ? "a shortfall of " : "", fsinfo_pretty(left < 0 ? -left : left),
					   fsinfo_pretty(r.bytes),
					   !r.automatic ? " set by ranread.reserve" :
					   r.holds_wal ?
					   psprintf(": %s (5%% of the filesystem) for everything else there plus %s for WAL, because pg_wal is on this filesystem (twice max_wal_size, plus wal_keep_size)",
								fsinfo_pretty(r.base_bytes), fsinfo_pretty(r.wal_bytes)) :
					   psprintf(" (5%% of the filesystem) for everything else there%s",
								r.holds_data ? ", the data directory among it" : "")),
			 old && old->nblocks > 0 && fsinfo_same_device(old->relpath, fi.dev) &&
			 left + (int64) old->size_bytes >= (int64) r.bytes ?
			 errhint("The existing target \"%s\" (%s) is removed only when setup commits: run ranread_purge(%s) first to free its space.",
					 target, fsinfo_pretty(old->size_bytes), quote_literal_cstr(target)) :
			 fi.avail_bytes > r.bytes + MIN_TARGET_BYTES ?
			 errhint("Choose a size of at most %s or another tablespace, or lower the reserve: SET ranread.reserve = '...' (superuser; 0 keeps none).",
					 fsinfo_pretty(fi.avail_bytes - r.bytes)) :
			 errhint("Choose another tablespace, free space, or lower the reserve: SET ranread.reserve = '...' (superuser; 0 keeps none).")));
}

/* Warn when caches could answer instead of the disks */
static void
warn_if_small(int64 size)
{
	int64		ram = (int64) sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);

	if (ram > 0 && size < 2 * ram)
		ereport(WARNING,
				(errmsg("target size %s is less than twice the server's RAM (%s)",
						fsinfo_pretty(size), fsinfo_pretty(ram)),
				 errdetail("Reads bypass the page cache, but storage and controller caches may still answer."),
				 errhint("For figures from the disks, make the target at least %s.",
						 fsinfo_pretty(2 * ram))));
}

/*
 * ranread_internal.ranread_ram_bytes(): the server's RAM in bytes, as the
 * warning above counts it (NULL where the system does not say); the advisor
 * compares targets with it.
 */
Datum
ranread_ram_bytes(PG_FUNCTION_ARGS)
{
	int64		ram = (int64) sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);

	if (ram <= 0)
		PG_RETURN_NULL();
	PG_RETURN_INT64(ram);
}

/*
 * Parse the size argument, naming it on error.  Only pg_size_bytes' own
 * complaints about the text (data exceptions: not a size, out of range) are
 * replaced; a cancel or any other error passes unchanged.
 */
static int64
parse_size(text *size_txt)
{
	int64		size = 0;
	MemoryContext oldcxt = CurrentMemoryContext;

	PG_TRY();
	{
		size = DatumGetInt64(DirectFunctionCall1(pg_size_bytes, PointerGetDatum(size_txt)));
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		if (ERRCODE_TO_CATEGORY(edata->sqlerrcode) != ERRCODE_DATA_EXCEPTION)
			PG_RE_THROW();
		FlushErrorState();
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid size \"%s\" for ranread_setup", text_to_cstring(size_txt)),
				 errhint("Give a size as pg_size_bytes understands it, such as '1GB' or '500 MB'.")));
	}
	PG_END_TRY();

	if (size > MAX_TARGET_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("size %s for ranread_setup is too large", text_to_cstring(size_txt)),
				 errdetail("A target is one relation, which holds at most " INT64_FORMAT " bytes.",
						   MAX_TARGET_BYTES)));
	if (size < MIN_TARGET_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("size %s for ranread_setup is too small", text_to_cstring(size_txt)),
				 errdetail("A target must be at least 1 MB."),
				 errhint("Make the target at least twice the server's RAM for figures from the disks.")));
	/* whole blocks */
	return (size + BLCKSZ - 1) / BLCKSZ * BLCKSZ;
}

/*
 * The schema targets go in: ranread_target, the extension's own (1.1), or
 * the extension's schema where the extension is still at 1.0.
 */
static Oid
target_schema(void)
{
	Oid			nsp = get_namespace_oid("ranread_target", true);

	if (OidIsValid(nsp) &&
		getExtensionOfObject(NamespaceRelationId, nsp) == get_extension_oid("ranread", false))
		return nsp;
	return get_namespace_oid(ranread_schema_name_raw(), false);
}

/*
 * Take every privilege off a new target: ALTER DEFAULT PRIVILEGES gave it
 * the grants of tables its owner creates, which pg_dump would dump without
 * the relation.  As REVOKE does: pg_class.relacl, and the roles' shared
 * dependencies on it.
 */
static void
strip_privileges(Oid relid)
{
	Relation	pg_class = table_open(RelationRelationId, RowExclusiveLock);
	HeapTuple	tup = SearchSysCacheCopy1(RELOID, ObjectIdGetDatum(relid));
	bool		isnull;
	Datum		acl;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	acl = heap_getattr(tup, Anum_pg_class_relacl, RelationGetDescr(pg_class), &isnull);
	if (!isnull)
	{
		Oid		   *members;
		int			nmembers = aclmembers(DatumGetAclP(acl), &members);
		Datum		values[Natts_pg_class];
		bool		nulls[Natts_pg_class];
		bool		replace[Natts_pg_class];
		HeapTuple	newtup;

		memset(values, 0, sizeof(values));
		memset(nulls, false, sizeof(nulls));
		memset(replace, false, sizeof(replace));
		nulls[Anum_pg_class_relacl - 1] = true;
		replace[Anum_pg_class_relacl - 1] = true;
		newtup = heap_modify_tuple(tup, RelationGetDescr(pg_class), values, nulls, replace);
		CatalogTupleUpdate(pg_class, &newtup->t_self, newtup);
		updateAclDependencies(RelationRelationId, relid, 0,
							  ((Form_pg_class) GETSTRUCT(tup))->relowner,
							  nmembers, members, 0, NULL);
		CommandCounterIncrement();
	}
	table_close(pg_class, RowExclusiveLock);
}

/* Run the CREATE TABLE of a target: the one relation its access method lets this session make now */
static void
run_create(const char *sql, const char *relname, Oid nsp)
{
	target_am_allow_create(relname, nsp);
	PG_TRY();
	{
		if (SPI_execute(sql, false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "could not create the relation of a target: %s", sql);
	}
	PG_FINALLY();
	{
		target_am_end_create();
	}
	PG_END_TRY();
}

/* Create the (empty) relation of a target; returns its OID */
static Oid
create_target_relation(const char *target, const char *spcname)
{
	Oid			nsp = target_schema();
	const char *schema = quote_identifier(get_namespace_name(nsp));
	char	   *relname = target_relname(target);
	Oid			relid;
	ObjectAddress rel;
	ObjectAddress ext;
	RanreadOwnerState owner;
	bool		protected = ranread_sql_version() >= 11;

	/* created by the extension's owner: no one else has any privilege on it */
	ranread_become_owner(&owner);
	SPI_connect();
	run_create(psprintf("CREATE UNLOGGED TABLE %s.%s () %s WITH (autovacuum_enabled = off, vacuum_truncate = off) TABLESPACE %s",
						schema, quote_identifier(relname),
						protected ? "USING ranread_target" : "",
						quote_identifier(spcname)),
			   relname, nsp);
	SPI_execute(psprintf("COMMENT ON TABLE %s.%s IS %s", schema, quote_identifier(relname),
						 quote_literal_cstr(psprintf("ranread target \"%s\": benchmark data, "
													 "no rows; drop with ranread_purge", target))),
				false, 0);
	SPI_finish();
	ranread_restore_user(&owner);

	relid = get_relname_relid(relname, nsp);
	strip_privileges(relid);
	ObjectAddressSet(rel, RelationRelationId, relid);
	ObjectAddressSet(ext, ExtensionRelationId, get_extension_oid("ranread", false));
	recordDependencyOn(&rel, &ext, DEPENDENCY_EXTENSION);
	return relid;
}

/* The tablespace of a setup call, checked as CREATE TABLE would check it */
static Oid
setup_tablespace(const char *spcname)
{
	Oid			spcoid = get_tablespace_oid(spcname, true);

	if (!OidIsValid(spcoid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("tablespace \"%s\" does not exist", spcname),
				 errhint("See \\db in psql for the tablespaces of this server.")));
	if (spcoid == GLOBALTABLESPACE_OID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tablespace \"%s\" cannot hold a target", spcname),
				 errdetail("pg_global holds shared catalogs only.")));
	/* PostgreSQL's rule: CREATE on the tablespace unless it is the database's default */
	if (spcoid != MyDatabaseTableSpace &&
		pg_tablespace_aclcheck(spcoid, GetUserId(), ACL_CREATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to create a target in tablespace \"%s\"", spcname),
				 errdetail("Creating a relation in a tablespace other than the database's default (\"%s\") needs the CREATE privilege on it.",
						   get_tablespace_name(MyDatabaseTableSpace)),
				 errhint("GRANT CREATE ON TABLESPACE %s TO the role that runs ranread_setup.",
						 quote_identifier(spcname))));
	return spcoid;
}

/*
 * ranread_setup(size, tablespace, target): create or re-create a target,
 * every block written.
 */
Datum
ranread_setup(PG_FUNCTION_ARGS)
{
	int64		size;
	char	   *spcname;
	char	   *target;
	Oid			spcoid;
	Oid			relid;
	bool		replacing;
	RanreadTarget old;
	char	   *relpath;
	double		secs;
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};

	ranread_refuse_on_standby("ranread_setup");
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("size of ranread_setup must not be null"),
				 errhint("Give a size such as '1GB'; the default is '1GB'.")));
	spcname = pstrdup(name_arg(fcinfo, 1, "tablespace", "ranread_setup", "The default is pg_default."));
	target = pstrdup(target_arg(fcinfo, 2, "ranread_setup"));
	size = parse_size(PG_GETARG_TEXT_PP(0));
	spcoid = setup_tablespace(spcname);

	lock_target_name(target);
	lock_setup_space();
	replacing = target_lookup(target, &old);
	check_filesystem(spcoid == DEFAULTTABLESPACE_OID ? "base" : psprintf("pg_tblspc/%u", spcoid),
					 spcname, target, size, replacing ? &old : NULL);
	warn_if_small(size);

	/* Replace any earlier target of that name (undone if we fail) */
	target_drop(target);
	relid = create_target_relation(target, spcname);
	{
		Relation	rel = relation_open(relid, AccessExclusiveLock);

		relpath = relpathperm(rel->rd_node, MAIN_FORKNUM);
		relation_close(rel, NoLock);
	}
	secs = target_fill(target, relid, relpath, spcname, size);

	/* Record it */
	{
		Oid			argtypes[4] = {NAMEOID, OIDOID, NAMEOID, INT8OID};
		Datum		args[4];
		NameData	tn;
		NameData	sn;

		namestrcpy(&tn, target);
		namestrcpy(&sn, spcname);
		args[0] = NameGetDatum(&tn);
		args[1] = ObjectIdGetDatum(relid);
		args[2] = NameGetDatum(&sn);
		args[3] = Int64GetDatum(size);
		exec_as_owner(psprintf("INSERT INTO %s.ranread_target_catalog "
							   "(target, relid, tablespace, size_bytes) "
							   "VALUES ($1, $2, $3, $4)", ranread_schema_name()),
					  4, argtypes, args, SPI_OK_INSERT);
	}

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	{
		NameData   *tn = palloc(sizeof(NameData));
		NameData   *sn = palloc(sizeof(NameData));

		namestrcpy(tn, target);
		namestrcpy(sn, spcname);
		values[0] = NameGetDatum(tn);
		values[1] = NameGetDatum(sn);
	}
	values[2] = Int64GetDatum(size);
	values[3] = figures_datum(tupdesc, 3, secs, &nulls[3]);
	values[4] = figures_datum(tupdesc, 4, secs > 0 ? size / 1048576.0 / secs : 0, &nulls[4]);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* ranread_purge(target): drop a target and free its space */
Datum
ranread_purge(PG_FUNCTION_ARGS)
{
	char	   *target;

	RanreadTarget t;
	Oid			spcoid;
	char	   *files;

	ranread_refuse_on_standby("ranread_purge");
	target = pstrdup(target_arg(fcinfo, 0, "ranread_purge"));
	lock_target_name(target);
	memset(&t, 0, sizeof(t));
	spcoid = target_lookup(target, &t) ? t.spcoid : InvalidOid;
	if (!target_drop(target))
	{
		files = strncmp(target, "ranread_durability_", 19) == 0 ? durability_files_on(InvalidOid) : NULL;
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("ranread target \"%s\" does not exist", target),
				 files ? errhint("A durability file is no target: ranread_durability_check() reads it back and drops it, "
								 "ranread_durability_purge() drops it unchecked (%s).", files) :
				 errhint("SELECT * FROM ranread_targets lists the targets.")));
	}
	/*
	 * A purge is about its target: a durability file on the same tablespace
	 * (after a power cut, the evidence its check reads) stays, and is named
	 */
	if (OidIsValid(spcoid) && (files = durability_files_on(spcoid)) != NULL)
		ereport(NOTICE,
				(errmsg("ranread_purge leaves the durability file of %s on tablespace \"%s\"", files, t.tablespace),
				 errhint("ranread_durability_check() reads it back and drops it; ranread_durability_purge() drops it unchecked.")));
	PG_RETURN_BOOL(true);
}
