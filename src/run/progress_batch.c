/*
 * progress_batch.c
 *		A batch's progress, as its leader sees it while it waits: the phase,
 *		the I/Os and measured seconds so far, the IOPS and p99 of the last
 *		seconds, the time left; published for ranread_progress (progress.c)
 *		and said in a NOTICE every 5 s (docs/running.md, "Watching a run
 *		from another session").
 *
 * Nothing here touches the hot loop: the I/Os are the counts each worker
 * publishes (WorkerSlot.ios), the p99 comes from the per-second histograms
 * the leader takes anyway (batch.h), merged over the last seconds
 * published (hsec_done) and every group.  The leader calls
 * batch_progress_watch on each of its wakes (ten a second); the slot is
 * written then, the NOTICE when it is due.
 *
 * The NOTICE: a batch that runs on its own says
 *	 "ranread batch 7: 10 s of 30, 98000 I/Os: 9800 IOPS, p99 0.412 ms;
 *	  00:00:20 left, done at about 12:34:56"
 * and a step of a call that says where it is (ranread_progress_call: a
 * sweep's step, a study's point) says the call's line at NOTICE, where the
 * step's own NOTICEs are DEBUG1 (leader.c, batch_is_step):
 *	 "sweep 3: step 4 of at most 8, 40 processes, 10 s of 30: 9800 IOPS,
 *	  p99 3.104 ms; 00:03:20 left at most, done by about 12:34:56"
 * (a sweep may stop before its last step, so its time left is a bound).
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "pgtime.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"

#include "calls.h"
#include "leader.h"
#include "progress.h"
#include "ranread.h"

#define RECENT_SECONDS	5

/* Sum of the measured I/Os the workers have published */
static uint64
batch_ios(const BatchShared *bs)
{
	uint64		ios = 0;

	for (int i = 0; i < bs->p.nworkers; i++)
		ios += bs->workers[i].ios;
	return ios;
}

/* Have all workers finished their I/O (or left)? */
static bool
batch_io_over(const BatchShared *bs)
{
	for (int i = 0; i < bs->p.nworkers; i++)
		if (!bs->workers[i].done && !bs->workers[i].exited)
			return false;
	return true;
}

/* The I/Os a batch by iterations does in all; 0 for a batch by duration */
static uint64
planned_ios(const BatchParams *p)
{
	uint64		sum = 0;

	if (p->duration_ns > 0)
		return 0;
	for (int g = 0; g < p->ngroups; g++)
		sum += (uint64) p->groups[g].iterations * p->groups[g].processes;
	return sum;
}

/*
 * The p99 of the last published seconds (at most RECENT_SECONDS), every
 * group merged, from the per-second histograms; -1 where there is none
 */
static double
recent_p99(BatchShared *bs, ProgressWatch *pw)
{
	int			done = bs->hsec_done;
	HistSecondEntry *pool = batch_hsec_pool(bs);
	RanreadHist *h = pw->hist;
	int			lo = -1;
	int			hi = -1;

	pg_read_barrier();
	if (!bs->p.timing || done <= 0)
		return -1;
	memset(h, 0, sizeof(RanreadHist));
	for (int s = Max(done - RECENT_SECONDS, 0); s < done; s++)
		for (int g = 0; g < bs->p.ngroups; g++)
		{
			HistSecondIndex *ix = batch_hsec_index(bs, s, g);

			if (ix->first == HSEC_UNKNOWN)
				continue;
			for (uint32 e = 0; e < ix->n; e++)
			{
				HistSecondEntry *en = &pool[ix->first + e];

				h->buckets[en->bucket] += en->count;
				h->count += en->count;
				lo = lo < 0 ? en->bucket : Min(lo, (int) en->bucket);
				hi = Max(hi, (int) en->bucket);
			}
		}
	if (h->count == 0)
		return -1;
	/* the buckets' own bounds: no exact min and max here */
	h->min_ns = hist_bucket_low(lo);
	h->max_ns = hist_bucket_high(hi) - 1;
	return hist_percentile_ms(h, 99);
}

