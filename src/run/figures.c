/*
 * figures.c
 *		A batch's figures, computed once: its status, and for every process,
 *		group and the whole batch the counts, seconds, IOPS, MB/s, latency
 *		percentiles from merged histograms, and the Little's law check.
 *
 * Figures are computed once, by the recorder (worker 0), after every worker
 * has stopped counting, into the batch's shared memory; the history rows and
 * the leader's result row both come from there, so they always agree.  Only
 * when the recorder is gone before it computed them (it failed or was
 * killed) does the leader compute them, once every worker has left.
 *
 * The rules (docs/design.md, "Measurement rules"):
 *	 - IOPS of a group or batch is the sum of its processes' IOPS (RanRead's
 *	   SUM(IOPS)); MB/s is IOPS times block size, summed over groups.
 *	 - percentiles come from the merged histograms, never from averaging
 *	   percentiles; histogram.c clamps them to the observed minimum and maximum.
 *	 - a process measured from the end of the warm-up to its last
 *	   completion, or for the whole duration if it ran that long.
 *	 - busy: in an unpaced, timed group every process keeps queue_depth I/Os
 *	   in flight, so the sum of its latencies over seconds x queue_depth is 1
 *	   but for the edges of the run (Little's law).  Less means latency went
 *	   missing somewhere between a slot becoming free and its next I/O.
 *	 - steady: SNIA's verdict over five rounds of the measured time, for
 *	   every duration run (figures_steady), one definition with its words
 *	   (figures_steady_judge, figures_steady_text): steady when the rounds'
 *	   IOPS range over at most 20% of their mean and their trend (the
 *	   least-squares slope across the five rounds) is within 10% of it; too
 *	   short to judge below five rounds of 2 s and 100 I/Os each, where one
 *	   second's stall of a shared machine decides a round.  steady_state's
 *	   early end is the leader's (figures_steady_now).
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"

#include "figures.h"
#include "ranread.h"
#include "sqlfunc.h"

PG_FUNCTION_INFO_V1(ranread_steady_verdict);

/*
 * Figures of a set of I/Os given their read and write histograms; all
 * receives the two merged, which the totals' percentiles come from.
 */
void
figures_from_hists(RanreadFigures *f, const RanreadHist *r, const RanreadHist *w,
				   RanreadHist *all, uint64 reads, uint64 writes, double seconds,
				   int block_size)
{
	hist_reset(all);
	hist_merge(all, r);
	hist_merge(all, w);
	memset(f, 0, sizeof(*f));
	f->reads = reads;
	f->writes = writes;
	f->seconds = seconds;
	f->iops = seconds > 0 ? (reads + writes) / seconds : 0;
	f->mbps = f->iops * block_size / 1048576.0;
	f->avg_ms = hist_avg_ms(all);
	f->min_ms = all->count ? all->min_ns / 1e6 : 0;
	f->p50_ms = hist_percentile_ms(all, 50);
	f->p95_ms = hist_percentile_ms(all, 95);
	f->p99_ms = hist_percentile_ms(all, 99);
	f->p999_ms = hist_percentile_ms(all, 99.9);
	f->max_ms = all->max_ns / 1e6;
	f->read_avg_ms = hist_avg_ms(r);
	f->read_p99_ms = hist_percentile_ms(r, 99);
	f->read_max_ms = r->max_ns / 1e6;
	f->write_avg_ms = hist_avg_ms(w);
	f->write_p99_ms = hist_percentile_ms(w, 99);
	f->write_max_ms = w->max_ns / 1e6;
	f->latency = all->count > 0;
	f->read_latency = r->count > 0;
	f->write_latency = w->count > 0;
	f->busy = get_float8_nan();
}

