/*
 * io.c
 *		What the engines' loops share besides the inline steps of io.h:
 *		seeding a stream, the slots and their O_DIRECT buffers, the heap of
 *		paced slots, the reporters of a failed I/O, and the target pages that
 *		writes to a target carry.
 *
 * Runs in whichever process drives the streams: a batch's background
 * worker, or the backend that calls ranread_setup (the fill).  Nothing here
 * allocates once the run has started but the error reporters, which end it.
 */
#include "postgres.h"

#include <time.h>

#include "storage/bufpage.h"
#include "storage/checksum.h"

#include "io.h"
#include "iobuf.h"

/*
 * Seed stream s.  Its block sequence depends only on the seed, s, its
 * group's pattern, region and distribution, so the same seed repeats a
 * process's blocks.  A sequential group's processes each get an equal part
 * of the region.  The caller sets stats, intervals, fd_base and fill.
 */
void
io_stream_init(Stream *st, const BatchParams *p, int s)
{
	const GroupParams *g = &p->groups[batch_group_of(p, s)];
	uint64		n = g->unit_hi - g->unit_lo;
	uint64		k = (uint64) (s - g->first_stream);

	memset(st, 0, sizeof(*st));
	st->g = g;
	st->group = batch_group_of(p, s);
	rng_seed(st->rng, (uint64) p->seed * UINT64CONST(0x9E3779B97F4A7C15) + s);
	rng_seed(st->data_rng, ~((uint64) p->seed * UINT64CONST(0xD1B54A32D192ED03) + s));
	st->remaining = g->iterations > 0 ? (uint64) g->iterations : PG_UINT64_MAX;
	st->seq_lo = g->unit_lo + k * n / g->processes;
	st->seq_hi = Max(g->unit_lo + (k + 1) * n / g->processes, st->seq_lo + 1);
	st->seq_pos = st->seq_lo;
}

/*
 * Every stream's queue_depth slots, each with an aligned buffer of its
 * group's block size, all in one mapping (huge pages if asked and given:
 * w->pages says); the paced-slot heap.  Buffers of scratch writes get
 * incompressible bytes once; target writes get fresh pages per I/O
 * (io_prepare).  A worker without streams gets no slots.
 */
