/*
 * durability.c
 *		The power-loss durability check (docs/writes-and-durability.md, "Does
 *		the storage keep what it flushes?"): diskchecker.pl's method in SQL.
 *		The C half: the durability file, each write to it made durable by a
 *		wal_sync_method, and the read-back against the log.
 *		sql/code/04_durability.sql has the calls (ranread_durability_start,
 *		_stop, _check) and the log.
 *
 * The durability file is the main fork of a permanent (logged) relation of
 * the ranread_target access method in schema ranread_target, created and
 * committed before the first write: PostgreSQL's start after a crash resets
 * only unlogged relations and empties only pgsql_tmp, so the file survives
 * crash recovery (the relation has no WAL but its creation, which replay
 * does not truncate); its access method keeps VACUUM and SELECT off its
 * pages; DROP EXTENSION drops it with the extension, and the check, a later
 * start and ranread_durability_purge drop it.
 *
 * Write number seq (1, 2, ...) goes to block (seq - 1) % blocks, a valid
 * empty heap page carrying a stamp (magic, the run, seq, the block) and
 * bytes drawn from seq, with PostgreSQL's page checksum: a block that reads
 * back with a wrong checksum or stamp is torn (or misdirected); one whose
 * seq is older than the last acknowledged write to that block lost that
 * write.  Only the newest write to each block can be checked, so a run
 * checks min(acknowledged, blocks) writes.
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "access/relation.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_tablespace_d.h"
#include "commands/extension.h"
#include "commands/tablespace.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufpage.h"
#include "storage/checksum.h"
#include "storage/fd.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "ranread.h"
#include "batch.h"
#include "fsinfo.h"
#include "params.h"
#include "target.h"

PG_FUNCTION_INFO_V1(ranread_durability_create);
PG_FUNCTION_INFO_V1(ranread_durability_write);
PG_FUNCTION_INFO_V1(ranread_durability_read);
PG_FUNCTION_INFO_V1(ranread_durability_drop);

#define DURABILITY_MAGIC	UINT64CONST(0x5252445552414231)	/* "RRDURAB1" */
#define DURABILITY_MAX_BLOCKS	(RELSEG_SIZE)	/* one segment file: 1 GB */

/* The stamp, just after the page header */
typedef struct DurabilityStamp
{
	uint64		magic;
	int64		durability;
	int64		seq;
	uint32		block;
} DurabilityStamp;

/* A durability test's number, as ranread_durability_seq gives them */
static void
durability_valid(int64 durability)
{
	if (durability < 1 || durability > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("durability test " INT64_FORMAT " is out of range", durability),
				 errhint("Durability tests are numbered from 1 to %d (ranread_durability.durability).", PG_INT32_MAX)));
}

/* The relation of run `durability` in ranread_target, or InvalidOid */
static Oid
durability_relid(int64 durability, char *relname)
{
	Oid			nsp = get_namespace_oid("ranread_target", false);

	snprintf(relname, NAMEDATALEN, "ranread_durability_" INT64_FORMAT, durability);
	return get_relname_relid(relname, nsp);
}

static char *
durability_path(int64 durability)
{
	char		relname[NAMEDATALEN];
	Oid			relid;
	Relation	rel;
	char	   *path;

	durability_valid(durability);
	relid = durability_relid(durability, relname);
	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("the durability file of durability test " INT64_FORMAT " does not exist", durability),
				 errdetail("Its relation ranread_target.%s was dropped.", relname)));
	rel = relation_open(relid, AccessShareLock);
	path = relpathperm(rel->rd_node, MAIN_FORKNUM);
	relation_close(rel, AccessShareLock);
	return path;
}

/* Fill page with write seq of run durability to block */
static void
durability_page(char *page, int64 durability, int64 seq, uint32 block)
{
	DurabilityStamp *st;
	uint64		x = (uint64) seq * UINT64CONST(0x9E3779B97F4A7C15) ^ (uint64) durability;
	char	   *p;

	PageInit((Page) page, BLCKSZ, 0);
	st = (DurabilityStamp *) PageGetContents((Page) page);
	st->magic = DURABILITY_MAGIC;
	st->durability = durability;
	st->seq = seq;
	st->block = block;
	/* the rest of the page: bytes drawn from seq (xorshift64) */
	for (p = (char *) (st + 1); p + sizeof(uint64) <= page + BLCKSZ; p += sizeof(uint64))
	{
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p, &x, sizeof(x));
	}
	((PageHeader) page)->pd_checksum = pg_checksum_page(page, block);
}

