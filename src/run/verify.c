/*
 * verify.c
 *		Verified reads: the check of a page read back against its stamp
 *		(verify.h says what a stamp is and when a read is checked), the words
 *		of a bad block for the history, and the per-block words' self-test;
 *		batches (io.c, figures.c) and the whole-target check (verify_target.c)
 *		share them.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/checksum.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "ranread.h"
#include "verify.h"

PG_FUNCTION_INFO_V1(ranread_verify_words_selftest);

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
