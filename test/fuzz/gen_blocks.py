"""ranread_blocks, which a role granted 'run' calls: hostile arguments
(processes and n around their limits and past them, NULLs, block sizes,
patterns, regions of NaN and infinity, distributions of every shape, odd
target names), products of processes and n at, around and far past the
limit of 1000000 offsets, called in the FROM clause, in the select list
(with a LIMIT: rows as they are drawn), once per row of an outer query (a
rescan) and sorted; many of the large ones under a statement_timeout of a
few milliseconds, so that the cancel lands while offsets are drawn.
Checked like the rest: the server stays up, no call outlives its cancel,
no internal error.  A product past the limit must be refused at once,
which the timeout checks too: before, ranread_blocks(100, 1000000) ran 18 s
past a 1 s timeout."""

CASES = 400
TIMEOUT_MS = 1500
TARGET = "fuzz_blocks"

SETUP = [
    "SET client_min_messages = error",
    "SELECT ranread_setup('8MB', target => '%s')" % TARGET,
]

INT_EDGE = [None, -2147483648, -1, 0, 1, 2, 3, 2147483647]
PROCESSES = [1, 1, 2, 4, 16, 100, 1000, 1280, 2048, 2049, 65536] + INT_EDGE
NS = [1, 5, 10, 100, 488, 489, 500, 1000, 1001, 10000, 999999, 1000000, 1000001] + INT_EDGE
BLOCK_SIZES = [8192, 8192, 16384, 65536, 1048576, 1048577, 4096, 512, 100, 12288] + INT_EDGE
PATTERNS = ["random", "random", "sequential", "RANDOM", "zigzag", "", None, "random ", "\u00e9"]
REGIONS = [0, 0, 100, 100, 50, 0.001, 99.999, -1, 101, 1e308, -1e308,
           float("nan"), float("inf"), float("-inf"), None]
DISTRIBUTIONS = ["uniform", "uniform", "zipf:1.2", "zipf:0.5", "zipf:0", "zipf:-1", "zipf:1e308",
                 "zipf:NaN", "zipf:", "pareto:0.2", "pareto:0", "pareto:1", "pareto:1.5",
                 "hotset:95/5", "hotset:100/0", "hotset:0/100", "hotset:50/50", "hotset:95/5/1",
                 "hotset:", "gauss", "", None, "UNIFORM", "zipf:1.2x", "\u00e9"]
TARGETS = [TARGET] * 6 + ["no_such_target", "", None, "x" * 100, "\U0001f600", "ranread"]


def pick(rng, values):
    return rng.choice(values)


def args(rng):
    """(processes, n, target, block_size, pattern, region_start, region_end, seed, distribution)"""
    if rng.random() < 0.5:
        # a product at, around or far past the limit, the rest valid
        p, n = rng.choice([(1000, 1000), (2000, 500), (1, 1000000), (2048, 488), (2048, 489),
                           (1000, 1001), (100, 1000000), (1280, 1000000), (2048, 1000000),
                           (3, 333333), (1001, 999)])
        return (p, n, TARGET, 8192, "random", 0, 100, rng.randrange(-2**63, 2**63),
                pick(rng, ["uniform", "zipf:1.2", "pareto:0.2", "hotset:95/5"]))
    return (pick(rng, PROCESSES), pick(rng, NS), pick(rng, TARGETS), pick(rng, BLOCK_SIZES),
            pick(rng, PATTERNS), pick(rng, REGIONS), pick(rng, REGIONS),
            rng.choice([0, 42, -1, 2**63 - 1, -2**63, None]), pick(rng, DISTRIBUTIONS))


CALL = "ranread_blocks(%s, %s, %s, %s, %s, %s::float8, %s::float8, %s::bigint, %s)"


def cases(rng, n):
    for _ in range(n):
        a = args(rng)
        form = rng.randrange(6)
        if form == 0:
            sql = "SELECT count(*), sum(byte_offset) FROM " + CALL
        elif form == 1:
            sql = "SELECT count(*) FROM (SELECT " + CALL + " LIMIT %d) s" % rng.choice([0, 1, 10, 100000])
        elif form == 2:
            sql = "SELECT count(*) FROM (SELECT " + CALL + ") s"
        elif form == 3:
            sql = "SELECT process, seq, byte_offset FROM " + CALL + " ORDER BY byte_offset DESC LIMIT 3"
        elif form == 4:
            # once per outer row: the call starts afresh each time
            sql = ("SELECT count(*) FROM generate_series(1, %d) g, LATERAL " % rng.choice([2, 3]) + CALL + " b")
        else:
            sql = "SELECT * FROM " + CALL + " LIMIT 5"
        if rng.random() < 0.4:
            # the cancel, while offsets are drawn
            sql = "SET LOCAL statement_timeout = '%dms'; " % rng.choice([1, 5, 20, 50, 200]) + sql
        yield (sql, list(a))
