/*
 * histogram.c
 *		Latency histograms: merging, percentiles, the stored form, and the
 *		SQL functions that read stored histograms.
 *
 * Stored form (bytea, little-endian): a version byte, then count, sum, min
 * and max as uint64, then one (uint16 bucket, uint64 count) pair for every
 * non-empty bucket in ascending order.  Typical batches touch a few hundred
 * buckets, so a histogram costs a few KiB in the history.
 *
 * Percentiles follow the nearest-rank rule on the merged counts, report the
 * midpoint of the bucket that holds the rank, and are clamped to the exact
 * observed minimum and maximum.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/float.h"

#include "histogram.h"
#include "sqlfunc.h"

#define HIST_FORMAT_VERSION 1
#define HIST_HEADER_BYTES	(1 + 4 * 8)
#define HIST_PAIR_BYTES		(2 + 8)

PG_FUNCTION_INFO_V1(ranread_hist_merge_sfunc);
PG_FUNCTION_INFO_V1(ranread_hist_merge_final);
PG_FUNCTION_INFO_V1(ranread_hist_percentile);
PG_FUNCTION_INFO_V1(ranread_hist_count);
PG_FUNCTION_INFO_V1(ranread_hist_buckets);

const RanreadHist hist_empty = {.min_ns = PG_UINT64_MAX, .sumsq_known = true};

/* Empty a histogram */
void
hist_reset(RanreadHist *h)
{
	memset(h, 0, sizeof(RanreadHist));
	h->min_ns = PG_UINT64_MAX;
	h->sumsq_known = true;
}

/* Add src's counts to dst (a sum of squares only when both know theirs) */
void
hist_merge(RanreadHist *dst, const RanreadHist *src)
{
	if (src->count == 0)
		return;
	dst->sumsq_ns2 += src->sumsq_ns2;
	dst->sumsq_known = dst->sumsq_known && src->sumsq_known;
	for (int i = 0; i < HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	dst->min_ns = Min(dst->min_ns, src->min_ns);
	dst->max_ns = Max(dst->max_ns, src->max_ns);
}

/* Smallest value (ns) that falls into bucket idx */
uint64
hist_bucket_low(int idx)
{
	int			shift;

	if (idx < HIST_SUB)
		return (uint64) idx;
	shift = (idx >> HIST_SUB_BITS) - 1;
	return ((uint64) (HIST_SUB + (idx & (HIST_SUB - 1)))) << shift;
}

/* One past the largest value (ns) of bucket idx */
uint64
hist_bucket_high(int idx)
{
	if (idx < HIST_SUB)
		return (uint64) idx + 1;
	return hist_bucket_low(idx) + ((uint64) 1 << ((idx >> HIST_SUB_BITS) - 1));
}

/* Nearest-rank percentile in milliseconds, NaN-free: 0 when empty */
double
hist_percentile_ms(const RanreadHist *h, double pct)
{
	uint64		rank;
	uint64		seen = 0;

	if (h->count == 0)
		return 0.0;
	if (pct <= 0)
		return h->min_ns / 1e6;
	if (pct >= 100)
		return h->max_ns / 1e6;

	rank = (uint64) ceil(pct / 100.0 * (double) h->count);
	if (rank < 1)
		rank = 1;
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

/* Exact average in milliseconds; 0 when empty */
double
hist_avg_ms(const RanreadHist *h)
{
	if (h->count == 0)
		return 0.0;
	return (double) h->sum_ns / (double) h->count / 1e6;
}

/*
 * The sample standard deviation in milliseconds (n - 1 in the denominator,
 * as fio reports it), from the exact sums: 0 for fewer than two values, NaN
 * when the histogram has no sum of squares (one read back from the history).
 * The subtraction is done in long double: sum^2 / n and the sum of squares
 * agree in as many leading digits as mean / stddev has, and long double
 * keeps 64 bits, far more than any latency distribution needs.
 */
double
hist_stddev_ms(const RanreadHist *h)
{
	long double n = (long double) h->count;
	long double sum = (long double) h->sum_ns;
	long double var;

	if (!h->sumsq_known)
		return get_float8_nan();
	if (h->count < 2)
		return 0.0;
	var = ((long double) h->sumsq_ns2 - sum * sum / n) / (n - 1);
	if (var < 0)
		var = 0;				/* rounding, when every value is the same */
	return (double) (sqrtl(var) / 1e6L);
}

static inline void
put_u64(char **p, uint64 v)
{
	for (int i = 0; i < 8; i++)
		*(*p)++ = (char) ((v >> (8 * i)) & 0xff);
}

static inline uint64
get_u64(const unsigned char **p)
{
	uint64		v = 0;

	for (int i = 0; i < 8; i++)
		v |= ((uint64) *(*p)++) << (8 * i);
	return v;
}

/* Encode a histogram in the stored form */
bytea *
hist_to_bytea(const RanreadHist *h)
{
	int			nonzero = 0;
	Size		len;
	bytea	   *result;
	char	   *p;

	for (int i = 0; i < HIST_BUCKETS; i++)
		if (h->buckets[i] != 0)
			nonzero++;

	len = HIST_HEADER_BYTES + (Size) nonzero * HIST_PAIR_BYTES;
	result = (bytea *) palloc(VARHDRSZ + len);
	SET_VARSIZE(result, VARHDRSZ + len);
	p = VARDATA(result);
	*p++ = HIST_FORMAT_VERSION;
	put_u64(&p, h->count);
	put_u64(&p, h->sum_ns);
	put_u64(&p, h->count ? h->min_ns : 0);
	put_u64(&p, h->max_ns);
	for (int i = 0; i < HIST_BUCKETS; i++)
	{
		if (h->buckets[i] == 0)
			continue;
		*p++ = (char) (i & 0xff);
		*p++ = (char) (i >> 8);
		put_u64(&p, h->buckets[i]);
	}
	return result;
}

/* Decode the stored form, rejecting anything malformed */
void
hist_from_bytea(RanreadHist *h, const bytea *b, const char *fn)
{
	Size		len = VARSIZE_ANY_EXHDR(b);
	const unsigned char *p = (const unsigned char *) VARDATA_ANY(b);
	const unsigned char *end = p + len;
	uint64		total = 0;
	int			last = -1;

	if (len < HIST_HEADER_BYTES || (len - HIST_HEADER_BYTES) % HIST_PAIR_BYTES != 0 ||
		p[0] != HIST_FORMAT_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid ranread histogram given to %s", fn),
				 errdetail("A histogram is the bytea stored in ranread_results.histogram.")));
	p++;
	hist_reset(h);
	h->sumsq_known = false;		/* not in the stored form */
	h->count = get_u64(&p);
	h->sum_ns = get_u64(&p);
	h->min_ns = get_u64(&p);
	h->max_ns = get_u64(&p);
	while (p < end)
	{
		int			idx = p[0] | (p[1] << 8);

		p += 2;
		if (idx >= HIST_BUCKETS || idx <= last)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid ranread histogram given to %s: bucket %d out of range or out of order", fn, idx)));
		last = idx;
		h->buckets[idx] = get_u64(&p);
		/* at most HIST_MAX_COUNT values each, so the sum cannot wrap */
		if (h->buckets[idx] > HIST_MAX_COUNT)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid ranread histogram given to %s: bucket %d holds more than " UINT64_FORMAT " values",
							fn, idx, (uint64) HIST_MAX_COUNT)));
		total += h->buckets[idx];
	}
	if (total != h->count || h->count > HIST_MAX_COUNT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid ranread histogram given to %s: buckets hold " UINT64_FORMAT " values, header says " UINT64_FORMAT,
						fn, total, h->count)));
	if (h->count == 0)
		h->min_ns = PG_UINT64_MAX;
}