/* Seconds a process measured */
double
figures_stream_seconds(BatchShared *bs, int stream)
{
	const BatchParams *p = &bs->p;
	const GroupParams *g = &p->groups[batch_group_of(p, stream)];
	StreamStats *st = batch_stream(bs, stream);
	/* from the start of its own measured part: its worker's (worker_start_clock) */
	uint64		start = st->measure_ns != 0 ? st->measure_ns : bs->measure_ns;
	double		s = st->last_ns > start ? (st->last_ns - start) / 1e9 : 0;

	/*
	 * A process that ran for the whole duration was measuring all of it, even
	 * if its last I/O completed a little before the end (a paced process may
	 * wait seconds between I/Os).  One that finished its iterations first, or
	 * was stopped, measured until its last completion.
	 */
	if (p->duration_ns > 0 && bs->status == STOP_NONE &&
		(g->iterations == 0 || st->reads + st->writes < (uint64) g->iterations))
		s = Max(s, p->duration_ns / 1e9);
	return s;
}

static void figures_steady(BatchShared *bs);

/* Does the Little's law check apply to a group? */
static bool
busy_applies(const BatchParams *p, const GroupParams *g)
{
	return p->timing && g->rate_iops == 0;
}

/* Figures of one process; all receives its merged histogram */
void
figures_stream(BatchShared *bs, int stream, RanreadFigures *f, RanreadHist *all)
{
	const BatchParams *p = &bs->p;
	const GroupParams *g = &p->groups[batch_group_of(p, stream)];
	StreamStats *st = batch_stream(bs, stream);
	double		seconds = figures_stream_seconds(bs, stream);

	figures_from_hists(f, &st->hist[HIST_READS], stream_write_hist(bs, st), all,
					   st->reads, st->writes, seconds, g->block_size);
	if (busy_applies(p, g) && seconds > 0 && all->count > 0)
		f->busy = all->sum_ns / 1e9 / (seconds * g->queue_depth);
}

/*
 * Does a paced group's schedule put any I/O due in the measured part?  Its
 * slots together are due every 1 / rate_iops from the start of the
 * warm-up (worker_start_clock), so the first one at or after the warm-up
 * must come before the end of the duration.
 */
static bool
rate_due_in_window(const BatchParams *p, const GroupParams *g)
{
	double		step = 1e9 / g->rate_iops;
	double		first = ceil(p->warmup_ns / step) * step;

	return first < (double) p->warmup_ns + (double) p->duration_ns;
}

/*
 * A batch that ended on its own but started no I/O in its measured part
 * has no figures: 0 IOPS would be a number the storage never showed.  It
 * records 'failed' and says why.  Either the rate limit left no I/O due in
 * a duration that short, or the storage or the workers stalled through all
 * of it: the warm-up's I/Os, not counted, were still in flight at its end
 * (a duration run starts no I/O after its end).
 */
static void
conclude_nothing_measured(BatchShared *bs)
{
	const BatchParams *p = &bs->p;
	bool		none_due = p->duration_ns > 0;
	int			rate = 0;
	char	   *window;

	for (int s = 0; s < p->processes; s++)
	{
		StreamStats *st = batch_stream(bs, s);

		if (st->reads + st->writes > 0)
			return;
	}
	for (int g = 0; g < p->ngroups && none_due; g++)
	{
		if (p->groups[g].rate_iops == 0 || rate_due_in_window(p, &p->groups[g]))
			none_due = false;
		rate = Max(rate, p->groups[g].rate_iops);
	}

	bs->status = STOP_FAILED;
	window = p->duration_ns > 0 ? psprintf("in the %.0f ms after the warm-up", p->duration_ns / 1e6) :
		"after the warm-up";
	if (none_due)
		ranread_strlcpy(bs->message,
						psprintf("no I/O was measured: at rate_iops %d no I/O falls due %s; a duration of at least %.0f ms has one",
								 rate, window, ceil(1e3 / rate)),
						sizeof(bs->message));
	else
		ranread_strlcpy(bs->message,
						psprintf("no I/O was measured: none started %s, as the storage or the workers stalled through all of it",
								 window),
						sizeof(bs->message));
}

/*
 * The status a batch records: how the control block says it ended, or
 * failed when a worker failed or vanished or nothing was measured.  Sets
 * bs->status and message.
 */
