/*
 * verify_target.c
 *		ranread_verify(target): reads a whole target once and checks every
 *		block's stamp and checksum (verify.c).
 *
 * ranread_verify runs in the calling backend: it reads each segment file of
 * the target with O_DIRECT, 128 kB at a time into an aligned buffer,
 * checking for interrupts between reads, and checks every page's stamp and
 * checksum.  With no batch there is no acknowledged sequence to compare
 * with, so it cannot find lost writes; it says which batch wrote the newest
 * stamp it found and that batch's highest sequence.  Blocks past the end of
 * a file that is shorter than the target are counted as missing.  The first
 * bad blocks go into ranread_verify_errors with batch NULL, all rows of one
 * call sharing its start time (at).  A batch that writes while it reads
 * could make it see a page half written: it takes the cluster's claim, as a
 * batch's leader does, for the whole read, so it is refused while a batch
 * runs and every batch started meanwhile is refused (naming the check);
 * the claim is given back on an error, a cancel or an exit
 * (PG_ENSURE_ERROR_CLEANUP), and ranread_stop() stops the check as it
 * stops a batch.  Every 8 MB it says how far it is for ranread_progress
 * (progress.c).
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "utils/builtins.h"

#include "iobuf.h"
#include "progress.h"
#include "ranread.h"
#include "target.h"
#include "verify.h"

PG_FUNCTION_INFO_V1(ranread_verify);

/* how much of a segment file one read takes */
#define VERIFY_CHUNK	(128 * 1024)

/* What a whole-target check found */
typedef struct CheckState
{
	RanreadTarget t;
	uint64		claim;			/* the cluster's, held for the whole read */
	uint64		start_ns;
	uint64		counts[VERIFY_NKINDS];
	uint64		no_checksum;	/* pages whose checksum could not be checked */
	int64		newest_batch;	/* -1: no stamp found */
	uint64		max_seq;
	int			kept;
	VerifyError errors[RANREAD_VERIFY_ERRORS];
} CheckState;

static void
check_keep(CheckState *cs, const VerifyError *e)
{
	cs->counts[e->kind]++;
	if (cs->kept < RANREAD_VERIFY_ERRORS)
		cs->errors[cs->kept++] = *e;
}

/* One page of the whole-target check */
static void
check_page(CheckState *cs, const char *page, BlockNumber blkno)
{
	const PageStamp *ps = (const PageStamp *) (page + MAXALIGN(SizeOfPageHeaderData));
	VerifyError e;
	VerifyKind	kind = verify_page(page, blkno, cs->t.relid, 0, 0, &e);

	if (kind != VERIFY_OK)
	{
		check_keep(cs, &e);
		return;
	}
	cs->counts[VERIFY_OK]++;
	if (!(ps->flags & STAMP_CHECKSUM) && !DataChecksumsEnabled())
		cs->no_checksum++;
	if (ps->batch > cs->newest_batch)
	{
		cs->newest_batch = ps->batch;
		cs->max_seq = ps->seq;
	}
	else if (ps->batch == cs->newest_batch)
		cs->max_seq = Max(cs->max_seq, ps->seq);
}

/*
 * Read and check segment seg, which should hold nblocks blocks of the
 * target; blocks past the end of a short (or missing) file are missing: the
 * first is kept, with how many bytes of it there were, the rest counted.
 */
static void
check_segment(CheckState *cs, int seg, uint64 nblocks, char *buf)
{
	char	   *path = seg == 0 ? pstrdup(cs->t.relpath) : psprintf("%s.%d", cs->t.relpath, seg);
	int			fd = open(path, O_RDONLY | O_DIRECT | PG_BINARY);
	uint64		first = (uint64) seg * RELSEG_SIZE;
	uint64		done = 0;
	int			partial = 0;

	if (fd < 0 && errno != ENOENT)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open segment %d of target \"%s\" (\"%s\") with O_DIRECT: %m",
						seg, cs->t.name, path)));
	PG_TRY();
	{
		while (fd >= 0 && done < nblocks)
		{
			size_t		want = Min((uint64) VERIFY_CHUNK, (nblocks - done) * BLCKSZ);
			ssize_t		got;

			CHECK_FOR_INTERRUPTS();
			if (ranread_check_stopped(cs->claim))
				ereport(ERROR,
						(errcode(ERRCODE_QUERY_CANCELED),
						 errmsg("ranread_verify of target \"%s\" was stopped by ranread_stop() at block " UINT64_FORMAT,
								cs->t.name, first + done),
						 errdetail("Nothing of the check is recorded.")));
			if ((first + done) % 1024 == 0)	/* every 8 MB: ranread_progress */
				progress_bytes("reading", (first + done) * BLCKSZ, cs->t.size_bytes,
							   (ranread_now_ns() - cs->start_ns) / 1e9);
			got = pread(fd, buf, want, (off_t) (done * BLCKSZ));
			if (got < 0)
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not read block " UINT64_FORMAT " of target \"%s\" (\"%s\"): %m",
								first + done, cs->t.name, path)));
			for (ssize_t off = 0; off + BLCKSZ <= got; off += BLCKSZ)
				check_page(cs, buf + off, (BlockNumber) (first + done++));
			if (got < (ssize_t) want)
			{
				partial = (int) (got % BLCKSZ);
				break;
			}
		}
	}
	PG_FINALLY();
	{
		if (fd >= 0)
			close(fd);
	}
	PG_END_TRY();
	if (done < nblocks)
	{
		VerifyError e;

		memset(&e, 0, sizeof(e));
		e.kind = VERIFY_MISSING;
		e.block = first + done;
		e.found = partial;
		check_keep(cs, &e);
		cs->counts[VERIFY_MISSING] += nblocks - done - 1;
	}
}