/* A method of the check: wal_sync_method's Linux names */
static RanreadSync
durability_method(text *t)
{
	char	   *m = text_to_cstring(t);

	for (int i = SYNC_FDATASYNC; i < RANREAD_NSYNC; i++)
		if (strcmp(m, ranread_sync_names[i]) == 0)
			return (RanreadSync) i;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid method \"%s\" for ranread_durability_start", m),
			 errhint("method is 'fdatasync', 'fsync', 'open_datasync' or 'open_sync', as wal_sync_method names them.")));
	return SYNC_NONE;			/* not reached */
}

/* The directory a relation of tablespace spcoid would go to */
static char *
tablespace_dir(Oid spcoid)
{
	if (spcoid == DEFAULTTABLESPACE_OID)
		return psprintf("base/%u", MyDatabaseId);
	return psprintf("pg_tblspc/%u/%s/%u", spcoid, TABLESPACE_VERSION_DIRECTORY, MyDatabaseId);
}

/* The tablespace a start names (NULL: the database's), checked; its oid */
static Oid
durability_tablespace(const char *spcname)
{
	Oid			spcoid;

	if (spcname == NULL)
		return MyDatabaseTableSpace;
	spcoid = get_tablespace_oid(spcname, true);
	if (!OidIsValid(spcoid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("tablespace \"%s\" of ranread_durability_start does not exist", spcname),
				 errhint("See \\db in psql for the tablespaces of this server.")));
	if (spcoid == GLOBALTABLESPACE_OID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tablespace \"pg_global\" of ranread_durability_start cannot hold the durability file"),
				 errhint("pg_global is the data directory's filesystem, as pg_default is: name pg_default.")));
	if (spcoid != MyDatabaseTableSpace &&
		pg_tablespace_aclcheck(spcoid, GetUserId(), ACL_CREATE) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLESPACE, spcname);
	return spcoid;
}

/*
 * The storage of the tablespace: not memory, and for a log in this
 * server's tables (local_log) not the device of pg_wal.  Returns where the
 * log goes and the devices, for the test's row.
 */
static char *
durability_storage(Oid spcoid, const char *spcname, bool local_log)
{
	char	   *spcdir = spcoid == DEFAULTTABLESPACE_OID ? "base" : psprintf("pg_tblspc/%u", spcoid);
	char	   *dirpath = tablespace_dir(spcoid);
	struct stat wal,
				dir;
	FsInfo		fs;

	if (stat(XLOGDIR, &wal) != 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not inspect \"%s\": %m", XLOGDIR)));
	/* the database's directory there may not exist yet: its tablespace's */
	if (stat(dirpath, &dir) != 0 && stat(spcdir, &dir) != 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not inspect \"%s\": %m", dirpath)));
	fsinfo_read(spcoid == DEFAULTTABLESPACE_OID ? "base" : psprintf("pg_tblspc/%u/", spcoid), &fs);
	if (fs.memory)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("tablespace \"%s\" of ranread_durability_start is on a memory filesystem (%s at %s)",
						spcname, fs.type, fs.mount_point),
				 errdetail("A power cut empties tmpfs and ramfs whatever was flushed: there is nothing to check.")));
	if (local_log && wal.st_dev == dir.st_dev)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tablespace \"%s\" of ranread_durability_start is on the storage of pg_wal (device %u:%u)",
						spcname, major(dir.st_dev), minor(dir.st_dev)),
				 errdetail("This server's own log of acknowledged writes would be lost with them in a power cut of that storage."),
				 errhint("Test a tablespace on other storage than pg_wal, or log to another server: log_conninfo => '...'.")));
	if (local_log)
		return psprintf("this server's tables: pg_wal on device %u:%u, the tested %s (%s at %s) on device %u:%u",
						major(wal.st_dev), minor(wal.st_dev), spcname, fs.type, fs.mount_point,
						major(dir.st_dev), minor(dir.st_dev));
	return psprintf("another server; the tested %s (%s at %s) on device %u:%u",
					spcname, fs.type, fs.mount_point, major(dir.st_dev), minor(dir.st_dev));
}