static void
conclude_status(BatchShared *bs, RanreadStop ended)
{
	bs->status = ended;
	if (bs->abort_start && bs->status == STOP_NONE)
		bs->status = STOP_CANCELLED;
	for (int i = 0; i < bs->p.nworkers; i++)
	{
		WorkerSlot *ws = &bs->workers[i];

		if (ws->failed || (!ws->done && ws->exited && ws->pid != 0))
		{
			bs->status = STOP_FAILED;
			if (bs->message[0] == '\0')
				ranread_strlcpy(bs->message,
								psprintf("worker %d: %s", i + 1,
										 ws->message[0] ? ws->message : "exited before finishing its I/O"),
								sizeof(bs->message));
		}
	}
	if (bs->status == STOP_FAILED && bs->message[0] == '\0')
		strlcpy(bs->message, "the batch failed", sizeof(bs->message));
	if (bs->status == STOP_NONE || bs->status == STOP_STEADY)
		conclude_nothing_measured(bs);
}

/*
 * Bad blocks found by verify, of the whole batch (or one group's figures):
 * each block once, however often it was read (verify.h)
 */
uint64
figures_verify_errors(const RanreadFigures *f)
{
	return f->verify_bad[VERIFY_CORRUPT] + f->verify_bad[VERIFY_WRONG_BLOCK] +
		f->verify_bad[VERIFY_LOST] + f->verify_bad[VERIFY_MISSING];
}

/*
 * A batch whose verify found a bad block failed, whatever else it did: say
 * how many of each kind, and the first
 */
static void
conclude_verify(BatchShared *bs)
{
	const RanreadFigures *f = &bs->total;
	uint64		errors = figures_verify_errors(f);
	const VerifyError *first = NULL;
	char	   *text;

	if (errors == 0)
		return;
	for (int i = 0; i < (int) Min(pg_atomic_read_u32(&bs->verify.nerrors), RANREAD_VERIFY_ERRORS); i++)
		if (bs->verify.errors[i].ready &&
			(first == NULL || bs->verify.errors[i].at_ns < first->at_ns))
			first = &bs->verify.errors[i];
	text = psprintf("verify found " UINT64_FORMAT " bad block%s in " UINT64_FORMAT " pages read and checked (" UINT64_FORMAT " corrupt, " UINT64_FORMAT " wrong block, " UINT64_FORMAT " lost)",
					errors, errors == 1 ? "" : "s", f->verify_checked,
					f->verify_bad[VERIFY_CORRUPT], f->verify_bad[VERIFY_WRONG_BLOCK],
					f->verify_bad[VERIFY_LOST]);
	if (first)
		text = psprintf("%s; the first: block " UINT64_FORMAT " of target \"%s\", %s: expected %s, found %s",
						text, first->block, bs->p.targets[first->target].name,
						verify_kind_name(first->kind), verify_expected_text(first, bs->p.batch),
						verify_found_text(first, bs->p.targets[first->target].relid));
	if (bs->status == STOP_FAILED && bs->message[0])
		text = psprintf("%s; and %s", text, bs->message);
	bs->status = STOP_FAILED;
	ranread_strlcpy(bs->message, text, sizeof(bs->message));
}

/*
 * Decide the status and compute every group's and the batch's figures,
 * once.  Call only when no worker counts any more.  all and writes, when not
 * NULL, receive ngroups + 1 merged histograms each: one per group, then the
 * whole batch's.
 */
