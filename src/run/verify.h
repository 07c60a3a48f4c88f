/*
 * verify.h
 *		Verified writes and reads: the stamp every target page carries, the
 *		check of a page read back, and the per-block words a verifying batch
 *		shares (verify.c; docs/design.md, "Verify").
 *
 * The stamp.  Every page ranread writes to a target (setup's fill and every
 * batch's writes) is a valid, empty heap page (io_fill_page): a page header
 * with pd_lower = pd_upper's free space in between, filled with
 * pseudo-random bytes.  The stamp is the first 32 bytes of that free space,
 * right after the page header (at MAXALIGN(SizeOfPageHeaderData)): a magic
 * word, the relation block number the page was written to, the target's
 * identity (its relation's OID, which setup changes and SET TABLESPACE
 * keeps), flags, the verifying batch that wrote it (0: setup's fill or a batch
 * without verify, so that a seeded batch repeated writes the same bytes)
 * and its write sequence in that batch (0 outside a verifying batch).  The free space of
 * a heap page is the server's to ignore, so the page stays a valid heap page.
 * Pages of the fill and of verifying batches carry PostgreSQL's page
 * checksum (pg_checksum_page, with the block number the stamp names) in
 * pd_checksum whether or not the cluster has data checksums, and say so in
 * the flags (STAMP_CHECKSUM); other batches' writes set it only where the
 * cluster has data checksums, as before.  A stamp costs a batch without
 * verify nothing it did not do before: four words instead of four random
 * ones.
 *
 * The check of a page read (verify_page): no magic or a checksum that does
 * not match is "corrupt" (a torn write, a bit flip, something else's
 * bytes); a page whole but stamped for another block or another target is
 * "wrong_block" (a misdirected write, or a read of the wrong place); a page
 * older than the newest write this batch had acknowledged for the block
 * when the read was issued is "lost" (the device acknowledged a write and
 * kept the old data, or gave old data back).  ranread_verify, which has no
 * batch, checks all but the last, and finds "missing" blocks (a truncated
 * file) too.
 *
 * The per-block words.  A verifying batch has, for each block of the region
 * it verifies on each target (the verifying groups' regions, first to last),
 * in its shared memory, a 64-bit word
 *	 bits  0..45  seq		the sequence of the last write acknowledged (completed)
 *						and not overlapped by another write of the block
 *	 bit	 46	  bad		a read of the block was found bad (counted once)
 *	 bits 47..62  inflight	writes of the block issued and not completed
 *	 bit	 63	  overlap	a write was issued while another was in flight;
 *						cleared when none is left
 * and a 32-bit count of the writes of the block issued (begun).  A writer,
 * before its write is submitted, adds itself to inflight (setting overlap if
 * another write was in flight), then counts itself in begun, and only then
 * takes its sequence from the batch's counter: so a write issued after
 * another of the block completed has the higher sequence, whatever delays
 * either had.  When the write completes it leaves inflight and, unless
 * overlap is set, sets seq to its sequence: alone in flight from issue to
 * completion, it is what the device holds now.
 * Two overlapping writes of one block may reach the device in either order,
 * so neither raises seq: the block's expectation stays what it was before
 * them, which both are newer than.  A reader takes the block's begun count
 * and then its word before its read is submitted, and its word and then
 * its begun count when it completes: if a write of the block was in flight
 * at either moment, or begun moved between them, the read raced a write and
 * may have seen either page, or a mix of both; it is counted as skipped, not
 * checked.  (A write that entered inflight after the first word was taken
 * counts itself in begun after that, so the first count cannot include it;
 * one that completed before the last word was taken had counted itself
 * before: so no write overlapping the read escapes both.)  Otherwise the page
 * must be whole and stamped for the block, and, when the word's seq at the
 * read's start is not 0, carry this batch and a sequence at least that seq.
 * So a read never reports a lost write it could not have seen, and every
 * read that did not race a write is checked.
 * A read found bad sets the block's bad bit; only the read that sets it
 * counts the block and keeps it among the first bad blocks: so a batch
 * counts bad blocks, each once (by the kind its first bad read found),
 * however often it reads them, while verify_checked and verify_skipped
 * count pages read (docs/design.md, "Verify").  No write or read of the
 * block looks at the bit.  The sequences stop at 2^46 - 1, 70 trillion
 * writes of one batch, 81 days at 10 million writes a second.
 * begun wraps after 2^32 writes of one block: to hide a race from one read,
 * that many writes of its block would have to begin and complete while it is
 * in flight, 7 minutes at 10 million writes a second to a single block, far
 * past the kernel's timeout for an I/O (30 s by default).  An 8-bit count
 * kept in the word (before 1.2) wrapped after 256, which a read stalled on a
 * busy small region could see: test/shell/53_verify.sh checks the counts
 * with a read held across 256 and 65536 writes (ranread_verify_words_selftest).
 */
#ifndef RANREAD_VERIFY_H
#define RANREAD_VERIFY_H

#include "c.h"

#include "port/atomics.h"
#include "datatype/timestamp.h"
#include "storage/block.h"

#define RANREAD_STAMP_MAGIC		((uint32) 0x52525631)	/* "RRV1" */
#define STAMP_CHECKSUM			0x0001	/* pd_checksum is pg_checksum_page's */
#define STAMP_VERIFIED			0x0002	/* written by a verifying batch */

/* The stamp, at MAXALIGN(SizeOfPageHeaderData) of the page */
typedef struct PageStamp
{
	uint32		magic;
	uint32		blkno;			/* the relation block it was written to */
	uint32		target;			/* the target's relation OID */
	uint32		flags;
	int64		batch;			/* 0: setup's fill */
	uint64		seq;			/* write sequence in that batch; 0 outside verify */
} PageStamp;