/*
 * The durability file's relation in ranread_target, made by the extension's
 * owner and a member of the extension (DROP EXTENSION drops it)
 */
static void
durability_make_relation(int64 durability, const char *spcname)
{
	char		relname[NAMEDATALEN];
	Oid			nsp = get_namespace_oid("ranread_target", false);
	RanreadOwnerState owner;
	ObjectAddress rel,
				ext;

	if (OidIsValid(durability_relid(durability, relname)))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("relation ranread_target.%s exists already", relname)));
	ranread_become_owner(&owner);
	SPI_connect();
	target_am_allow_create_logged(relname, nsp);
	PG_TRY();
	{
		if (SPI_execute(psprintf("CREATE TABLE ranread_target.%s () USING ranread_target "
								 "WITH (autovacuum_enabled = off, vacuum_truncate = off) TABLESPACE %s",
								 quote_identifier(relname), quote_identifier(spcname)),
						false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "could not create the durability file's relation");
	}
	PG_FINALLY();
	{
		target_am_end_create();
	}
	PG_END_TRY();
	SPI_execute(psprintf("COMMENT ON TABLE ranread_target.%s IS %s", quote_identifier(relname),
						 quote_literal_cstr(psprintf("ranread durability test " INT64_FORMAT
													 ": its durability file; ranread_durability_check reads and drops it",
													 durability))),
				false, 0);
	SPI_finish();
	ranread_restore_user(&owner);
	ObjectAddressSet(rel, RelationRelationId, durability_relid(durability, relname));
	ObjectAddressSet(ext, ExtensionRelationId, get_extension_oid("ranread", false));
	recordDependencyOn(&rel, &ext, DEPENDENCY_EXTENSION);
	CommandCounterIncrement();
}

/* Size the durability file: blocks x 8 kB, sparse, the size flushed */
static void
durability_size_file(int64 durability, int64 blocks)
{
	char	   *path = durability_path(durability);
	int			fd = OpenTransientFile(path, O_RDWR | PG_BINARY);

	if (fd < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not open \"%s\": %m", path)));
	if (ftruncate(fd, (off_t) blocks * BLCKSZ) != 0 || pg_fsync(fd) != 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not size \"%s\": %m", path)));
	CloseTransientFile(fd);
}

/*
 * ranread_internal.ranread_durability_create(durability, tablespace, method,
 * blocks, local_log) returns text: check every argument and, for a log in
 * this server's tables, that pg_wal is on another device than the
 * tablespace; then create the durability file's relation (the caller
 * commits it before the first write) and size the file.  Returns where the
 * log goes and the devices.
 */
Datum
ranread_durability_create(PG_FUNCTION_ARGS)
{
	int64		durability = PG_GETARG_INT64(0);
	char	   *spcname = PG_ARGISNULL(1) ? NULL : NameStr(*PG_GETARG_NAME(1));
	int64		blocks = PG_ARGISNULL(3) ? 0 : PG_GETARG_INT64(3);
	bool		local_log = PG_ARGISNULL(4) ? true : PG_GETARG_BOOL(4);
	Oid			spcoid;
	char	   *note;

	durability_valid(durability);
	if (PG_ARGISNULL(2) || PG_ARGISNULL(3) || PG_ARGISNULL(4))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("method, blocks and local_log of ranread_durability_create must not be NULL")));
	(void) durability_method(PG_GETARG_TEXT_PP(2));
	if (blocks < 1 || blocks > DURABILITY_MAX_BLOCKS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("size %s of ranread_durability_start is out of range",
						fsinfo_pretty((uint64) blocks * BLCKSZ)),
				 errhint("size is from 8 kB (one block) to 1 GB (one segment file).")));
	spcoid = durability_tablespace(spcname);
	spcname = get_tablespace_name(spcoid);
	note = durability_storage(spcoid, spcname, local_log);
	durability_make_relation(durability, spcname);
	durability_size_file(durability, blocks);
	PG_RETURN_TEXT_P(cstring_to_text(note));
}