void
figures_conclude(BatchShared *bs, RanreadStop ended, RanreadHist *all, RanreadHist *writes)
{
	const BatchParams *p = &bs->p;
	int			ng = p->ngroups;
	RanreadHist *reads = palloc(sizeof(RanreadHist) * (ng + 1));
	RanreadHist *w = writes ? writes : palloc(sizeof(RanreadHist) * (ng + 1));
	RanreadHist *a = all ? all : palloc(sizeof(RanreadHist) * (ng + 1));
	RanreadHist *scratch = palloc(sizeof(RanreadHist));
	double		lat_s[RANREAD_MAX_GROUPS + 1];	/* sum of latencies, busy groups */
	double		slot_s[RANREAD_MAX_GROUPS + 1]; /* seconds x queue depth */

	conclude_status(bs, ended);

	for (int g = 0; g <= ng; g++)
	{
		hist_reset(&reads[g]);
		hist_reset(&w[g]);
		lat_s[g] = slot_s[g] = 0;
		memset(g < ng ? &bs->group_fig[g] : &bs->total, 0, sizeof(RanreadFigures));
	}

	/* every process once: merge into its group and the batch */
	for (int s = 0; s < p->processes; s++)
	{
		int			g = batch_group_of(p, s);
		StreamStats *st = batch_stream(bs, s);
		RanreadFigures pf;

		figures_stream(bs, s, &pf, scratch);
		for (int k = 0; k < 2; k++)
		{
			int			idx = k == 0 ? g : ng;
			RanreadFigures *f = k == 0 ? &bs->group_fig[g] : &bs->total;

			hist_merge(&reads[idx], &st->hist[HIST_READS]);
			hist_merge(&w[idx], stream_write_hist(bs, st));
			f->reads += st->reads;
			f->writes += st->writes;
			f->verify_checked += st->verify_checked;
			f->verify_skipped += st->verify_skipped;
			for (int v = 0; v < VERIFY_NKINDS; v++)
				f->verify_bad[v] += st->verify_bad[v];
			if (st->first_ns != 0 && (f->first_ns == 0 || st->first_ns < f->first_ns))
				f->first_ns = st->first_ns;
			f->seconds = Max(f->seconds, pf.seconds);
			f->iops += pf.iops;
			f->mbps += pf.mbps;
			if (!isnan(pf.busy))
			{
				lat_s[idx] += scratch->sum_ns / 1e9;
				slot_s[idx] += pf.seconds * p->groups[g].queue_depth;
			}
		}
	}

	/* percentiles from the merged histograms; sums kept from above */
	for (int g = 0; g <= ng; g++)
	{
		RanreadFigures *f = g < ng ? &bs->group_fig[g] : &bs->total;
		RanreadFigures sums = *f;

		figures_from_hists(f, &reads[g], &w[g], &a[g], sums.reads, sums.writes,
						   sums.seconds, g < ng ? p->groups[g].block_size : 0);
		f->iops = sums.iops;
		f->mbps = sums.mbps;
		f->first_ns = sums.first_ns;
		f->verify_checked = sums.verify_checked;
		f->verify_skipped = sums.verify_skipped;
		memcpy(f->verify_bad, sums.verify_bad, sizeof(f->verify_bad));
		f->busy = slot_s[g] > 0 ? lat_s[g] / slot_s[g] : get_float8_nan();
	}
	conclude_verify(bs);
	figures_steady(bs);
	pg_write_barrier();
	bs->figures_ready = true;
}

/* I/Os of the whole batch in one second of the measured part */
uint64
figures_second_ios(BatchShared *bs, int second)
{
	uint64		ios = 0;

	for (int w = 0; w < bs->p.nworkers; w++)
		for (int g = 0; g < bs->p.ngroups; g++)
		{
			IntervalSlot *iv = batch_intervals(bs, w, g) + second;

			ios += iv->reads + iv->writes;
		}
	return ios;
}

/*
 * SNIA's steady-state rule (PTS, "measurement window" of five rounds) on
 * the rounds' IOPS: steady when max - min is within 20% of their mean and
 * the least-squares slope over the rounds, times four (the change across
 * the window), within 10% of it.  excursion and slope are relative to the
 * mean; false (and zeros) when the mean is not positive.
 */
bool
figures_snia(const double *rounds, double *excursion, double *slope)
{
	double		mean = 0;
	double		lo = rounds[0];
	double		hi = rounds[0];
	double		b = 0;

	for (int r = 0; r < 5; r++)
	{
		mean += rounds[r] / 5;
		lo = Min(lo, rounds[r]);
		hi = Max(hi, rounds[r]);
	}
	*excursion = *slope = 0;
	if (!(mean > 0))
		return false;
	for (int r = 0; r < 5; r++)
		b += (r - 2) * (rounds[r] - mean) / 10.0;
	*excursion = (hi - lo) / mean;
	*slope = b * 4 / mean;
	return *excursion <= 0.20 && fabs(*slope) <= 0.10;
}

