/*
 * compare.c
 *		Two latency histograms compared: is b slower than a, faster, or the
 *		same?  The statistics of ranread_compare, the baselines and the
 *		verdict of every probe (docs/keeping-watch.md, "Keeping watch";
 *		docs/design.md, "Comparing batches and keeping watch").
 *
 * Only the stored histograms are at hand, not the samples: a bucket is a
 * value range at most 1/64 of its lower bound wide, so the I/Os of one
 * bucket are ties.  Two tests fit such data, and each looks at one of the
 * two figures a DBA watches:
 *
 *	- the middle (p50): a Mann-Whitney U test on the bucketed samples, with
 *	  the correction of its variance for ties.  U counts, over every pair of
 *	  one I/O of a and one of b, the pairs where b's is slower (a tie counts
 *	  a half); one pass over the buckets gives it, whatever n.  Under "same
 *	  distribution" U is about normal with mean n_a n_b / 2 and variance
 *	  n_a n_b / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))), t the pooled
 *	  count of each bucket, N = n_a + n_b.
 *	- the tail (p99): a two-proportion z test on the share of each side's
 *	  I/Os above a's p99 bucket (about 1% of a's under "same"; a slower
 *	  tail puts more of b's there), and the same above b's p99 bucket for
 *	  a faster tail; the direction that stands out more is the test.  It
 *	  needs 100 I/Os on each side: below, p99 is the slowest I/O.
 *
 * Each test gives a two-sided p from the normal approximation, doubled for
 * the two tests (Bonferroni).  With hundreds of thousands of I/Os any
 * difference at all is significant, so significance alone never alarms:
 * "slower" needs a test significant at alpha AND its percentile at least
 * min_factor times a's (p50 for the U test, p99 for the tail test), in the
 * same direction; "faster" the mirror image (at most 1 / min_factor).  A
 * tail that is both slower and faster than the middle says "slower": that
 * is what a DBA is to hear of.  The factor is b's percentile over a's (the
 * one that decided; p99 when nothing did): 3 is three times slower, 0.33
 * three times faster.
 *
 * Pure: nothing but the two histograms and the two settings, so the
 * function is IMMUTABLE and tested on synthetic histograms (test/tap/watch_compare.sql).
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"

#include "compare.h"
#include "histogram.h"
#include "sqlfunc.h"

/*
 * I/Os each side needs for the tail test: with fewer, the nearest-rank p99
 * is the slowest I/O, and one stall (which slows a few I/Os in a row: they
 * are not independent) would decide
 */
#define COMPARE_TAIL_MIN_IOS 100

PG_FUNCTION_INFO_V1(ranread_hist_compare);
PG_FUNCTION_INFO_V1(ranread_hist_make);

/* Two-sided p of a standard normal z */
static double
p_two_sided(double z)
{
	double		p = erfc(fabs(z) / M_SQRT2);

	return Min(p, 1.0);
}

/* b over a, 1 when both are 0 */
static double
ratio(double b, double a)
{
	if (a <= 0 && b <= 0)
		return 1.0;
	if (a <= 0)
		return get_float8_infinity();
	return b / a;
}

/* The bucket holding the nearest-rank pct of h */
static int
bucket_of_rank(const RanreadHist *h, double pct)
{
	uint64		rank = (uint64) ceil(pct / 100.0 * (double) h->count);
	uint64		seen = 0;

	if (rank < 1)
		rank = 1;
	for (int i = 0; i < HIST_BUCKETS; i++)
	{
		seen += h->buckets[i];
		if (seen >= rank)
			return i;
	}
	return HIST_BUCKETS - 1;
}

/*
 * The two-proportion z test of the shares of a and of b above bucket t:
 * positive when b has more there
 */
static void
tail_test(const RanreadHist *a, const RanreadHist *b, int t, double *z,
		  double *share_a, double *share_b)
{
	double		na = (double) a->count;
	double		nb = (double) b->count;
	double		xa = 0;
	double		xb = 0;
	double		pp,
				se;

	for (int i = t + 1; i < HIST_BUCKETS; i++)
	{
		xa += (double) a->buckets[i];
		xb += (double) b->buckets[i];
	}
	*share_a = (na > 0) ? xa / na : 0;
	*share_b = (nb > 0) ? xb / nb : 0;
	pp = (na + nb > 0) ? (xa + xb) / (na + nb) : 0;
	se = (na > 0 && nb > 0) ? sqrt(pp * (1 - pp) * (1 / na + 1 / nb)) : 0;
	*z = (se > 0) ? (*share_b - *share_a) / se : 0;
}

