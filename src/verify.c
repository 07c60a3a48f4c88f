/*
 * verify.c
 *		Verified reads: the check of a page read back against its stamp
 *		(verify.h says what a stamp is and when a read is checked), the words
 *		of a bad block for the history, and ranread_verify(target), which
 *		reads a whole target once and checks every block.
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
 * stops a batch.
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufpage.h"
#include "storage/checksum.h"
#include "storage/ipc.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "iobuf.h"
#include "ranread.h"
#include "target.h"
#include "verify.h"

PG_FUNCTION_INFO_V1(ranread_verify);
PG_FUNCTION_INFO_V1(ranread_verify_words_selftest);

#define VERIFY_CHUNK	(128 * 1024)

/*
 * Check a page read from relation block blkno of target: its stamp and
 * checksum, and, when expected_seq is not 0, that batch wrote it with a
 * sequence at least expected_seq.  What it found goes into *e when it is
 * not VERIFY_OK.
 */
VerifyKind
verify_page(const char *page, BlockNumber blkno, Oid target, int64 batch, uint64 expected_seq,
			VerifyError *e)
{
	const PageStamp *ps = (const PageStamp *) (page + MAXALIGN(SizeOfPageHeaderData));
	uint16		stored = ((const PageHeaderData *) page)->pd_checksum;

	memset(e, 0, sizeof(*e));
	e->block = blkno;
	if (ps->magic != RANREAD_STAMP_MAGIC)
	{
		e->kind = VERIFY_CORRUPT;
		e->no_stamp = true;
		return e->kind;
	}
	/* the checksum for the block the page says it is: a whole page elsewhere is misplaced, not torn */
	if ((ps->flags & STAMP_CHECKSUM) || DataChecksumsEnabled())
	{
		uint16		sum = pg_checksum_page(unconstify(char *, page), ps->blkno);

		if (sum != stored)
		{
			e->kind = VERIFY_CORRUPT;
			e->expected = sum;
			e->found = stored;
			return e->kind;
		}
	}
	if (ps->blkno != blkno || ps->target != target)
	{
		e->kind = VERIFY_WRONG_BLOCK;
		e->expected = blkno;
		e->found = ps->blkno;
		e->found_target = ps->target;
		return e->kind;
	}
	if (expected_seq != 0 && (ps->batch != batch || ps->seq < expected_seq))
	{
		e->kind = VERIFY_LOST;
		e->expected = expected_seq;
		e->found = ps->batch == batch ? ps->seq : 0;
		e->found_batch = ps->batch;
		return e->kind;
	}
	return VERIFY_OK;
}

/* The name of a kind, as ranread_verify_errors.kind has it */
const char *
verify_kind_name(VerifyKind kind)
{
	static const char *const names[] = {"ok", "corrupt", "wrong_block", "lost", "missing"};

	return names[kind];
}

/* What a bad block should have held, in words */
char *
verify_expected_text(const VerifyError *e, int64 batch)
{
	switch (e->kind)
	{
		case VERIFY_CORRUPT:
			return e->no_stamp ? pstrdup("a page stamped by ranread") :
				psprintf("checksum %u", (unsigned) e->expected);
		case VERIFY_WRONG_BLOCK:
			return psprintf("block " UINT64_FORMAT, e->expected);
		case VERIFY_LOST:
			return psprintf("write " UINT64_FORMAT " of batch " INT64_FORMAT " or a later one (acknowledged)",
							e->expected, batch);
		case VERIFY_MISSING:
			return psprintf("%d bytes", BLCKSZ);
		default:
			return pstrdup("");
	}
}

/* What a bad block held, in words */
char *
verify_found_text(const VerifyError *e, Oid target)
{
	switch (e->kind)
	{
		case VERIFY_CORRUPT:
			return e->no_stamp ? pstrdup("no ranread stamp") :
				psprintf("checksum %u", (unsigned) e->found);
		case VERIFY_WRONG_BLOCK:
			if (e->found_target != target)
				return psprintf("block " UINT64_FORMAT " of another target (relation %u)",
								e->found, e->found_target);
			return psprintf("block " UINT64_FORMAT, e->found);
		case VERIFY_LOST:
			if (e->found_batch == 0)
				return pstrdup("a page of setup's fill or of a batch without verify (batch 0 in its stamp)");
			if (e->found == 0)
				return psprintf("a page of batch " INT64_FORMAT, e->found_batch);
			return psprintf("write " UINT64_FORMAT, e->found);
		case VERIFY_MISSING:
			return psprintf("%d bytes: the file ends before it", (int) e->found);
		default:
			return pstrdup("");
	}
}