/* The open durability file (kept across calls of one run) */
static int	cur_fd = -1;
static int64 cur_durability = -1;
static RanreadSync cur_method = SYNC_NONE;
static char cur_page[BLCKSZ] pg_attribute_aligned(4096);	/* O_DIRECT */

/*
 * ranread_internal.ranread_durability_write(durability, method, seq, blocks): write
 * number seq, made durable by method; returns when the storage has
 * acknowledged it.
 */
Datum
ranread_durability_write(PG_FUNCTION_ARGS)
{
	int64		durability = PG_GETARG_INT64(0);
	RanreadSync method = durability_method(PG_GETARG_TEXT_PP(1));
	int64		seq = PG_GETARG_INT64(2);
	int64		blocks = PG_GETARG_INT64(3);
	uint32		block;

	if (seq < 1 || blocks < 1 || blocks > DURABILITY_MAX_BLOCKS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("write " INT64_FORMAT " of " INT64_FORMAT " blocks is out of range", seq, blocks),
				 errhint("seq is 1 or more, blocks from 1 to %d.", DURABILITY_MAX_BLOCKS)));
	block = (uint32) ((seq - 1) % blocks);
	if (cur_fd < 0 || cur_durability != durability || cur_method != method)
	{
		char	   *path = durability_path(durability);
		int			flags = O_RDWR | PG_BINARY;

		if (cur_fd >= 0)
			close(cur_fd);
		cur_fd = -1;
		if (method == SYNC_OPEN_DATASYNC)
			flags |= O_DSYNC | O_DIRECT;
		else if (method == SYNC_OPEN_SYNC)
			flags |= O_SYNC | O_DIRECT;
		/* a plain fd: it outlives transactions, closed at the next run or exit */
		cur_fd = open(path, flags);
		if (cur_fd < 0)
			ereport(ERROR, (errcode_for_file_access(), errmsg("could not open \"%s\": %m", path)));
		cur_durability = durability;
		cur_method = method;
	}
	durability_page(cur_page, durability, seq, block);
	if (pwrite(cur_fd, cur_page, BLCKSZ, (off_t) block * BLCKSZ) != BLCKSZ)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write block %u of the durability file: %m", block)));
	if ((method == SYNC_FDATASYNC && fdatasync(cur_fd) != 0) ||
		(method == SYNC_FSYNC && fsync(cur_fd) != 0))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not %s the durability file: %m", ranread_sync_names[method])));
	PG_RETURN_VOID();
}

/*
 * ranread_internal.ranread_durability_read(durability, blocks, acknowledged):
 * read the file back.  checked: acknowledged writes the file can show (the
 * newest to each block); lost: of those, the ones it does not hold; torn:
 * blocks with a bad checksum or stamp; unacknowledged: blocks holding a
 * write newer than the last acknowledged (written, not yet logged).
 */