/* The middle: Mann-Whitney U of b against a, ties within a bucket a half */
static void
compare_middle(const RanreadHist *a, const RanreadHist *b, RanreadComparison *r)
{
	double		na = (double) a->count;
	double		nb = (double) b->count;
	double		n = na + nb;
	double		u = 0;
	double		ties = 0;
	double		below_a = 0;
	double		var;

	for (int i = 0; i < HIST_BUCKETS; i++)
	{
		double		ca = (double) a->buckets[i];
		double		cb = (double) b->buckets[i];
		double		tt = ca + cb;

		u += cb * (below_a + 0.5 * ca);
		below_a += ca;
		ties += tt * tt * tt - tt;
	}
	r->shift = (na > 0 && nb > 0) ? u / (na * nb) : 0.5;
	var = (n > 1) ? na * nb / 12.0 * ((n + 1) - ties / (n * (n - 1))) : 0;
	r->u_z = (var > 0) ? (u - na * nb / 2.0) / sqrt(var) : 0;
	r->u_p = Min(1.0, 2 * p_two_sided(r->u_z));
}

/*
 * The tail: the share of each above a's p99 bucket (about 1% of a's; a
 * slower tail puts more of b's there), and above b's (a faster tail leaves
 * more of a's there); the direction that stands out counts.  Below 100 I/Os
 * a side a p99 is the maximum: no tail test.
 */
static void
compare_tail(const RanreadHist *a, const RanreadHist *b, RanreadComparison *r)
{
	double		za,
				zb,
				sa,
				sb,
				ta,
				tb;

	tail_test(a, b, bucket_of_rank(a, 99), &za, &sa, &sb);
	tail_test(a, b, bucket_of_rank(b, 99), &zb, &ta, &tb);
	if (za >= -zb)
	{
		r->tail_z = za;
		r->tail_a = sa;
		r->tail_b = sb;
	}
	else
	{
		r->tail_z = zb;
		r->tail_a = ta;
		r->tail_b = tb;
	}
	if (a->count < COMPARE_TAIL_MIN_IOS || b->count < COMPARE_TAIL_MIN_IOS)
		r->tail_z = 0;
	r->tail_p = Min(1.0, 2 * p_two_sided(r->tail_z));
}

/* The verdict "slower" or "faster", decided by p99 or p50: whichever moved more */
static void
compare_decide(RanreadComparison *r, const char *verdict, bool by50, bool by99)
{
	bool		more99 = (strcmp(verdict, "slower") == 0) ? r->p99_ratio >= r->p50_ratio
		: r->p99_ratio <= r->p50_ratio;

	r->verdict = verdict;
	if (by99 && (!by50 || more99))
	{
		r->decided_by = "p99";
		r->factor = r->p99_ratio;
		r->p_value = r->tail_p;
	}
	else
	{
		r->decided_by = "p50";
		r->factor = r->p50_ratio;
		r->p_value = r->u_p;
	}
}

/*
 * Compare b with a: both tests, then a change only where a test is
 * significant (alpha) and its percentile moved by min_factor that way
 */
void
compare_hists(const RanreadHist *a, const RanreadHist *b, double min_factor,
			  double alpha, RanreadComparison *r)
{
	bool		slow50,
				slow99,
				fast50,
				fast99;

	memset(r, 0, sizeof(*r));
	r->n_a = a->count;
	r->n_b = b->count;
	r->p50_a_ms = hist_percentile_ms(a, 50);
	r->p50_b_ms = hist_percentile_ms(b, 50);
	r->p99_a_ms = hist_percentile_ms(a, 99);
	r->p99_b_ms = hist_percentile_ms(b, 99);
	r->p50_ratio = ratio(r->p50_b_ms, r->p50_a_ms);
	r->p99_ratio = ratio(r->p99_b_ms, r->p99_a_ms);
	compare_middle(a, b, r);
	compare_tail(a, b, r);
	r->p_value = Min(r->u_p, r->tail_p);

	slow50 = r->u_p < alpha && r->u_z > 0 && r->p50_ratio >= min_factor;
	slow99 = r->tail_p < alpha && r->tail_z > 0 && r->p99_ratio >= min_factor;
	fast50 = r->u_p < alpha && r->u_z < 0 && r->p50_ratio <= 1 / min_factor;
	fast99 = r->tail_p < alpha && r->tail_z < 0 && r->p99_ratio <= 1 / min_factor;

	if (slow50 || slow99)
		compare_decide(r, "slower", slow50, slow99);
	else if (fast50 || fast99)
		compare_decide(r, "faster", fast50, fast99);
	else
	{
		r->verdict = "same";
		r->decided_by = NULL;
		r->factor = r->p99_ratio;
	}
	r->confidence = 1 - r->p_value;
}

/* The settings of a comparison, checked: errors name the argument */
void
compare_check_settings(double min_factor, double alpha)
{
	if (!(min_factor >= 1 && min_factor <= 1000))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("min_factor of ranread_hist_compare must be between 1 and 1000, not %g", min_factor),
				 errhint("min_factor is the change of p50 or p99 that counts, such as 1.25 (25%% slower).")));
	if (!(alpha > 0 && alpha < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("alpha of ranread_hist_compare must be above 0 and below 1, not %g", alpha),
				 errhint("alpha is the significance level of the tests, such as 0.001.")));
}

/*
 * ranread_hist_compare(histogram_a bytea, histogram_b bytea, min_factor
 * float8, alpha float8): the comparison as one row
 */
