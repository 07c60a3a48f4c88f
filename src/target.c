/*
 * target.c
 *		Targets: the files a batch reads.  ranread_setup, ranread_purge,
 *		ranread_target_state, and what run.c needs to find a target's files.
 *
 * A target is an unlogged, zero-column relation of the extension
 * ("ranread_target_<md5 of its name>") in the chosen tablespace, made a
 * member of the extension with a pg_depend entry so that DROP EXTENSION
 * removes it and pg_dump never dumps it; unlogged main forks are left out of
 * base backups.  Nobody has privileges on it, and every page is a valid empty
 * heap page (header, no tuples) whose free space holds pseudo-random bytes,
 * so SQL sees no rows while the storage sees incompressible, unique data.
 *
 * Setup writes every block itself, bypassing shared buffers: the segment
 * files are opened with O_DIRECT and written in 1 MiB chunks, eight in
 * flight through io_uring (synchronous pwrite where io_uring is not allowed),
 * then fdatasync'd.  Nothing is sparse or fallocated.  The relation is created
 * in the caller's transaction, so any error (including running out of space
 * mid-fill, or a cancel) rolls it back and the server unlinks every segment.
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <liburing.h>

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_tablespace_d.h"
#include "commands/extension.h"
#include "commands/tablespace.h"
#include "common/file_perm.h"
#include "common/md5.h"
#include "common/relpath.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/smgr.h"
#include "common/hashfn.h"
#include "utils/inval.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "ranread.h"

PG_FUNCTION_INFO_V1(ranread_setup);
PG_FUNCTION_INFO_V1(ranread_purge);
PG_FUNCTION_INFO_V1(ranread_target_state);

#define TMPFS_MAGIC_NUMBER	0x01021994
#define RAMFS_MAGIC_NUMBER	0x858458f6
#define FILL_CHUNK			(1024 * 1024)
#define FILL_DEPTH			8
#define FILL_PROGRESS_NS	((uint64) 5 * 1000000000)
#define MIN_TARGET_BYTES	((int64) 1024 * 1024)
#define MAX_TARGET_BYTES	((int64) MaxBlockNumber * BLCKSZ)

/* Seed a xoshiro256 state from one number (splitmix64) */
void
rng_seed(uint64 *s, uint64 seed)
{
	for (int i = 0; i < 4; i++)
	{
		uint64		z = (seed += UINT64CONST(0x9E3779B97F4A7C15));

		z = (z ^ (z >> 30)) * UINT64CONST(0xBF58476D1CE4E5B9);
		z = (z ^ (z >> 27)) * UINT64CONST(0x94D049BB133111EB);
		s[i] = z ^ (z >> 31);
	}
}

/*
 * Make one valid, empty heap page whose free space is pseudo-random, with a
 * data checksum for blkno when the cluster has them.
 */
void
target_fill_page(char *page, BlockNumber blkno, uint64 *rng)
{
	uint64	   *p;
	uint64	   *end = (uint64 *) (page + BLCKSZ);

	PageInit((Page) page, BLCKSZ, 0);
	for (p = (uint64 *) (page + MAXALIGN(SizeOfPageHeaderData)); p < end; p++)
		*p = rng_next(rng);
	PageSetChecksumInplace((Page) page, blkno);
}

/* The relation name that backs a target */
static char *
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
static const char *
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

/*
 * Find a target in the catalog.  Returns false if there is none by that name
 * (or its relation has gone).
 */