/* Read and check every segment of the target, nblocks in all */
static void
check_target(CheckState *cs, uint64 nblocks)
{
	RanreadPages pages;
	char	   *buf = ranread_iobuf_alloc(VERIFY_CHUNK, false, &pages);

	if (buf == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory for ranread_verify's buffer")));
	PG_TRY();
	{
		for (int seg = 0; (uint64) seg * RELSEG_SIZE < nblocks; seg++)
			check_segment(cs, seg, Min((uint64) RELSEG_SIZE, nblocks - (uint64) seg * RELSEG_SIZE), buf);
	}
	PG_FINALLY();
	{
		ranread_iobuf_free(buf, VERIFY_CHUNK, false);
	}
	PG_END_TRY();
}

/* On the way out by an error or an exit: give the claim back */
static void
check_release(int code, Datum arg)
{
	ranread_release(DatumGetUInt64(arg));
}

/*
 * ranread_verify(target name): read the whole target once and check every
 * block; one row of counts.  The first bad blocks are recorded in
 * ranread_verify_errors (batch NULL).
 */
Datum
ranread_verify(PG_FUNCTION_ARGS)
{
	const char *name = target_arg(fcinfo, 0, "ranread_verify");
	CheckState *cs = palloc0(sizeof(CheckState));
	TupleDesc	desc;
	Datum		values[9];
	bool		nulls[9] = {false};
	uint64		nblocks;
	uint64		start_ns = ranread_now_ns();
	TimestampTz at = GetCurrentTransactionStartTimestamp();
	uint64		errors;

	ranread_refuse_on_standby("ranread_verify");
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "ranread_verify must return a row");
	if (!target_lookup(name, &cs->t))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("ranread target \"%s\" of ranread_verify does not exist", name),
				 errhint("The targets are listed in ranread_targets; make one with ranread_setup, e.g. SELECT * FROM ranread_setup('1GB', target => %s);",
						 quote_literal_cstr(name))));
	if (cs->t.missing)
		target_check_usable(&cs->t, "ranread_verify");
	/* the claim a batch takes, for the whole read: no batch writes meanwhile */
	cs->claim = ranread_claim_check(name, "ranread_verify");

	cs->newest_batch = -1;
	nblocks = cs->t.size_bytes / BLCKSZ;
	cs->start_ns = start_ns;
	progress_work_begin("verify", 0, name, 0, cs->claim, "reading", 0, -1);
	PG_ENSURE_ERROR_CLEANUP(check_release, UInt64GetDatum(cs->claim));
	{
		check_target(cs, nblocks);
	}
	PG_END_ENSURE_ERROR_CLEANUP(check_release, UInt64GetDatum(cs->claim));
	progress_work_end();
	ranread_release(cs->claim);

	if (cs->kept > 0)
	{
		RanreadOwnerState owner;

		ranread_become_owner(&owner);
		SPI_connect();
		for (int i = 0; i < cs->kept; i++)
			verify_insert_error(ranread_schema_name_raw(), 0, -1, name, &cs->errors[i],
								verify_expected_text(&cs->errors[i], 0),
								verify_found_text(&cs->errors[i], cs->t.relid), at);
		SPI_finish();
		ranread_restore_user(&owner);
	}

	errors = cs->counts[VERIFY_CORRUPT] + cs->counts[VERIFY_WRONG_BLOCK] + cs->counts[VERIFY_MISSING];
	if (errors > 0)
		ereport(WARNING,
				(errmsg("ranread_verify: target \"%s\" has " UINT64_FORMAT " bad blocks of " UINT64_FORMAT " (" UINT64_FORMAT " corrupt, " UINT64_FORMAT " wrong block, " UINT64_FORMAT " missing)",
						name, errors, nblocks, cs->counts[VERIFY_CORRUPT], cs->counts[VERIFY_WRONG_BLOCK],
						cs->counts[VERIFY_MISSING]),
				 errhint("The first %d are in ranread_verify_errors (batch NULL, at %s).", cs->kept,
						 timestamptz_to_str(at))));
	values[0] = Int64GetDatum((int64) nblocks);
	values[1] = Int64GetDatum((int64) errors);
	values[2] = Int64GetDatum((int64) cs->counts[VERIFY_CORRUPT]);
	values[3] = Int64GetDatum((int64) cs->counts[VERIFY_WRONG_BLOCK]);
	values[4] = Int64GetDatum((int64) cs->counts[VERIFY_MISSING]);
	values[5] = Int64GetDatum((int64) cs->no_checksum);
	values[6] = Int64GetDatum(cs->newest_batch);
	nulls[6] = cs->newest_batch < 0;
	values[7] = Int64GetDatum((int64) cs->max_seq);
	nulls[7] = cs->newest_batch < 0;
	values[8] = DirectFunctionCall2(numeric_round,
									DirectFunctionCall1(float8_numeric, Float8GetDatum((ranread_now_ns() - start_ns) / 1e9)),
									Int32GetDatum(3));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