/*
 * SNIA's rule with its conditions (docs/design.md, "One definition per verdict"):
 * 1 steady, 0 not, -1 too short to judge: rounds shorter than
 * FIGURES_STEADY_ROUND_SECONDS or one of fewer than FIGURES_STEADY_ROUND_IOS
 * I/Os (round_seconds 0: not checked).  Excursion and slope are computed
 * whatever the verdict.
 */
int
figures_steady_judge(const double *rounds, double round_seconds, double *excursion, double *slope)
{
	bool		steady = figures_snia(rounds, excursion, slope);

	if (round_seconds > 0)
	{
		if (round_seconds < FIGURES_STEADY_ROUND_SECONDS)
			return -1;
		for (int r = 0; r < 5; r++)
			if (rounds[r] * round_seconds < FIGURES_STEADY_ROUND_IOS)
				return -1;
	}
	return steady ? 1 : 0;
}

/* "a rise of 12.3%", "a fall of 4.0%", "no change" */
static char *
trend_words(double slope)
{
	if (slope > 0)
		return psprintf("a rise of %.1f%%", 100 * slope);
	if (slope < 0)
		return psprintf("a fall of %.1f%%", -100 * slope);
	return "no change";
}

/*
 * The verdict in words, the rule stated and the part that failed named,
 * true to the numbers (a fall is a fall): round_seconds is the shortest
 * round's length, round_ios the fewest I/Os of a round (0: not known)
 */
char *
figures_steady_text(int verdict, double excursion, double slope, double round_seconds, double round_ios)
{
	bool		range_ok = excursion <= 0.20;
	bool		trend_ok = fabs(slope) <= 0.10;
	char	   *range = psprintf("the rounds' IOPS range over %.1f%% of their mean", 100 * excursion);
	char	   *trend = psprintf("their trend across the rounds is %s of their mean", trend_words(slope));
	char	   *rule = "SNIA's rule: five rounds whose IOPS range over at most 20% of their mean, with a trend across them within 10% of it";

	if (verdict < 0)
	{
		if (round_seconds < FIGURES_STEADY_ROUND_SECONDS)
			return psprintf("too short to judge steadiness (%s, each of at least %d s and %d I/Os): its rounds would be %.1f s",
							rule, FIGURES_STEADY_ROUND_SECONDS, FIGURES_STEADY_ROUND_IOS, round_seconds);
		return psprintf("too short to judge steadiness (%s, each of at least %d s and %d I/Os): a round held only %.0f I/Os",
						rule, FIGURES_STEADY_ROUND_SECONDS, FIGURES_STEADY_ROUND_IOS, round_ios);
	}
	if (verdict > 0)
		return psprintf("steady (%s): %s and %s", rule, range, trend);
	if (!range_ok && !trend_ok)
		return psprintf("not steady (%s): %s, more than 20%%, and %s, more than 10%%", rule, range, trend);
	if (!range_ok)
		return psprintf("not steady (%s): %s, more than 20%% (%s, within 10%%)", rule, range, trend);
	return psprintf("not steady (%s): %s, more than 10%% (%s, within 20%%)", rule, trend, range);
}

/*
 * The rounds of a duration run: its measured whole seconds cut into five
 * equal rounds, each round's IOPS, the shortest round's seconds and the
 * fewest I/Os of one.  False when it has fewer than five whole seconds
 * (round_seconds then what a round would be).
 */
