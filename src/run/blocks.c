/*
 * blocks.c
 *		What block choice needs once per batch: seeding the generators,
 *		reading a distribution as the user wrote it, and the constants of
 *		the draw (blocks.h has the per-I/O part and the design).
 *
 * The distributions follow fio's random_distribution:
 *	 uniform			every block as likely (the default, and 1.0's only choice)
 *	 zipf:THETA			rank k (from 1) drawn with weight 1/k^THETA, exactly
 *						(fio approximates it after Gray et al., which is 20%
 *						off at rank 3); THETA > 0
 *	 pareto:H			rank = n * u^(log H / log(1 - H)) for uniform u, as fio;
 *						0 < H < 1 (0.2 is the "80/20 rule")
 *	 hotset:IO/DATA		IO percent of the I/Os go to DATA percent of the blocks,
 *						uniformly within the hot and the cold part (fio's
 *						zoned:IO/DATA:(100-IO)/(100-DATA)); both in (0, 100)
 * The ranks are then spread over the region by a permutation fixed by the
 * seed, unlike fio, which hashes them (a hash can send two ranks to one
 * block; a permutation never does, so the hot set has exactly its size).
 */
#include "postgres.h"

#include <math.h>

#include "blocks.h"

/* Seed a xoshiro256 state from one number (splitmix64) */
void
rng_seed(uint64 *s, uint64 seed)
{
	for (int i = 0; i < 4; i++)
	{
		uint64		z = (seed += UINT64CONST(0x9E3779B97F4A7C15));

		z = (z ^ (z >> 30)) * UINT64CONST(0xBF58476D1CE4E5B9);
		z = (z ^ (z >> 27)) * UINT64CONST(0x94D049BB133111EB);
		s[i] = z ^ (z >> 31);
	}
}

/* A number that ends the text exactly, or false */
static bool
parse_number(const char *s, char **end, double *v)
{
	*v = strtod(s, end);
	return *end != s && !isnan(*v) && !isinf(*v);
}

/* A distribution of one parameter, a, spelled KIND:A; true */
static bool
one_parameter(BlockChoice *b, RanreadDist dist, const char *kind, double a)
{
	b->dist = dist;
	b->param[0] = a;
	snprintf(b->text, sizeof(b->text), "%s:%g", kind, a);
	return true;
}

/*
 * Read a distribution: 'uniform', 'zipf:THETA', 'pareto:H' or
 * 'hotset:IO/DATA'.  On failure says why (for an errdetail) and returns
 * false.  b->text gets the normalized spelling.
 */
bool
blocks_parse(const char *text, BlockChoice *b, char *why, int whylen)
{
	const char *colon = strchr(text, ':');
	size_t		kind_len = colon ? (size_t) (colon - text) : strlen(text);
	const char *arg = colon ? colon + 1 : "";
	char	   *end;
	double		a;
	double		d;

	memset(b, 0, sizeof(*b));
	if (kind_len == 7 && pg_strncasecmp(text, "uniform", 7) == 0 && colon == NULL)
	{
		b->dist = DIST_UNIFORM;
		strlcpy(b->text, "uniform", sizeof(b->text));
		return true;
	}
	if (kind_len == 4 && pg_strncasecmp(text, "zipf", 4) == 0)
	{
		if (!parse_number(arg, &end, &a) || *end != '\0')
		{
			snprintf(why, whylen, "zipf needs its exponent, as in 'zipf:1.2'.");
			return false;
		}
		if (!(a > 0) || a > 100)
		{
			snprintf(why, whylen, "The zipf exponent THETA must be greater than 0 and at most 100; it was %g.", a);
			return false;
		}
		return one_parameter(b, DIST_ZIPF, "zipf", a);
	}
	if (kind_len == 6 && pg_strncasecmp(text, "pareto", 6) == 0)
	{
		if (!parse_number(arg, &end, &a) || *end != '\0')
		{
			snprintf(why, whylen, "pareto needs its parameter, as in 'pareto:0.2'.");
			return false;
		}
		if (!(a > 0 && a < 1))
		{
			snprintf(why, whylen, "The pareto parameter H must be between 0 and 1 (exclusive); it was %g.", a);
			return false;
		}
		return one_parameter(b, DIST_PARETO, "pareto", a);
	}
	if (kind_len == 6 && pg_strncasecmp(text, "hotset", 6) == 0)
	{
		if (!parse_number(arg, &end, &a) || *end != '/' ||
			!parse_number(end + 1, &end, &d) || *end != '\0')
		{
			snprintf(why, whylen, "hotset needs two percentages, as in 'hotset:95/5': 95%% of the I/Os on 5%% of the blocks.");
			return false;
		}
		if (!(a > 0 && a < 100) || !(d > 0 && d < 100))
		{
			snprintf(why, whylen, "Both hotset percentages must be between 0 and 100 (exclusive); they were %g and %g.", a, d);
			return false;
		}
		b->dist = DIST_HOTSET;
		b->param[0] = a / 100.0;
		b->param[1] = d / 100.0;
		snprintf(b->text, sizeof(b->text), "hotset:%g/%g", a, d);
		return true;
	}
	snprintf(why, whylen, "A distribution is 'uniform', 'zipf:THETA', 'pareto:H' or 'hotset:PCT_IO/PCT_DATA'.");
	return false;
}