/* The IOPS of the last seconds (a sample a second, RECENT_SECONDS back) */
static double
recent_iops(ProgressWatch *pw, uint64 now, uint64 ios)
{
	int			n = pw->nsamples;

	if (n == 0 || now - pw->sample_ns[(n - 1) % PROGRESS_SAMPLES] >= 1000000000)
	{
		pw->sample_ns[n % PROGRESS_SAMPLES] = now;
		pw->sample_ios[n % PROGRESS_SAMPLES] = ios;
		pw->nsamples = ++n;
	}
	{
		int			oldest = n > PROGRESS_SAMPLES ? n - PROGRESS_SAMPLES : 0;
		uint64		t0 = pw->sample_ns[oldest % PROGRESS_SAMPLES];
		uint64		i0 = pw->sample_ios[oldest % PROGRESS_SAMPLES];

		if (now - t0 < 500000000)
			return -1;
		return (ios - i0) / ((now - t0) / 1e9);
	}
}

/* Seconds as HH:MM:SS (hours past 24 as they are) */
static char *
hms(double secs)
{
	int64		s = (int64) llround(Max(secs, 0));

	return psprintf("%02lld:%02d:%02d", (long long) (s / 3600), (int) (s / 60 % 60), (int) (s % 60));
}

/* The clock time (the session's time zone) secs from now, HH:MM:SS */
static char *
clock_in(double secs)
{
	TimestampTz t = GetCurrentTimestamp() + (TimestampTz) llround(Max(secs, 0) * 1e6);
	struct pg_tm tm;
	fsec_t		fsec;
	int			tz;

	if (timestamp2tm(t, &tz, &tm, &fsec, NULL, NULL) != 0)
		return pstrdup("?");
	return psprintf("%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* The progress line of a batch, or of the step of the call it is */
static void
progress_notice(const BatchShared *bs, const ProgressWork *w, int level)
{
	const BatchParams *p = &bs->p;
	ProgressCall c;
	StringInfoData s;
	bool		step = progress_call_of_mine(&c) && c.step > 0;
	bool		bound = false;
	double		left = w->remaining;

	initStringInfo(&s);
	if (step)
	{
		bound = c.kind == CALL_SWEEP;
		appendStringInfo(&s, "%s " INT64_FORMAT ": %s %d",
						 c.kind == CALL_LATENCY_TARGET ? "latency target" :
						 ranread_call_kind_name((RanreadCallKind) c.kind), c.id,
						 c.kind == CALL_STUDY ? "point" : c.kind == CALL_LATENCY_TARGET ? "window" : "step",
						 c.step);
		if (c.steps > 0)
			appendStringInfo(&s, " of %s%d", bound ? "at most " : "", c.steps);
		appendStringInfo(&s, ", %d process%s, ", p->processes, p->processes == 1 ? "" : "es");
		level = NOTICE;
		if (left >= 0)
			left = c.after >= 0 ? left + c.after : -1;
	}
	else
		appendStringInfo(&s, "ranread batch " INT64_FORMAT ": ", p->batch);
	appendStringInfo(&s, "%.0f s", w->seconds);
	if (p->duration_ns > 0)
		appendStringInfo(&s, " of %.0f", p->duration_ns / 1e9);
	if (planned_ios(p) > 0)
		appendStringInfo(&s, ", " UINT64_FORMAT " of " UINT64_FORMAT " I/Os", w->ios, planned_ios(p));
	else if (!step)
		appendStringInfo(&s, ", " UINT64_FORMAT " I/Os", w->ios);
	appendStringInfo(&s, ": %.0f IOPS", w->iops >= 0 ? w->iops : w->ios / Max(w->seconds, 1e-3));
	if (w->p99_ms >= 0)
		appendStringInfo(&s, ", p99 %.3f ms", w->p99_ms);
	if (left >= 0 && left <= RANREAD_PROGRESS_MAX_LEFT)
		appendStringInfo(&s, "; %s left%s, done %s about %s", hms(left),
						 bound ? " at most" : "", bound ? "by" : "at", clock_in(left));
	ereport(level, (errmsg_internal("%s", s.data)));
}

/*
 * On each of the leader's wakes (leader.c, wait_batch): publish where the
 * batch is, and say it at level every PROGRESS_NOTICE_NS of its measured
 * part while its I/O goes on
 */
void
batch_progress_watch(BatchShared *bs, ProgressWatch *pw, uint64 now, int level)
{
	const BatchParams *p = &bs->p;
	ProgressWork w;
	bool		over = batch_io_over(bs);
	uint64		end_ns = bs->measure_ns + (uint64) p->duration_ns;

	memset(&w, 0, sizeof(w));
	strlcpy(w.kind, pw->kind, sizeof(w.kind));
	w.id = pw->id;
	strlcpy(w.target, p->targets[0].name, sizeof(w.target));
	w.batch = p->batch;
	w.claim = p->claim;
	w.processes = p->processes;
	w.iops = w.p99_ms = w.remaining = -1;
	w.ios = batch_ios(bs);
	if (!bs->go)
		strlcpy(w.phase, "starting", sizeof(w.phase));
	else if (now < bs->measure_ns)
		strlcpy(w.phase, "warming up", sizeof(w.phase));
	else if (!over)
		strlcpy(w.phase, "running", sizeof(w.phase));
	else
		strlcpy(w.phase, "recording", sizeof(w.phase));

	if (bs->go && now >= bs->measure_ns)
	{
		w.seconds = (now - bs->measure_ns) / 1e9;
		if (!over)
			w.iops = recent_iops(pw, now, w.ios);
		if (bs->hsec_done != pw->p99_done)
		{
			pw->p99_done = bs->hsec_done;
			pw->p99_ms = recent_p99(bs, pw);
		}
		w.p99_ms = pw->p99_ms;
	}

	/* the time left: to the end of the duration, or at this rate to the last I/O */
	if (over)
		w.remaining = 0;
	else if (p->duration_ns > 0)
		w.remaining = !bs->go ? (p->warmup_ns + p->duration_ns) / 1e9 :
			(end_ns > now ? (end_ns - now) / 1e9 : 0);
	else if (planned_ios(p) > 0 && w.seconds > 0.5 && w.ios > 0)
	{
		double		rate = w.iops > 0 ? w.iops : w.ios / w.seconds;

		w.remaining = planned_ios(p) > w.ios ? (planned_ios(p) - w.ios) / rate : 0;
	}
	progress_work_update(&w);

	if (pw->next_notice == 0 && bs->go)
		pw->next_notice = bs->measure_ns + PROGRESS_NOTICE_NS;
	if (pw->next_notice != 0 && now >= pw->next_notice && now > bs->measure_ns && !over)
	{
		pw->next_notice = now + PROGRESS_NOTICE_NS;
		progress_notice(bs, &w, level);
	}
}

/*
 * The leader's watch of a batch begins: what the batch is part of, which
 * the view and the NOTICE name
 */
void
batch_progress_begin(const BatchParams *p, ProgressWatch *pw)
{
	memset(pw, 0, sizeof(*pw));
	pw->hist = palloc0(sizeof(RanreadHist));
	pw->p99_ms = -1;
	pw->p99_done = -1;
	pw->id = p->sweep ? p->sweep : p->study ? p->study : p->fleet ? p->fleet :
		p->commit_test ? p->commit_test : p->batch;
	strlcpy(pw->kind,
			p->sweep ? "sweep" : p->study ? "study" : p->fleet ? "fleet" :
			p->commit_test ? "commit_test" :
			strcmp(p->caller, "ranread_probe") == 0 ? "probe" : "run",
			sizeof(pw->kind));
	progress_work_begin(pw->kind, pw->id, p->targets[0].name, p->batch, p->claim, "starting",
						p->processes, p->duration_ns > 0 ? (p->warmup_ns + p->duration_ns) / 1e9 : -1);
}