/* Insert one row of ranread_verify_errors (SPI connected, as the owner) */
void
verify_insert_error(const char *schema, int64 batch, int group, const char *target,
					const VerifyError *e, const char *expected, const char *found, TimestampTz at)
{
	Oid			types[8] = {INT8OID, INT4OID, NAMEOID, INT8OID, TEXTOID, TEXTOID, TEXTOID, TIMESTAMPTZOID};
	Datum		values[8];
	char		nulls[8] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
	NameData	name;

	namestrcpy(&name, target);
	values[0] = Int64GetDatum(batch);
	nulls[0] = batch == 0 ? 'n' : ' ';
	values[1] = Int32GetDatum(group + 1);
	nulls[1] = group < 0 ? 'n' : ' ';
	values[2] = NameGetDatum(&name);
	values[3] = Int64GetDatum((int64) e->block);
	values[4] = CStringGetTextDatum(verify_kind_name(e->kind));
	values[5] = CStringGetTextDatum(expected);
	values[6] = CStringGetTextDatum(found);
	values[7] = TimestampTzGetDatum(at);
	if (SPI_execute_with_args(psprintf("INSERT INTO %s.ranread_verify_errors "
									   "(batch, grp, target, block, kind, expected, found, at) "
									   "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
									   quote_identifier(schema)),
							  8, types, values, nulls, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not record a bad block of target \"%s\"", target);
}

/* What a whole-target check found */
typedef struct CheckState
{
	RanreadTarget t;
	uint64		claim;			/* the cluster's, held for the whole read */
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
	PG_ENSURE_ERROR_CLEANUP(check_release, UInt64GetDatum(cs->claim));
	{
		check_target(cs, nblocks);
	}
	PG_END_ENSURE_ERROR_CLEANUP(check_release, UInt64GetDatum(cs->claim));
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

/*
 * ranread_verify_words_selftest(writes integer, chained boolean) returns
 * boolean: does a read of a block, held in flight while the given number of
 * writes of the block begin and complete (one after another, or chained:
 * each begun before the one before it completes), count as raced?  The
 * per-block word and count of verify.h on this backend's stack: a test of
 * their logic only, with no batch.  Not in the extension's SQL:
 * test/shell/53_verify.sh creates it as a temporary function.
 */
Datum
ranread_verify_words_selftest(PG_FUNCTION_ARGS)
{
	int32		writes = PG_GETARG_INT32(0);
	bool		chained = PG_GETARG_BOOL(1);
	pg_atomic_uint64 word;
	pg_atomic_uint32 begun;
	uint64		before;
	uint32		begun_before;
	uint64		seq = 1;

	pg_atomic_init_u64(&word, 0);
	pg_atomic_init_u32(&begun, 0);
	/* a write acknowledged before the read: the word's seq */
	verify_word_write_begin(&word, &begun);
	verify_word_write_end(&word, seq++);
	before = verify_word_read_begin(&word, &begun, &begun_before);
	if (chained && writes > 0)
	{
		verify_word_write_begin(&word, &begun);
		for (int i = 1; i < writes; i++)
		{
			CHECK_FOR_INTERRUPTS();
			verify_word_write_begin(&word, &begun);
			verify_word_write_end(&word, seq++);
		}
		verify_word_write_end(&word, seq++);
	}
	else
		for (int i = 0; i < writes; i++)
		{
			CHECK_FOR_INTERRUPTS();
			verify_word_write_begin(&word, &begun);
			verify_word_write_end(&word, seq++);
		}
	PG_RETURN_BOOL(verify_word_raced(&word, &begun, before, begun_before));
}