static bool
figures_rounds(BatchShared *bs, double *rounds, double *round_seconds, double *round_ios)
{
	int			n = (int) Min(floor(bs->total.seconds), (double) bs->p.nintervals);

	*round_seconds = Max(bs->total.seconds, 0) / 5;
	*round_ios = 0;
	if (n < 5)
		return false;
	*round_seconds = n / 5;
	*round_ios = -1;
	for (int r = 0; r < 5; r++)
	{
		int			from = r * n / 5;
		int			to = (r + 1) * n / 5;
		uint64		ios = 0;

		for (int sec = from; sec < to; sec++)
			ios += figures_second_ios(bs, sec);
		rounds[r] = (double) ios / (to - from);
		if (*round_ios < 0 || (double) ios < *round_ios)
			*round_ios = (double) ios;
	}
	return true;
}

/* The verdict of a duration run (figures_steady_judge on its rounds) */
static void
figures_steady(BatchShared *bs)
{
	double		rounds[5];
	double		round_seconds;
	double		round_ios;

	bs->steady = -1;
	if (bs->p.duration_ns == 0 || !figures_rounds(bs, rounds, &round_seconds, &round_ios))
		return;
	bs->steady = figures_steady_judge(rounds, round_seconds, &bs->steady_excursion, &bs->steady_slope);
}

/*
 * What SNIA's verdict adds to a duration run's end NOTICE: nothing when
 * steady (or not a duration run), else figures_steady_text's words (NULL:
 * nothing)
 */
char *
figures_steady_words(BatchShared *bs)
{
	double		rounds[5];
	double		round_seconds;
	double		round_ios;

	if (bs->p.duration_ns == 0 || bs->steady == 1)
		return NULL;
	(void) figures_rounds(bs, rounds, &round_seconds, &round_ios);
	return figures_steady_text(bs->steady, bs->steady_excursion, bs->steady_slope, round_seconds, round_ios);
}

/*
 * ranread_steady_verdict(rounds float8[], round_seconds float8): SNIA's rule
 * on five rounds' IOPS, the one the batches are judged by, for SQL and for
 * tests: steady (NULL when too short to judge: rounds of round_seconds, when
 * given, below 2 s or 100 I/Os), excursion, slope and the verdict in words
 */
Datum
ranread_steady_verdict(PG_FUNCTION_ARGS)
{
	ArrayType  *a;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	double		rounds[5];
	double		excursion;
	double		slope;
	double		round_seconds = 0;
	double		round_ios = 0;
	int			verdict;
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		rnulls[4] = {false, false, false, false};

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("rounds of ranread_steady_verdict must not be null"),
				 errhint("rounds are the IOPS of five rounds, such as '{1000,1010,990,1005,995}'.")));
	a = PG_GETARG_ARRAYTYPE_P(0);
	deconstruct_array(a, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems, &nulls, &n);
	if (n != 5)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ranread_steady_verdict needs the IOPS of 5 rounds, not %d", n)));
	for (int r = 0; r < 5; r++)
	{
		if (nulls[r])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("round %d of ranread_steady_verdict must not be null", r + 1)));
		rounds[r] = DatumGetFloat8(elems[r]);
		if (!(rounds[r] >= 0 && rounds[r] < 1e12))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("round %d of ranread_steady_verdict must be IOPS from 0 to 1e12, not %g", r + 1, rounds[r])));
	}
	if (!PG_ARGISNULL(1))
	{
		round_seconds = PG_GETARG_FLOAT8(1);
		if (!(round_seconds > 0 && round_seconds <= 86400))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("round_seconds of ranread_steady_verdict must be above 0 and at most 86400, not %g", round_seconds),
					 errhint("round_seconds is how long each round ran, or NULL not to judge whether they were long enough.")));
		round_ios = -1;
		for (int r = 0; r < 5; r++)
			if (round_ios < 0 || rounds[r] * round_seconds < round_ios)
				round_ios = rounds[r] * round_seconds;
	}
	verdict = figures_steady_judge(rounds, round_seconds, &excursion, &slope);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	values[0] = BoolGetDatum(verdict == 1);
	rnulls[0] = verdict < 0;
	values[1] = Float8GetDatum(excursion);
	values[2] = Float8GetDatum(slope);
	values[3] = CStringGetTextDatum(figures_steady_text(verdict, excursion, slope, round_seconds, round_ios));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, rnulls)));
}