Datum
ranread_hist_compare(PG_FUNCTION_ARGS)
{
	static const char *const args[] = {"histogram_a", "histogram_b", "min_factor", "alpha"};
	double		min_factor;
	double		alpha;
	RanreadHist *a;
	RanreadHist *b;
	RanreadComparison r;
	TupleDesc	tupdesc;
	Datum		values[16];
	bool		nulls[16] = {0};
	int			k = 0;

	for (int i = 0; i < 4; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s of ranread_hist_compare must not be null", args[i]),
					 errhint(i < 2 ? "Give latency histograms as ranread stores them (ranread_batches.histogram)."
							 : "Leave it out for its default (min_factor 1.25, alpha 0.001).")));
	min_factor = PG_GETARG_FLOAT8(2);
	alpha = PG_GETARG_FLOAT8(3);
	a = palloc(sizeof(RanreadHist));
	b = palloc(sizeof(RanreadHist));
	compare_check_settings(min_factor, alpha);
	hist_from_bytea(a, PG_GETARG_BYTEA_PP(0), "ranread_hist_compare");
	hist_from_bytea(b, PG_GETARG_BYTEA_PP(1), "ranread_hist_compare");
	if (a->count == 0 || b->count == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s holds no I/O: there is nothing to compare",
						a->count == 0 ? "histogram_a" : "histogram_b"),
				 errhint("Compare histograms of batches that did I/O (ranread_hist_count above 0).")));
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ranread_hist_compare must be called where a row is accepted")));
	compare_hists(a, b, min_factor, alpha, &r);

	values[k++] = CStringGetTextDatum(r.verdict);
	values[k++] = Float8GetDatum(r.factor);
	values[k++] = Float8GetDatum(r.confidence);
	values[k++] = Float8GetDatum(r.p_value);
	if (r.decided_by)
		values[k++] = CStringGetTextDatum(r.decided_by);
	else
		nulls[k++] = true;
	values[k++] = Int64GetDatum((int64) r.n_a);
	values[k++] = Int64GetDatum((int64) r.n_b);
	values[k++] = Float8GetDatum(r.p50_a_ms);
	values[k++] = Float8GetDatum(r.p50_b_ms);
	values[k++] = Float8GetDatum(r.p50_ratio);
	values[k++] = Float8GetDatum(r.p99_a_ms);
	values[k++] = Float8GetDatum(r.p99_b_ms);
	values[k++] = Float8GetDatum(r.p99_ratio);
	values[k++] = Float8GetDatum(r.shift);
	values[k++] = Float8GetDatum(r.u_p);
	values[k++] = Float8GetDatum(r.tail_p);
	Assert(k == tupdesc->natts);
	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * ranread_internal.ranread_hist_make(latencies_ms float8[], counts bigint[]):
 * a histogram in stored form holding counts[i] I/Os of latencies_ms[i] each;
 * for tests and for histograms of other tools' samples
 */
Datum
ranread_hist_make(PG_FUNCTION_ARGS)
{
	ArrayType  *lat = PG_GETARG_ARRAYTYPE_P(0);
	ArrayType  *cnt = PG_GETARG_ARRAYTYPE_P(1);
	Datum	   *lv,
			   *cv;
	bool	   *ln,
			   *cn;
	int			nl,
				nc;
	RanreadHist *h = palloc(sizeof(RanreadHist));

	deconstruct_array(lat, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &lv, &ln, &nl);
	deconstruct_array(cnt, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &cv, &cn, &nc);
	if (nl != nc)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("latencies_ms and counts must have as many elements, not %d and %d", nl, nc)));
	hist_reset(h);
	for (int i = 0; i < nl; i++)
	{
		double		ms;
		int64		c;
		uint64		ns;
		uint64		total;

		CHECK_FOR_INTERRUPTS();
		if (ln[i] || cn[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s[%d] must not be null", ln[i] ? "latencies_ms" : "counts", i + 1)));
		ms = DatumGetFloat8(lv[i]);
		c = DatumGetInt64(cv[i]);
		if (!(ms >= 0 && ms <= 137000))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("latencies_ms[%d] must be between 0 and 137000 ms, not %g", i + 1, ms)));
		if (c < 0 || (uint64) c > HIST_MAX_COUNT - h->count)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("counts[%d] must be 0 or more, and all together at most " UINT64_FORMAT ", not " INT64_FORMAT,
							i + 1, (uint64) HIST_MAX_COUNT, c)));
		if (c == 0)
			continue;
		ns = (uint64) llround(ms * 1e6);
		if (__builtin_mul_overflow(ns, (uint64) c, &total) ||
			__builtin_add_overflow(h->sum_ns, total, &total))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("latencies_ms times counts must sum to at most " UINT64_FORMAT " ns, which counts[%d] passes",
							PG_UINT64_MAX, i + 1)));
		h->buckets[hist_index(ns)] += (uint64) c;
		h->count += (uint64) c;
		h->sum_ns = total;
		h->min_ns = Min(h->min_ns, ns);
		h->max_ns = Max(h->max_ns, ns);
	}
	PG_RETURN_BYTEA_P(hist_to_bytea(h));
}