/* Aggregate transition: merge one stored histogram into the state */
Datum
ranread_hist_merge_sfunc(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	RanreadHist *state;
	RanreadHist *tmp;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "ranread_hist_merge_sfunc called in non-aggregate context");

	if (PG_ARGISNULL(0))
	{
		state = MemoryContextAlloc(aggcxt, sizeof(RanreadHist));
		hist_reset(state);
	}
	else
		state = (RanreadHist *) PG_GETARG_POINTER(0);

	if (!PG_ARGISNULL(1))
	{
		tmp = palloc(sizeof(RanreadHist));
		hist_from_bytea(tmp, PG_GETARG_BYTEA_PP(1), "ranread_hist_merge");
		if (state->count + tmp->count > HIST_MAX_COUNT)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("ranread_hist_merge would hold more than " UINT64_FORMAT " values",
							(uint64) HIST_MAX_COUNT)));
		hist_merge(state, tmp);
		pfree(tmp);
	}
	PG_RETURN_POINTER(state);
}

/* Aggregate final: the merged histogram in stored form */
Datum
ranread_hist_merge_final(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_BYTEA_P(hist_to_bytea((RanreadHist *) PG_GETARG_POINTER(0)));
}

/* ranread_hist_percentile(histogram, percentile) in milliseconds */
Datum
ranread_hist_percentile(PG_FUNCTION_ARGS)
{
	RanreadHist *h = palloc(sizeof(RanreadHist));
	double		pct = PG_GETARG_FLOAT8(1);

	if (isnan(pct) || pct < 0 || pct > 100)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("percentile of ranread_hist_percentile must be between 0 and 100, not %g", pct),
				 errhint("For the 99th percentile, pass 99.")));
	hist_from_bytea(h, PG_GETARG_BYTEA_PP(0), "ranread_hist_percentile");
	if (h->count == 0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(hist_percentile_ms(h, pct));
}

/* ranread_hist_count(histogram): how many I/Os it holds */
Datum
ranread_hist_count(PG_FUNCTION_ARGS)
{
	RanreadHist *h = palloc(sizeof(RanreadHist));

	hist_from_bytea(h, PG_GETARG_BYTEA_PP(0), "ranread_hist_count");
	PG_RETURN_INT64((int64) h->count);
}

/* ranread_hist_buckets(histogram): the non-empty buckets */
Datum
ranread_hist_buckets(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	RanreadHist *h = palloc(sizeof(RanreadHist));

	InitMaterializedSRF(fcinfo, 0);
	hist_from_bytea(h, PG_GETARG_BYTEA_PP(0), "ranread_hist_buckets");
	for (int i = 0; i < HIST_BUCKETS; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		if (h->buckets[i] == 0)
			continue;
		values[0] = Float8GetDatum(hist_bucket_low(i) / 1e6);
		values[1] = Float8GetDatum(hist_bucket_high(i) / 1e6);
		values[2] = Int64GetDatum((int64) h->buckets[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