/* Greatest common divisor */
static uint64
gcd64(uint64 a, uint64 b)
{
	while (b != 0)
	{
		uint64		t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * Zipf by rejection-inversion (W. Hormann, G. Derflinger, "Rejection-
 * inversion to generate variates from monotone discrete distributions",
 * ACM TOMACS 6(3), 1996): exact for any exponent, no table, a few
 * logarithms per draw.  With h(x) = x^-theta and H its integral, a uniform
 * u between H(1.5) - 1 and H(n + 0.5) inverted through H gives x; its
 * nearest integer k is accepted when x is close enough to it (the squeeze)
 * or when u lies under the area of the histogram bar of k, else drawn again
 * (rarely: the acceptance rate is high for every exponent).
 */

/* log(1 + x) / x, and (exp(x) - 1) / x, exact near 0 */
static inline double
log1p_over_x(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

static inline double
expm1_over_x(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
}

/* h(x) = x^-theta */
static inline double
zipf_h(double theta, double x)
{
	return exp(-theta * log(x));
}

/* H(x), the integral of h from 1, continuous in theta (also at theta = 1) */
static inline double
zipf_H(double theta, double x)
{
	double		lx = log(x);

	return expm1_over_x((1.0 - theta) * lx) * lx;
}

/* The inverse of H */
static inline double
zipf_H_inverse(double theta, double y)
{
	double		t = Max(y * (1.0 - theta), -1.0);

	return exp(log1p_over_x(t) * y);
}

/* A zipf rank in [0, n): 0 is rank 1, the hottest */
uint64
blocks_zipf(const BlockChoice *b, uint64 *rng)
{
	double		theta = b->param[0];

	for (;;)
	{
		double		u = b->zipf_h_n + rng_unit(rng) * (b->zipf_h_x1 - b->zipf_h_n);
		double		x = zipf_H_inverse(theta, u);
		double		k = floor(x + 0.5);

		k = Max(k, 1.0);
		k = Min(k, (double) b->n);
		if (k - x <= b->zipf_squeeze ||
			u >= zipf_H(theta, k + 0.5) - zipf_h(theta, k))
			return (uint64) k - 1;
	}
}

/*
 * Fill in the constants of a parsed distribution for a region of n units
 * starting at lo.  The permutation comes from the seed, so a seed gives the
 * same hot blocks every time.
 */
void
blocks_prepare(BlockChoice *b, uint64 lo, uint64 n, uint64 seed)
{
	uint64		s[4];

	b->lo = lo;
	b->n = Max(n, 1);
	rng_seed(s, seed ^ UINT64CONST(0x5EEDB10C4C401CE5));

	/* multiplier near n / golden ratio, made coprime with n */
	b->mult = 1;
	b->add = 0;
	if (b->n > 2)
	{
		uint64		m = (uint64) ((double) b->n * 0.6180339887498949) + rng_below(s, 64);

		m = Max(m % b->n, 1);
		while (gcd64(m, b->n) != 1)
			m = m + 1 < b->n ? m + 1 : 1;
		b->mult = m;
		b->add = rng_below(s, b->n);
	}

	switch (b->dist)
	{
		case DIST_UNIFORM:
			break;
		case DIST_ZIPF:
			{
				double		theta = b->param[0];

				b->zipf_h_x1 = zipf_H(theta, 1.5) - 1.0;
				b->zipf_h_n = zipf_H(theta, (double) b->n + 0.5);
				b->zipf_squeeze = 2.0 - zipf_H_inverse(theta, zipf_H(theta, 2.5) - zipf_h(theta, 2.0));
				break;
			}
		case DIST_PARETO:
			b->pareto_exp = log(b->param[0]) / log(1.0 - b->param[0]);
			break;
		case DIST_HOTSET:
			b->hot_n = (uint64) rint((double) b->n * b->param[1]);
			b->hot_n = Max(b->hot_n, 1);
			if (b->hot_n >= b->n)
				b->hot_n = b->n > 1 ? b->n - 1 : 1;
			b->io_threshold = (uint64) (b->param[0] * 18446744073709551616.0);
			break;
	}
}
