/*
 * blocks.h
 *		Where each I/O goes: the random number generator, the access
 *		distributions (uniform, zipf, pareto, hot set) and the spreading of
 *		hot blocks over the whole region.  The heart of the benchmark, so it
 *		lives in one place; blocks.c holds what runs once per batch.
 *
 * A stream draws a rank in [0, n) from its group's distribution (rank 0 is
 * the hottest block), then maps the rank to a block of the region through a
 * fixed permutation of [0, n): unit = lo + (rank * mult + add) mod n, with
 * mult coprime to n and both chosen from the batch's seed.  Neighbouring
 * ranks land far apart, so a hot set of 5% of the blocks is scattered over
 * the whole target instead of sitting in its first 5% (where an array's
 * cache or an SSD's hot zone would flatter it), and the same seed gives the
 * same blocks.  With the uniform distribution every rank is equally likely
 * and no permutation is needed.
 *
 * Draws cost a multiply-shift (uniform, hot set), one pow() (pareto) or a
 * few logarithms (zipf): small next to any I/O, and never a division in the
 * hot loop but the one modulo of the permutation.
 */
#ifndef RANREAD_BLOCKS_H
#define RANREAD_BLOCKS_H

#include "c.h"

#include <math.h>

/* Access distributions (fio's random_distribution) */
typedef enum RanreadDist
{
	DIST_UNIFORM = 0,
	DIST_ZIPF,					/* zipf:THETA */
	DIST_PARETO,				/* pareto:H */
	DIST_HOTSET					/* hotset:PCT_IO/PCT_DATA */
} RanreadDist;

#define RANREAD_DIST_TEXT	48

/* A group's distribution, ready to draw from: filled by blocks_prepare() */
typedef struct BlockChoice
{
	RanreadDist dist;
	char		text[RANREAD_DIST_TEXT];	/* as the user wrote it, normalized */
	double		param[2];		/* zipf theta | pareto h | hotset io and data shares */
	uint64		lo;				/* region, in block_size units: [lo, lo + n) */
	uint64		n;
	uint64		mult;			/* permutation of ranks: coprime to n */
	uint64		add;
	/* zipf, by rejection-inversion (Hormann and Derflinger 1996): see blocks.c */
	double		zipf_h_x1;		/* H(1.5) - 1 */
	double		zipf_h_n;		/* H(n + 0.5) */
	double		zipf_squeeze;
	/* pareto: rank = n * u^(log h / log (1 - h)) */
	double		pareto_exp;
	/* hot set: the first hot_n ranks get io_share of the draws */
	uint64		hot_n;
	uint64		io_threshold;	/* io_share scaled to 2^64 */
} BlockChoice;

/* xoshiro256+: fast, good enough for block choice and page contents */
static inline uint64
rng_rotl(uint64 x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64
rng_next(uint64 *s)
{
	uint64		result = s[0] + s[3];
	uint64		t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n) without division (Lemire) */
static inline uint64
rng_below(uint64 *s, uint64 n)
{
	return (uint64) (((unsigned __int128) rng_next(s) * n) >> 64);
}

/* Uniform in (0, 1), never 0 */
static inline double
rng_unit(uint64 *s)
{
	return ((rng_next(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

extern uint64 blocks_zipf(const BlockChoice *b, uint64 *rng);

/* A rank in [0, n) drawn from the distribution: 0 is the hottest */
static inline uint64
blocks_rank(const BlockChoice *b, uint64 *rng)
{
	switch (b->dist)
	{
		case DIST_UNIFORM:
			return rng_below(rng, b->n);
		case DIST_HOTSET:
			if (rng_next(rng) < b->io_threshold)
				return rng_below(rng, b->hot_n);
			return b->hot_n + rng_below(rng, b->n - b->hot_n);
		case DIST_ZIPF:
			return blocks_zipf(b, rng);
		case DIST_PARETO:
			{
				uint64		r = (uint64) ((double) b->n * pow(rng_unit(rng), b->pareto_exp));

				return Min(r, b->n - 1);
			}
	}
	return 0;
}

/*
 * The next block (in block_size units from the target's start) of a random
 * stream.  Uniform draws need no permutation: every block is as likely.
 */
static inline uint64
blocks_next(const BlockChoice *b, uint64 *rng)
{
	uint64		rank;

	if (likely(b->dist == DIST_UNIFORM))
		return b->lo + rng_below(rng, b->n);
	rank = blocks_rank(b, rng);
	return b->lo + (uint64) (((unsigned __int128) rank * b->mult + b->add) % b->n);
}

extern void rng_seed(uint64 *s, uint64 seed);
extern bool blocks_parse(const char *text, BlockChoice *b, char *why, int whylen);
extern void blocks_prepare(BlockChoice *b, uint64 lo, uint64 n, uint64 seed);

#endif							/* RANREAD_BLOCKS_H */
