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
 *	- the tail (p99): the share of each side's I/Os above a's p99 bucket
 *	  (about 1% of a's under "same"; a slower tail puts more of b's there),
 *	  and the same above b's p99 bucket for a faster tail; the direction
 *	  that stands out more (its two-proportion z) is the test, and its p is
 *	  Fisher's exact test of that 2 x 2 table (the counts above p99 are a
 *	  few I/Os for a probe, where a normal approximation calls 3 against 3
 *	  significant).  It needs 100 I/Os on each side: below, p99 is the
 *	  slowest I/O.
 *
 * Each test gives a two-sided p (U's from the normal approximation, fine
 * for its thousands of pairs; the tail's exact, twice the one-sided),
 * doubled for the two tests (Bonferroni).  With hundreds of thousands of I/Os any
 * difference at all is significant, so significance alone never alarms:
 * "slower" needs a test significant at alpha AND its percentile at least
 * min_factor times a's (p50 for the U test, p99 for the tail test), in the
 * same direction; "faster" the mirror image (at most 1 / min_factor).  A
 * tail that is both slower and faster than the middle says "slower": that
 * is what a DBA is to hear of.  The factor is b's percentile over a's (the
 * one that decided: the one that moved more, but p50 when both moved alike
 * or when the tail's interval lies no farther from 1 than the middle's;
 * p99 when nothing did): 3 is three times slower, 0.33 three times faster.
 *
 * The effect comes with an interval: a percentile's, by order statistics
 * (the ranks n q -+ z sqrt(n q (1 - q)) of the sample hold the q-quantile
 * with confidence 1 - 2 P(Z > z), whatever the distribution), and the
 * factor's from the two (b's low over a's high, b's high over a's low),
 * each percentile at 1 - alpha / 2, so that the factor's interval holds
 * with 1 - alpha at least.
 *
 * A percentile against a bound (compare_threshold, ranread_hist_threshold:
 * is p99 above 5 ms?): the q-quantile is above the bound when more than a
 * share 1 - q of I/Os are slower than it, so the test is an exact binomial
 * one of the I/Os above the bound, under "share = 1 - q" (one-sided: the
 * probability of that many or more).  Its effect is the share above the
 * bound, with its Wilson score interval at 1 - alpha.  A sample of fewer
 * than 1 / (1 - q) I/Os (100 for p99) cannot judge the percentile at all:
 * its q-quantile is its slowest I/O, and one stall, which slows a few I/Os
 * in a row, would decide.
 *
 * Pure: nothing but the histograms and the settings, so the functions are
 * IMMUTABLE and tested on synthetic histograms (test/tap/watch_compare.sql).
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
PG_FUNCTION_INFO_V1(ranread_hist_threshold);

/* Two-sided p of a standard normal z */
static double
p_two_sided(double z)
{
	double		p = erfc(fabs(z) / M_SQRT2);

	return Min(p, 1.0);
}

/* The z with P(Z > z) = u for a standard normal Z (0 < u < 1), by bisection */
static double
norm_upper_quantile(double u)
{
	double		lo = -40;
	double		hi = 40;

	u = Max(u, 1e-300);
	u = Min(u, 1 - 1e-16);
	for (int i = 0; i < 200 && hi - lo > 1e-12; i++)
	{
		double		mid = (lo + hi) / 2;

		if (0.5 * erfc(mid / M_SQRT2) > u)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* log of the binomial probability P(X = k), X ~ B(n, p), 0 < p < 1 */
static double
binom_log_pmf(uint64 n, uint64 k, double p)
{
	return lgamma((double) n + 1) - lgamma((double) k + 1) - lgamma((double) (n - k) + 1) +
		(double) k * log(p) + (double) (n - k) * log1p(-p);
}

/*
 * P(X >= k) for X ~ B(n, p), exact: the terms summed from k up while they
 * count (above the mean they fall geometrically), or, below the mean, one
 * minus the terms from k - 1 down
 */
double
compare_binom_sf(uint64 n, uint64 k, double p)
{
	double		sum = 0;
	double		term;
	double		odds;

	if (k == 0 || p >= 1)
		return 1.0;
	if (k > n || p <= 0)
		return 0.0;
	odds = p / (1 - p);
	if ((double) k > (double) n * p)
	{
		term = exp(binom_log_pmf(n, k, p));
		for (uint64 i = k; i <= n; i++)
		{
			sum += term;
			if (term < sum * 1e-17 || i == n)
				break;
			term *= (double) (n - i) / (double) (i + 1) * odds;
			if ((i & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		return Min(sum, 1.0);
	}
	term = exp(binom_log_pmf(n, k - 1, p));
	for (uint64 i = k - 1;; i--)
	{
		sum += term;
		if (i == 0 || term < sum * 1e-17)
			break;
		term *= (double) i / (double) (n - i + 1) / odds;
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return Max(0.0, Min(1.0, 1 - sum));
}

/* The value (ms) a percentile would report for the I/O of a rank (1..n) */
static double
value_at_rank(const RanreadHist *h, uint64 rank)
{
	uint64		seen = 0;

	if (rank >= h->count)
		return h->max_ns / 1e6;
	if (rank <= 1)
		return h->min_ns / 1e6;
	for (int i = 0; i < HIST_BUCKETS; i++)
	{
		seen += h->buckets[i];
		if (seen >= rank)
		{
			double		mid = (hist_bucket_low(i) + hist_bucket_high(i) - 1) / 2.0;

			mid = Max(mid, (double) h->min_ns);
			mid = Min(mid, (double) h->max_ns);
			return mid / 1e6;
		}
	}
	return h->max_ns / 1e6;
}

/*
 * The interval of h's pct percentile at confidence conf, by order
 * statistics: the I/Os ranked n q -+ z sqrt(n q (1 - q)) (a normal
 * approximation of the binomial count below the true percentile)
 */
void
compare_percentile_interval(const RanreadHist *h, double pct, double conf,
							double *low, double *high)
{
	double		n = (double) h->count;
	double		q = pct / 100;
	double		z = norm_upper_quantile((1 - conf) / 2);
	double		sd = sqrt(n * q * (1 - q));
	double		lo_rank = floor(n * q - z * sd);
	double		hi_rank = ceil(n * q + z * sd) + 1;

	if (h->count == 0)
	{
		*low = *high = 0;
		return;
	}
	*low = value_at_rank(h, (uint64) Max(1.0, Min(lo_rank, n)));
	*high = value_at_rank(h, (uint64) Max(1.0, Min(hi_rank, n)));
}

/*
 * A percentile of h against a bound: the I/Os slower than bound_ms (those
 * whose bucket a percentile would report above it), the exact binomial
 * test of "no more than the share 1 - pct / 100 above it", the share's
 * Wilson interval (docs/keeping-watch.md, "Health and alerts"; the top of this file)
 */
void
compare_threshold(const RanreadHist *h, double bound_ms, double pct, double alpha,
				  RanreadThreshold *t)
{
	double		z = norm_upper_quantile(alpha / 2);
	double		n;
	double		x;

	memset(t, 0, sizeof(*t));
	t->n = h->count;
	t->allowed = 1 - pct / 100;
	t->min_ios = (uint64) ceil(1 / t->allowed - 1e-9);
	for (int i = 0; i < HIST_BUCKETS; i++)
	{
		double		mid;

		if (h->buckets[i] == 0)
			continue;
		mid = (hist_bucket_low(i) + hist_bucket_high(i) - 1) / 2.0;
		mid = Max(mid, (double) h->min_ns);
		mid = Min(mid, (double) h->max_ns);
		if (mid / 1e6 > bound_ms)
			t->above += h->buckets[i];
	}
	n = (double) t->n;
	x = (double) t->above;
	t->share = n > 0 ? x / n : 0;
	if (n > 0)
	{
		double		c = (x + z * z / 2) / (n + z * z);
		double		w = z / (n + z * z) * sqrt(x * (n - x) / n + z * z / 4);

		t->share_low = Max(0.0, c - w);
		t->share_high = Min(1.0, c + w);
	}
	t->p_value = compare_binom_sf(t->n, t->above, t->allowed);
	t->verdict = t->n < t->min_ios ? "too few" : t->p_value < alpha ? "above" : "not shown";
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
 * P(X >= k) for X hypergeometric: the count of n draws, out of N of which K
 * are marked, that are marked (Fisher's exact test of a 2 x 2 table, one
 * side).  Summed from k up while the terms count, or below the mode one
 * minus the terms from k - 1 down, each from the last by its ratio.
 */
static double
hypergeom_sf(double N, double K, double n, double k)
{
	double		lo = Max(0, n - (N - K));
	double		hi = Min(K, n);
	double		sum = 0;
	double		term;
	double		mode = floor((n + 1) * (K + 1) / (N + 2));

	if (k <= lo)
		return 1.0;
	if (k > hi)
		return 0.0;
	if (k > mode)
	{
		term = exp(lgamma(K + 1) - lgamma(k + 1) - lgamma(K - k + 1) +
				   lgamma(N - K + 1) - lgamma(n - k + 1) - lgamma(N - K - n + k + 1) -
				   (lgamma(N + 1) - lgamma(n + 1) - lgamma(N - n + 1)));
		for (double x = k; x <= hi; x++)
		{
			sum += term;
			if (term < sum * 1e-17)
				break;
			term *= (K - x) * (n - x) / ((x + 1) * (N - K - n + x + 1));
		}
		return Min(sum, 1.0);
	}
	k -= 1;
	term = exp(lgamma(K + 1) - lgamma(k + 1) - lgamma(K - k + 1) +
			   lgamma(N - K + 1) - lgamma(n - k + 1) - lgamma(N - K - n + k + 1) -
			   (lgamma(N + 1) - lgamma(n + 1) - lgamma(N - n + 1)));
	for (double x = k; x >= lo; x--)
	{
		sum += term;
		if (term < sum * 1e-17)
			break;
		term *= x * (N - K - n + x) / ((K - x + 1) * (n - x + 1));
	}
	return Max(0.0, Min(1.0, 1 - sum));
}

/*
 * The shares of a and of b above bucket t, and Fisher's exact test of
 * them: p_one, the one-sided probability of b having as many above or more
 * (when its share is the larger), or as few or fewer, were both drawn alike
 * (exact, so a tail of a few I/Os a side, where a normal approximation
 * would call 3 against 3 significant, is not); z: the two-proportion z
 * statistic, for its direction and size
 */
static void
tail_test(const RanreadHist *a, const RanreadHist *b, int t, double *z,
		  double *share_a, double *share_b, double *p_one)
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
	if (*z > 0)
		*p_one = hypergeom_sf(na + nb, xa + xb, nb, xb);
	else if (*z < 0)
		*p_one = 1 - hypergeom_sf(na + nb, xa + xb, nb, xb + 1);
	else
		*p_one = 1;
	CHECK_FOR_INTERRUPTS();
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
				tb,
				pa,
				pb,
				p;

	tail_test(a, b, bucket_of_rank(a, 99), &za, &sa, &sb, &pa);
	tail_test(a, b, bucket_of_rank(b, 99), &zb, &ta, &tb, &pb);
	if (za >= -zb)
	{
		r->tail_z = za;
		r->tail_a = sa;
		r->tail_b = sb;
		p = pa;
	}
	else
	{
		r->tail_z = zb;
		r->tail_a = ta;
		r->tail_b = tb;
		p = pb;
	}
	if (a->count < COMPARE_TAIL_MIN_IOS || b->count < COMPARE_TAIL_MIN_IOS)
	{
		r->tail_z = 0;
		p = 1;
	}
	/* two-sided (2 p_one), doubled for the two tests (Bonferroni) */
	r->tail_p = Min(1.0, 4 * p);
}

/*
 * The verdict "slower" or "faster", decided by p99 or p50: whichever moved
 * more; p50 when they moved alike (within 1%), as the middle is measured
 * far more precisely than the tail (its interval is the narrower)
 */
static void
compare_decide(RanreadComparison *r, const char *verdict, bool by50, bool by99)
{
	bool		more99 = (strcmp(verdict, "slower") == 0) ? r->p99_ratio > 1.01 * r->p50_ratio
		: r->p99_ratio * 1.01 < r->p50_ratio;

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

/* The interval of b's pct over a's, each percentile's at 1 - alpha / 2 */
static void
factor_interval(const RanreadHist *a, const RanreadHist *b, double pct, double alpha,
				RanreadComparison *r)
{
	double		alo,
				ahi,
				blo,
				bhi;

	compare_percentile_interval(a, pct, 1 - alpha / 2, &alo, &ahi);
	compare_percentile_interval(b, pct, 1 - alpha / 2, &blo, &bhi);
	r->factor_low = ratio(blo, ahi);
	r->factor_high = ratio(bhi, alo);
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

	/*
	 * Both moved past min_factor: the tail only where it is the surer of
	 * the two, its factor's interval the farther from 1 (a p99 among a
	 * few tail reads can sit anywhere between the body and the tail)
	 */
	if ((slow50 && slow99) || (fast50 && fast99))
	{
		RanreadComparison i50 = *r,
					i99 = *r;

		factor_interval(a, b, 50, alpha, &i50);
		factor_interval(a, b, 99, alpha, &i99);
		if (slow50 ? i99.factor_low <= i50.factor_low : i99.factor_high >= i50.factor_high)
			slow99 = fast99 = false;
	}
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
	factor_interval(a, b, (r->decided_by && strcmp(r->decided_by, "p50") == 0) ? 50 : 99, alpha, r);
	/*
	 * as a person reads it: to 0.0001 (0.9999999999999989 says no more
	 * than 1.0000); p_value keeps the whole figure
	 */
	r->confidence = round((1 - r->p_value) * 1e4) / 1e4;
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
	Datum		values[18];
	bool		nulls[18] = {0};
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
	values[k++] = Float8GetDatum(r.factor_low);
	values[k++] = Float8GetDatum(r.factor_high);
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

/*
 * ranread_hist_threshold(histogram bytea, bound_ms float8, percentile
 * float8, alpha float8): is the histogram's percentile above bound_ms, by
 * the exact binomial test of the I/Os slower than it (compare_threshold)
 */
Datum
ranread_hist_threshold(PG_FUNCTION_ARGS)
{
	static const char *const args[] = {"histogram", "bound_ms", "percentile", "alpha"};
	static const char *const hints[] = {
		"Give a latency histogram as ranread stores it (ranread_batches.histogram).",
		"bound_ms is the latency the percentile is judged against, such as 5.",
		"percentile is the one judged, such as 99; leave it out for 99.",
	"alpha is the significance level of the test, such as 0.001; leave it out for 0.001."};
	RanreadHist *h;
	RanreadThreshold t;
	TupleDesc	tupdesc;
	double		bound;
	double		pct;
	double		alpha;
	Datum		values[9];
	bool		nulls[9] = {0};

	for (int i = 0; i < 4; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s of ranread_hist_threshold must not be null", args[i]),
					 errhint("%s", hints[i])));
	bound = PG_GETARG_FLOAT8(1);
	pct = PG_GETARG_FLOAT8(2);
	alpha = PG_GETARG_FLOAT8(3);
	if (!(bound >= 0 && bound <= 137000))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bound_ms of ranread_hist_threshold must be between 0 and 137000 ms, not %g", bound),
				 errhint("%s", hints[1])));
	if (!(pct >= 50 && pct <= 99.99))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("percentile of ranread_hist_threshold must be between 50 and 99.99, not %g", pct),
				 errhint("%s", hints[2])));
	if (!(alpha >= 1e-12 && alpha <= 0.5))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("alpha of ranread_hist_threshold must be between 1e-12 and 0.5, not %g", alpha),
				 errhint("%s", hints[3])));
	h = palloc(sizeof(RanreadHist));
	hist_from_bytea(h, PG_GETARG_BYTEA_PP(0), "ranread_hist_threshold");
	if (h->count == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("histogram of ranread_hist_threshold holds no I/O: there is nothing to judge"),
				 errhint("Judge the histogram of a batch that did I/O (ranread_hist_count above 0).")));
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ranread_hist_threshold must be called where a row is accepted")));
	compare_threshold(h, bound, pct, alpha, &t);
	values[0] = Int64GetDatum((int64) t.n);
	values[1] = Int64GetDatum((int64) t.above);
	values[2] = Float8GetDatum(t.share);
	values[3] = Float8GetDatum(t.allowed);
	values[4] = Float8GetDatum(t.share_low);
	values[5] = Float8GetDatum(t.share_high);
	values[6] = Float8GetDatum(t.p_value);
	values[7] = Int64GetDatum((int64) t.min_ios);
	values[8] = CStringGetTextDatum(t.verdict);
	Assert(tupdesc->natts == 9);
	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