bool
target_lookup(const char *name, RanreadTarget *t)
{
	char	   *schema = ranread_schema_name();
	Oid			argtypes[1] = {NAMEOID};
	Datum		values[1];
	bool		found = false;
	NameData	n;

	RanreadOwnerState owner;

	namestrcpy(&n, name);
	values[0] = NameGetDatum(&n);
	ranread_become_owner(&owner);
	SPI_connect();
	if (SPI_execute_with_args(psprintf("SELECT relid, tablespace, size_bytes FROM %s.ranread_target_catalog "
									   "WHERE target OPERATOR(pg_catalog.=) $1",
									   schema),
							  1, argtypes, values, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the ranread target catalog");
	if (SPI_processed == 1)
	{
		bool		isnull;
		HeapTuple	tup = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;

		t->relid = DatumGetObjectId(SPI_getbinval(tup, desc, 1, &isnull));
		strlcpy(t->tablespace, NameStr(*DatumGetName(SPI_getbinval(tup, desc, 2, &isnull))),
				NAMEDATALEN);
		t->size_bytes = DatumGetInt64(SPI_getbinval(tup, desc, 3, &isnull));
		found = SearchSysCacheExists1(RELOID, ObjectIdGetDatum(t->relid));
	}
	SPI_finish();
	ranread_restore_user(&owner);

	if (found)
	{
		Relation	rel = try_relation_open(t->relid, AccessShareLock);
		char	   *path;
		struct statx stx;

		if (rel == NULL)
			return false;		/* purged while we looked */
		path = relpathperm(rel->rd_node, MAIN_FORKNUM);

		strlcpy(t->relpath, path, MAXPGPATH);
		relation_close(rel, NoLock);	/* keep the lock: no purge mid-run */

		t->dio_align = 4096;
#ifdef STATX_DIOALIGN
		if (statx(AT_FDCWD, t->relpath, 0, STATX_DIOALIGN, &stx) == 0 &&
			(stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align > 0)
			t->dio_align = Max(stx.stx_dio_offset_align, stx.stx_dio_mem_align);
#endif
	}
	return found;
}

/* Blocks a relation has on disk, or -1 if it is gone */
static int64
target_nblocks(Oid relid)
{
	Relation	rel;
	int64		n;

	rel = try_relation_open(relid, AccessShareLock);
	if (rel == NULL)
		return -1;
	n = RelationGetNumberOfBlocks(rel);
	relation_close(rel, AccessShareLock);
	return n;
}

/* ranread_target_state(relid, size_bytes): ready, empty, missing or damaged */
Datum
ranread_target_state(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	int64		size = PG_GETARG_INT64(1);
	int64		nblocks;

	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		PG_RETURN_TEXT_P(cstring_to_text("missing"));
	nblocks = target_nblocks(relid);
	if (nblocks < 0)
		PG_RETURN_TEXT_P(cstring_to_text("missing"));
	if (nblocks == 0)
		PG_RETURN_TEXT_P(cstring_to_text("empty"));
	if (nblocks * BLCKSZ == size)
		PG_RETURN_TEXT_P(cstring_to_text("ready"));
	PG_RETURN_TEXT_P(cstring_to_text("damaged"));
}

/*
 * Serialize setup and purge of one target name across sessions: the second
 * waits for the first to commit, then replaces what it made.
 */
static void
lock_target_name(const char *target)
{
	uint64		h = hash_bytes_extended((const unsigned char *) target, strlen(target),
										UINT64CONST(0x72616e72656164));	/* "ranread" */

	DirectFunctionCall1(pg_advisory_xact_lock_int8, Int64GetDatum((int64) h));
	/* see what the session we waited for committed */
	AcceptInvalidationMessages();
	InvalidateCatalogSnapshot();
}

/* Drop a target's relation and catalog row; false if there was none */
static bool
target_drop(const char *name)
{
	RanreadTarget t;
	char	   *schema = ranread_schema_name();
	Oid			argtypes[1] = {NAMEOID};
	Datum		values[1];
	NameData	n;
	bool		had_row;
	RanreadOwnerState owner;

	namestrcpy(&n, name);
	values[0] = NameGetDatum(&n);

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

	ranread_become_owner(&owner);
	SPI_connect();
	if (SPI_execute_with_args(psprintf("DELETE FROM %s.ranread_target_catalog "
									   "WHERE target OPERATOR(pg_catalog.=) $1", schema),
							  1, argtypes, values, NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "could not update the ranread target catalog");
	had_row = SPI_processed > 0;
	SPI_finish();
	ranread_restore_user(&owner);
	return had_row;
}

/* Filesystem checks: real O_DIRECT and enough free space */
static void
check_filesystem(const char *dir, const char *spcname, const char *target,
				 int64 size, bool replacing)
{
	struct statfs sfs;
	struct statvfs svfs;
	uint64		avail;

	if (statfs(dir, &sfs) != 0 || statvfs(dir, &svfs) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not inspect the filesystem of tablespace \"%s\" at \"%s\": %m",
						spcname, dir)));

	if ((uint64) sfs.f_type == TMPFS_MAGIC_NUMBER || (uint64) sfs.f_type == RAMFS_MAGIC_NUMBER)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("tablespace \"%s\" is on a memory filesystem without real O_DIRECT",
						spcname),
				 errdetail("Reads from tmpfs or ramfs measure memory, not storage."),
				 errhint("Create the target in a tablespace on the storage you want to measure.")));

	avail = (uint64) svfs.f_bavail * svfs.f_frsize;
	if ((uint64) size + MIN_TARGET_BYTES > avail)
		ereport(ERROR,
				(errcode(ERRCODE_DISK_FULL),
				 errmsg("not enough free space in tablespace \"%s\" for target \"%s\"",
						spcname, target),
				 errdetail("The target needs " INT64_FORMAT " bytes plus 1 MB of headroom; the filesystem has " UINT64_FORMAT " bytes available.",
						   size, avail),
				 replacing ?
				 errhint("The existing target \"%s\" is only removed when setup commits: run ranread_purge(%s) first to free its space.",
						 target, quote_literal_cstr(target)) :
				 errhint("Choose a smaller size or another tablespace.")));
}