Datum
ranread_durability_read(PG_FUNCTION_ARGS)
{
	int64		durability = PG_GETARG_INT64(0);
	int64		blocks = PG_GETARG_INT64(1);
	int64		acked = PG_GETARG_INT64(2);
	char	   *path = durability_path(durability);
	char	   *page = palloc(BLCKSZ);
	int64		checked = 0,
				lost = 0,
				torn = 0,
				newer = 0,
				first_lost = 0;
	int			fd;
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "durability_read must return a row");
	if (blocks < 1 || blocks > DURABILITY_MAX_BLOCKS || acked < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("blocks " INT64_FORMAT " or acknowledged " INT64_FORMAT " is out of range", blocks, acked)));
	if (cur_fd >= 0)
	{
		close(cur_fd);
		cur_fd = -1;
	}
	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not open \"%s\": %m", path)));
	for (int64 b = 0; b < blocks; b++)
	{
		ssize_t		n;
		int64		expected = 0;	/* the newest acknowledged write to b */
		int64		found = 0;
		bool		bad = false;
		DurabilityStamp *st;

		CHECK_FOR_INTERRUPTS();
		if (acked >= b + 1)
			expected = b + 1 + ((acked - (b + 1)) / blocks) * blocks;
		n = pread(fd, page, BLCKSZ, (off_t) b * BLCKSZ);
		if (n < 0)
			ereport(ERROR, (errcode_for_file_access(),
							errmsg("could not read block " INT64_FORMAT " of \"%s\": %m", b, path)));
		if (n < BLCKSZ)
			memset(page + n, 0, BLCKSZ - n);
		if (PageIsNew((Page) page))
			found = 0;			/* never written (or the write was lost) */
		else
		{
			st = (DurabilityStamp *) PageGetContents((Page) page);
			if (((PageHeader) page)->pd_checksum != pg_checksum_page(page, (BlockNumber) b) ||
				st->magic != DURABILITY_MAGIC || st->durability != durability ||
				st->block != (uint32) b)
				bad = true;
			else
				found = st->seq;
		}
		if (bad)
			torn++;
		else if (found > acked)
			newer++;
		if (expected > 0)
		{
			checked++;
			if (bad || found < expected)
			{
				lost++;
				if (first_lost == 0 || expected < first_lost)
					first_lost = expected;
			}
		}
	}
	CloseTransientFile(fd);
	values[0] = Int64GetDatum(checked);
	values[1] = Int64GetDatum(lost);
	values[2] = Int64GetDatum(torn);
	values[3] = Int64GetDatum(newer);
	values[4] = Int64GetDatum(first_lost);
	nulls[4] = first_lost == 0;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * The durability files on tablespace spcoid (InvalidOid: on any), as "test
 * 3 (64 MB)" phrases, or NULL when there are none.  ranread_purge names
 * them and leaves them: after a power cut such a file is the evidence the
 * check reads, which only ranread_durability_check (or, given up,
 * ranread_durability_purge) may drop.
 */
char *
durability_files_on(Oid spcoid)
{
	MemoryContext caller = CurrentMemoryContext;
	char	   *found = NULL;
	bool		isnull;
	Datum		d;

	SPI_connect();
	ranread_spi_select(psprintf("SELECT pg_catalog.string_agg(pg_catalog.format('test %%s (%%s)', "
								"pg_catalog.substr(c.relname, 20), pg_catalog.pg_size_pretty(pg_catalog.pg_relation_size(c.oid))), "
								"', ' ORDER BY pg_catalog.substr(c.relname, 20)::pg_catalog.int8) "
								"FROM pg_catalog.pg_class c "
								"WHERE c.relnamespace OPERATOR(pg_catalog.=) 'ranread_target'::pg_catalog.regnamespace "
								"AND c.relname OPERATOR(pg_catalog.~) '^ranread_durability_[0-9]+$' "
								"AND (%u OPERATOR(pg_catalog.=) 0 OR "
								"CASE c.reltablespace WHEN 0 THEN %u ELSE c.reltablespace END OPERATOR(pg_catalog.=) %u)",
								spcoid, MyDatabaseTableSpace, spcoid));
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (!isnull)
		found = MemoryContextStrdup(caller, TextDatumGetCString(d));
	SPI_finish();
	return found;
}

/* ranread_internal.ranread_durability_drop(durability): drop the file; true if it was there */
Datum
ranread_durability_drop(PG_FUNCTION_ARGS)
{
	int64		durability = PG_GETARG_INT64(0);
	char		relname[NAMEDATALEN];
	Oid			relid;
	ObjectAddress rel;

	durability_valid(durability);
	relid = durability_relid(durability, relname);
	if (durability == cur_durability && cur_fd >= 0)
	{
		close(cur_fd);
		cur_fd = -1;
	}
	if (!OidIsValid(relid))
		PG_RETURN_BOOL(false);
	/* as ranread_purge drops a target: no longer a member, then dropped */
	deleteDependencyRecordsForClass(RelationRelationId, relid,
									ExtensionRelationId, DEPENDENCY_EXTENSION);
	CommandCounterIncrement();
	ObjectAddressSet(rel, RelationRelationId, relid);
	performDeletion(&rel, DROP_RESTRICT, 0);
	PG_RETURN_BOOL(true);
}