void
io_alloc_slots(Worker *w, bool huge)
{
	char	   *buf;
	int			slot = 0;

	w->nslots = 0;
	w->buf_bytes = 0;
	for (int i = 0; i < w->nstreams; i++)
	{
		const GroupParams *g = w->streams[i].g;

		w->nslots += g->queue_depth;
		w->buf_bytes += (Size) g->queue_depth * IOBUF_STRIDE(g->block_size);
	}
	if (w->nslots == 0)
		return;
	w->slots = palloc0(sizeof(Slot) * w->nslots);
	w->parked = palloc(sizeof(int) * w->nslots);
	w->huge = huge;
	w->bufs = buf = ranread_iobuf_alloc(w->buf_bytes, huge, &w->pages);
	if (buf == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory for %d I/O buffers (%zu bytes)", w->nslots, w->buf_bytes)));
	for (int i = 0; i < w->nstreams; i++)
	{
		Stream	   *st = &w->streams[i];
		const GroupParams *g = st->g;

		for (int q = 0; q < g->queue_depth; q++, slot++)
		{
			w->slots[slot].stream = i;
			w->slots[slot].buf = buf;
			w->slots[slot].len = (unsigned) g->block_size;
			/* verify: a read's words at its start, one per page */
			if (st->verify)
			{
				w->slots[slot].vwords = palloc0(sizeof(uint64) * (g->block_size / BLCKSZ));
				w->slots[slot].vbegun = palloc0(sizeof(uint32) * (g->block_size / BLCKSZ));
			}
			/* scratch writes: the same incompressible bytes every time */
			if (!st->fill)
				for (int b = 0; b + 8 <= g->block_size; b += 8)
				{
					uint64		r = rng_next(st->data_rng);

					memcpy(buf + b, &r, 8);
				}
			buf += IOBUF_STRIDE(g->block_size);
		}
	}
}

/* Give back what io_alloc_slots took (once the engine has let go of it) */
void
io_free_slots(Worker *w)
{
	ranread_iobuf_free(w->bufs, w->buf_bytes, w->huge);
	w->bufs = NULL;
	if (w->slots)
		pfree(w->slots);
	if (w->parked)
		pfree(w->parked);
	w->slots = NULL;
	w->parked = NULL;
	w->nslots = 0;
}

/* Paced slots: a binary min-heap of slot indexes on due_ns */
void
parked_push(Worker *w, int slot)
{
	int			i = w->nparked++;

	while (i > 0)
	{
		int			up = (i - 1) / 2;

		if (w->slots[w->parked[up]].due_ns <= w->slots[slot].due_ns)
			break;
		w->parked[i] = w->parked[up];
		i = up;
	}
	w->parked[i] = slot;
}

/* Take the paced slot due first off the heap */
int
parked_pop(Worker *w)
{
	int			top = w->parked[0];
	int			last = w->parked[--w->nparked];
	int			i = 0;

	for (;;)
	{
		int			c = 2 * i + 1;

		if (c >= w->nparked)
			break;
		if (c + 1 < w->nparked &&
			w->slots[w->parked[c + 1]].due_ns < w->slots[w->parked[c]].due_ns)
			c++;
		if (w->slots[last].due_ns <= w->slots[w->parked[c]].due_ns)
			break;
		w->parked[i] = w->parked[c];
		i = c;
	}
	if (w->nparked > 0)
		w->parked[i] = last;
	return top;
}

/*
 * The run failed: say why (the first failure only), which makes io_stopping
 * true, and stop the batch (a fill has no claim, and stops alone).
 */
static void
io_fail(Worker *w, IoFailure failure, int err, const char *msg)
{
	w->failure = failure;
	w->failure_errno = err;
	ranread_strlcpy(w->error, msg, sizeof(w->error));
	if (w->p->claim != 0)
		ranread_request_stop(w->p->claim, STOP_FAILED);
}

/* An I/O failed (err) or came back short (err 0, got bytes) */
void
io_error(Worker *w, Slot *s, int err, int got)
{
	const Stream *st = &w->streams[s->stream];
	const BatchTarget *t = &w->p->targets[st->g->target];
	int			seg = s->file - st->fd_base;

	if (w->error[0])
		return;
	if (err)
		io_fail(w, IO_FAILED, err,
				psprintf("could not %s %u bytes at offset " UINT64_FORMAT " of segment %d of target \"%s\": %s",
						 s->is_write ? "write" : "read", s->len, s->offset, seg, t->name, strerror(err)));
	else
		io_fail(w, IO_SHORT, 0,
				psprintf("short %s at offset " UINT64_FORMAT " of segment %d of target \"%s\": %d of %u bytes (was the file truncated?)",
						 s->is_write ? "write" : "read", s->offset, seg, t->name, got, s->len));
}

/* The fdatasync or fsync after a write failed: the write is not durable */
void
io_sync_error(Worker *w, Slot *s, int err)
{
	const Stream *st = &w->streams[s->stream];
	const BatchTarget *t = &w->p->targets[st->g->target];

	if (w->error[0])
		return;
	io_fail(w, IO_SYNC_FAILED, err,
			psprintf("could not %s segment %d of target \"%s\" after a write at offset " UINT64_FORMAT ": %s",
					 st->g->sync == SYNC_FSYNC ? "fsync" : "fdatasync", s->file - st->fd_base,
					 t->name, s->offset, strerror(err)));
}

/* The engine itself failed */
void
io_engine_error(Worker *w, const char *msg)
{
	if (w->error[0])
		return;
	io_fail(w, IO_ENGINE_FAILED, 0, msg);
}

/*
 * A target page: a valid, empty heap page whose free space is pseudo-random
 * (so that no two pages are alike and none compresses), stamped (verify.h)
 * for blkno with the stream's stamp and sequence seq, with a checksum for
 * blkno where the stamp says so (the fill, a verifying batch) or the cluster
 * has data checksums.
 */
void
io_fill_page(char *page, BlockNumber blkno, uint64 *rng, const PageStamp *stamp, uint64 seq)
{
	uint64	   *p;
	uint64	   *end = (uint64 *) (page + BLCKSZ);
	PageStamp  *ps = (PageStamp *) (page + MAXALIGN(SizeOfPageHeaderData));

	PageInit((Page) page, BLCKSZ, 0);
	*ps = *stamp;
	ps->magic = RANREAD_STAMP_MAGIC;
	ps->blkno = blkno;
	ps->seq = seq;
	for (p = (uint64 *) (ps + 1); p < end; p++)
		*p = rng_next(rng);
	if (stamp->flags & STAMP_CHECKSUM)
		((PageHeader) page)->pd_checksum = pg_checksum_page(page, blkno);
	else
		PageSetChecksumInplace((Page) page, blkno);
}

/*
 * Verify, as a slot's I/O is prepared (io_prepare, before it is submitted):
 * a write enters the blocks' words as in flight, then takes the batch's
 * next sequence and gets its pages stamped with it; a read notes the blocks' words
 * as they are now (verify.h says why).
 */
void
io_verify_begin(Worker *w, Slot *s)
{
	Stream	   *st = &w->streams[s->stream];
	int			pages = (int) (s->len / BLCKSZ);

	if (s->is_write)
	{
		for (int i = 0; i < pages; i++)
			verify_word_write_begin(&st->words[s->blkno - st->words_first + i],
									&st->begun[s->blkno - st->words_first + i]);
		/* the sequence once in the words: it follows the order of issue (verify.h) */
		s->vseq = Min(pg_atomic_fetch_add_u64(&st->vs->next_seq, 1), VW_SEQ_MASK);
		for (int i = 0; i < pages; i++)
			io_fill_page(s->buf + i * BLCKSZ, s->blkno + i, st->data_rng, &st->stamp, s->vseq);
		pg_write_barrier();
	}
	else
	{
		for (int i = 0; i < pages; i++)
			s->vwords[i] = verify_word_read_begin(&st->words[s->blkno - st->words_first + i],
												  &st->begun[s->blkno - st->words_first + i],
												  &s->vbegun[i]);
		pg_read_barrier();
	}
}

/* Keep one bad block (the first RANREAD_VERIFY_ERRORS of the batch) */
static void
verify_keep(Worker *w, Slot *s, VerifyError *e, uint64 now)
{
	Stream	   *st = &w->streams[s->stream];
	uint32		n = pg_atomic_fetch_add_u32(&st->vs->nerrors, 1);
	VerifyError *slot;

	if (n >= RANREAD_VERIFY_ERRORS)
		return;
	slot = &st->vs->errors[n];
	*slot = *e;
	slot->ready = false;
	slot->group = st->group;
	slot->target = st->g->target;
	slot->at_ns = now;
	pg_write_barrier();
	slot->ready = true;
}

/*
 * Verify, as a slot's I/O completes: a write leaves its blocks' words,
 * acknowledged; a read's pages are checked unless a write of theirs raced
 * the read, and a bad one is counted and kept the first time its block is
 * found bad (verify.h).
 */
void
io_verify_end(Worker *w, Slot *s, uint64 now)
{
	Stream	   *st = &w->streams[s->stream];
	int			pages = (int) (s->len / BLCKSZ);

	if (s->is_write)
	{
		pg_memory_barrier();
		for (int i = 0; i < pages; i++)
			verify_word_write_end(&st->words[s->blkno - st->words_first + i], s->vseq);
		return;
	}
	pg_read_barrier();
	for (int i = 0; i < pages; i++)
	{
		BlockNumber k = s->blkno - st->words_first + i;
		VerifyError e;
		VerifyKind	kind;

		if (verify_word_raced(&st->words[k], &st->begun[k], s->vwords[i], s->vbegun[i]))
		{
			st->stats->verify_skipped++;
			continue;
		}
		st->stats->verify_checked++;
		kind = verify_page(s->buf + i * BLCKSZ, s->blkno + i, st->stamp.target, st->stamp.batch,
						   s->vwords[i] & VW_SEQ_MASK, &e);
		if (likely(kind == VERIFY_OK) || !verify_word_mark_bad(&st->words[k]))
			continue;
		st->stats->verify_bad[kind]++;
		verify_keep(w, s, &e, now);
	}
}

/*
 * Sleep until the monotonic clock reads due (a paced slot's next I/O), in
 * slices short enough to notice a stop, a signal or the end of the
 * duration within 0.1 s; the owner hears of progress meanwhile
 */
void
io_sleep_until(Worker *w, uint64 due)
{
	const uint64 slice_ns = (uint64) 100 * 1000000;
	uint64		now;

	while ((now = ranread_now_ns()) < due && now < w->end_ns && !io_stopping(w))
	{
		uint64		until = Min(Min(due, now + slice_ns), w->end_ns);
		struct timespec ts;

		ts.tv_sec = until / 1000000000;
		ts.tv_nsec = until % 1000000000;
		(void) clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (now >= w->next_report_ns)
			io_report(w, now);
	}
}