/*
 * Has steady_state been reached: the IOPS of each of the last window whole
 * seconds (of complete ones) within pct of their mean?
 */
bool
figures_steady_now(BatchShared *bs, int complete)
{
	int			w = bs->p.steady_window;
	double		mean = 0;

	if (complete < w || complete > bs->p.nintervals)
		return false;
	for (int sec = complete - w; sec < complete; sec++)
		mean += (double) figures_second_ios(bs, sec) / w;
	if (mean <= 0)
		return false;
	for (int sec = complete - w; sec < complete; sec++)
		if (fabs((double) figures_second_ios(bs, sec) - mean) > bs->p.steady_pct / 100.0 * mean)
			return false;
	return true;
}

/*
 * Should the busy figure raise a warning?  Below 0.98, but only where every
 * slot did enough I/Os for the edges of the run (the first and last I/O of
 * each slot) not to weigh: 100 per slot.
 */
bool
figures_busy_low(const RanreadFigures *f, int slots)
{
	if (isnan(f->busy) || f->busy >= FIGURES_BUSY_MIN || slots <= 0)
		return false;
	return (double) (f->reads + f->writes) / slots >= 100;
}

/*
 * A figure as the result column attno (0-based) of desc is declared: a
 * float8 column gets it whole, a bigint one rounded to the nearest integer,
 * a numeric one rounded to the column's scale (README, "Reading the
 * results": IOPS whole, MiB/s to 0.1, ms to 0.001).  A numeric column
 * without a typmod (a function's RETURNS TABLE keeps none) takes its scale
 * from its name: 3 for *_ms and seconds, 1 for *_pct and mbps, else 0.
 * What is not a finite number is NULL: no figure was measured.
 */
Datum
figures_datum(TupleDesc desc, int attno, double v, bool *isnull)
{
	Form_pg_attribute att = TupleDescAttr(desc, attno);
	const char *name = NameStr(att->attname);
	size_t		len = strlen(name);
	int32		typmod = att->atttypmod;

	*isnull = isnan(v) || isinf(v);
	if (*isnull)
		return (Datum) 0;
	if (att->atttypid == INT8OID)
	{
		if (!(fabs(v) < 9.2e18))
		{
			*isnull = true;
			return (Datum) 0;
		}
		return Int64GetDatum((int64) llround(v));
	}
	if (att->atttypid != NUMERICOID)
		return Float8GetDatum(v);
	if (typmod < 0)
	{
		int			scale = 0;

		if (len > 3 && strcmp(name + len - 3, "_ms") == 0)
			scale = 3;
		else if (strcmp(name, "seconds") == 0)
			scale = 3;
		else if ((len > 4 && strcmp(name + len - 4, "_pct") == 0) || strcmp(name, "mbps") == 0 ||
				 strcmp(name, "mib_s") == 0)
			scale = 1;
		return DirectFunctionCall2(numeric_round,
								   DirectFunctionCall1(float8_numeric, Float8GetDatum(v)),
								   Int32GetDatum(scale));
	}
	return DirectFunctionCall2(numeric,
							   DirectFunctionCall1(float8_numeric, Float8GetDatum(v)),
							   Int32GetDatum(typmod));
}

/*
 * A figure as a NOTICE writes it, rounded as figures_datum rounds the row's
 * column of that scale (places: 0 for IOPS, 1 for MiB/s and percentages, 3
 * for ms and seconds) and as SQL's ranread_internal.ranread_round: one
 * rounding, so that a message and the row it goes with say the same
 * figure.  Not a finite number: "-".
 */
char *
figures_text(double v, int places)
{
	if (isnan(v) || isinf(v))
		return pstrdup("-");
	if (places == 0 && fabs(v) < 9.2e18)
		return psprintf(INT64_FORMAT, (int64) llround(v));
	return DatumGetCString(DirectFunctionCall1(numeric_out,
											   DirectFunctionCall2(numeric_round,
																   DirectFunctionCall1(float8_numeric, Float8GetDatum(v)),
																   Int32GetDatum(places))));
}