/* pg_size_pretty of a byte count, as a C string */
static char *
pretty(int64 bytes)
{
	return text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty,
															  Int64GetDatum(bytes))));
}

/* Warn when caches could answer instead of the disks */
static void
warn_if_small(int64 size)
{
	int64		ram = (int64) sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);

	if (ram > 0 && size < 2 * ram)
		ereport(WARNING,
				(errmsg("target size %s is less than twice the server's RAM (%s)",
						pretty(size), pretty(ram)),
				 errdetail("Reads bypass the page cache, but storage and controller caches may still answer."),
				 errhint("For figures from the disks, make the target at least %s.",
						 pretty(2 * ram))));
}

/* Parse the size argument, naming it on error */
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
		MemoryContextSwitchTo(oldcxt);
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

/* Create the (empty) relation of a target; returns its OID */
static Oid
create_target_relation(const char *target, const char *spcname)
{
	char	   *schema = ranread_schema_name();
	char	   *relname = target_relname(target);
	Oid			relid;
	ObjectAddress rel;
	ObjectAddress ext;
	RanreadOwnerState owner;

	/* created by the extension's owner: no one else has any privilege on it */
	ranread_become_owner(&owner);
	SPI_connect();
	if (SPI_execute(psprintf("CREATE UNLOGGED TABLE %s.%s () WITH (autovacuum_enabled = off, vacuum_truncate = off) TABLESPACE %s",
							 schema, quote_identifier(relname), quote_identifier(spcname)),
					false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not create the relation of target \"%s\"", target);
	SPI_execute(psprintf("COMMENT ON TABLE %s.%s IS %s", schema, quote_identifier(relname),
						 quote_literal_cstr(psprintf("ranread target \"%s\": benchmark data, "
													 "no rows; drop with ranread_purge", target))),
				false, 0);
	SPI_finish();
	ranread_restore_user(&owner);

	relid = get_relname_relid(relname, get_namespace_oid(ranread_schema_name_raw(), false));
	ObjectAddressSet(rel, RelationRelationId, relid);
	ObjectAddressSet(ext, ExtensionRelationId, get_extension_oid("ranread", false));
	recordDependencyOn(&rel, &ext, DEPENDENCY_EXTENSION);
	return relid;
}

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
					ereport(ERROR,
							(errcode(ERRCODE_DISK_FULL),
							 errmsg("could not write target \"%s\": no space left on device",
									f->target),
							 errdetail("The target was removed; nothing was kept."),
							 errhint("Free space in the tablespace or choose a smaller size.")));
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
		if (nfree == 0)
			fill_reap(f, false, true, free_stack, &nfree);
		slot = free_stack[--nfree];
		buf = f->bufs + (Size) slot * FILL_CHUNK;
		for (uint32 b = 0; b < nblk; b++)
			target_fill_page(buf + (Size) b * BLCKSZ, (BlockNumber) (next + b), f->rng);

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
					ereport(ERROR,
							(errcode(ERRCODE_DISK_FULL),
							 errmsg("could not write target \"%s\": no space left on device",
									f->target),
							 errdetail("The target was removed; nothing was kept."),
							 errhint("Free space in the tablespace or choose a smaller size.")));
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
	RanreadTarget t;
	Filler		f;
	bool		huge = ranread_huge_pages_guc;
	char	   *spcdir;
	uint64		start_ns;
	double		secs;
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};
	char	   *schema = ranread_schema_name();
	RanreadOwnerState owner;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("size of ranread_setup must not be null"),
				 errhint("Give a size such as '1GB'; the default is '1GB'.")));
	spcname = pstrdup(name_arg(fcinfo, 1, "tablespace", "ranread_setup", "The default is pg_default."));
	target = pstrdup(target_arg(fcinfo, 2, "ranread_setup"));
	size = parse_size(PG_GETARG_TEXT_PP(0));

	spcoid = get_tablespace_oid(spcname, true);
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

	if (spcoid != DEFAULTTABLESPACE_OID &&
		pg_tablespace_aclcheck(spcoid, GetUserId(), ACL_CREATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to create a target in tablespace \"%s\"", spcname),
				 errhint("GRANT CREATE ON TABLESPACE %s TO the role that runs ranread_setup.",
						 quote_identifier(spcname))));

	lock_target_name(target);
	history_fail_orphans();

	spcdir = spcoid == DEFAULTTABLESPACE_OID ? pstrdup(".") :
		psprintf("pg_tblspc/%u", spcoid);
	replacing = target_lookup(target, &t);
	check_filesystem(spcdir, spcname, target, size, replacing);
	warn_if_small(size);

	/* Replace any earlier target of that name (undone if we fail) */
	target_drop(target);
	relid = create_target_relation(target, spcname);

	{
		Relation	rel = relation_open(relid, AccessExclusiveLock);

		strlcpy(t.relpath, relpathperm(rel->rd_node, MAIN_FORKNUM), MAXPGPATH);
		relation_close(rel, NoLock);
	}

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
		f.uring = ranread_engine_guc != ENGINE_SYNC && engine_uring_available(why, sizeof(why)) &&
			io_uring_queue_init(FILL_DEPTH, &f.ring, 0) == 0;
	}
	ranread_raise_fd_limit();

	start_ns = ranread_now_ns();
	PG_TRY();
	{
		open_segments(&f, t.relpath, spcname);
		fill_target(&f, t.relpath, size);
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
	secs = (ranread_now_ns() - start_ns) / 1e9;

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
		ranread_become_owner(&owner);
		SPI_connect();
		if (SPI_execute_with_args(psprintf("INSERT INTO %s.ranread_target_catalog "
										   "(target, relid, tablespace, size_bytes) "
										   "VALUES ($1, $2, $3, $4)", schema),
								  4, argtypes, args, NULL, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "could not record target \"%s\"", target);
		SPI_finish();
		ranread_restore_user(&owner);
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
	values[3] = Float8GetDatum(secs);
	values[4] = Float8GetDatum(secs > 0 ? size / 1048576.0 / secs : 0);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* ranread_purge(target): drop a target and free its space */
Datum
ranread_purge(PG_FUNCTION_ARGS)
{
	char	   *target;

	target = pstrdup(target_arg(fcinfo, 0, "ranread_purge"));
	lock_target_name(target);
	if (!target_drop(target))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("ranread target \"%s\" does not exist", target),
				 errhint("SELECT * FROM ranread_targets lists the targets.")));
	PG_RETURN_BOOL(true);
}