/* What a check found; the names are ranread_verify_errors.kind */
typedef enum VerifyKind
{
	VERIFY_OK = 0,
	VERIFY_CORRUPT,				/* no stamp, or the checksum does not match */
	VERIFY_WRONG_BLOCK,			/* whole, but another block's (or target's) */
	VERIFY_LOST,				/* older than a write acknowledged before the read */
	VERIFY_MISSING				/* beyond the end of a truncated file */
} VerifyKind;

#define VERIFY_NKINDS			(VERIFY_MISSING + 1)
#define RANREAD_VERIFY_ERRORS	100 /* bad blocks kept per batch (or check) */

/* One bad block, as found */
typedef struct VerifyError
{
	volatile bool ready;		/* filled in (the rest is written first) */
	int			group;
	int			target;			/* index in BatchParams.targets */
	VerifyKind	kind;
	uint64		block;			/* relation block number */
	bool		no_stamp;		/* corrupt: no ranread stamp at all */
	uint32		found_target;	/* wrong_block: the stamp's target */
	uint64		expected;		/* corrupt: checksum; wrong_block: block; lost: seq */
	uint64		found;
	int64		found_batch;	/* lost: the stamp's batch */
	uint64		at_ns;			/* CLOCK_MONOTONIC */
} VerifyError;

/* A verifying batch's shared state (in BatchShared) */
typedef struct VerifyShared
{
	pg_atomic_uint64 next_seq;	/* write sequences, from 1 */
	pg_atomic_uint32 nerrors;	/* bad blocks found, each once (errors[] keeps the first) */
	VerifyError errors[RANREAD_VERIFY_ERRORS];
} VerifyShared;

/* The per-block word, and the writes of the block begun (a pg_atomic_uint32 beside it) */
#define VW_SEQ_MASK		((UINT64CONST(1) << 46) - 1)
#define VW_BAD			(UINT64CONST(1) << 46)
#define VW_INFLIGHT_SHIFT 47
#define VW_INFLIGHT_ONE (UINT64CONST(1) << VW_INFLIGHT_SHIFT)
#define VW_INFLIGHT_MASK (UINT64CONST(0xFFFF) << VW_INFLIGHT_SHIFT)
#define VW_OVERLAP		(UINT64CONST(1) << 63)
#define VERIFY_MAX_INFLIGHT 65535	/* I/Os in flight a verifying batch may have */
#define VERIFY_BLOCK_BYTES	(sizeof(pg_atomic_uint64) + sizeof(pg_atomic_uint32))	/* per block */

/* A write of the block is about to be submitted (w: its word, begun: its count) */
static inline void
verify_word_write_begin(pg_atomic_uint64 *w, pg_atomic_uint32 *begun)
{
	uint64		old = pg_atomic_read_u64(w);
	uint64		new;

	do
	{
		new = old + VW_INFLIGHT_ONE;
		if (old & VW_INFLIGHT_MASK)
			new |= VW_OVERLAP;
	} while (!pg_atomic_compare_exchange_u64(w, &old, new));
	/* counted once in flight (both are full barriers): see the top of the file */
	pg_atomic_fetch_add_u32(begun, 1);
}

/* A write of the block with sequence seq has completed */
static inline void
verify_word_write_end(pg_atomic_uint64 *w, uint64 seq)
{
	uint64		old = pg_atomic_read_u64(w);
	uint64		new;

	do
	{
		new = old - VW_INFLIGHT_ONE;
		/* alone in flight from issue to completion: the device holds this write */
		if (!(old & VW_OVERLAP))
			new = (new & ~VW_SEQ_MASK) | seq;
		if ((new & VW_INFLIGHT_MASK) == 0)
			new &= ~VW_OVERLAP;
	} while (!pg_atomic_compare_exchange_u64(w, &old, new));
}

/* A read of the block is about to be submitted: what it is checked against */
static inline uint64
verify_word_read_begin(pg_atomic_uint64 *w, pg_atomic_uint32 *begun, uint32 *begun_before)
{
	*begun_before = pg_atomic_read_u32(begun);
	pg_read_barrier();
	return pg_atomic_read_u64(w);
}

/* Did a read of the block that began seeing (before, begun_before) race a write? */
static inline bool
verify_word_raced(pg_atomic_uint64 *w, pg_atomic_uint32 *begun, uint64 before, uint32 begun_before)
{
	uint64		after = pg_atomic_read_u64(w);

	pg_read_barrier();
	return ((before | after) & VW_INFLIGHT_MASK) != 0 ||
		pg_atomic_read_u32(begun) != begun_before;
}

/* A read of the block was found bad: is it the first (the block not yet counted)? */
static inline bool
verify_word_mark_bad(pg_atomic_uint64 *w)
{
	return (pg_atomic_fetch_or_u64(w, VW_BAD) & VW_BAD) == 0;
}

/* verify.c */
extern VerifyKind verify_page(const char *page, BlockNumber blkno, Oid target,
							  int64 batch, uint64 expected_seq, VerifyError *e);
extern const char *verify_kind_name(VerifyKind kind);
extern char *verify_expected_text(const VerifyError *e, int64 batch);
extern char *verify_found_text(const VerifyError *e, Oid target);
extern void verify_insert_error(const char *schema, int64 batch, int group, const char *target,
								const VerifyError *e, const char *expected, const char *found,
								TimestampTz at);

#endif							/* RANREAD_VERIFY_H */
