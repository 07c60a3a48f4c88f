"""The settings advisor: ranread_advise's arguments (tablespaces that exist
or not, pg_global, odd names, NULL; cache hit ratios, latency bounds and
durations in and out of range, NaN, infinities; targets there, elsewhere or
missing) over a short real history, and its pure formulas
(ranread_advise_page_costs, _io_concurrency, _parallel_workers,
_wal_sync_method) and internal rules (ranread_internal.ranread_advise_same,
_pending, _measure_sql, _cache, _figure, _source) on nonsense numbers,
arrays and strings.  The history holds two QD1 batches, so that figures
are medians with a spread.
measure => true is only asked together with an argument it refuses first,
so that no case runs a sweep.  The cases run as a role granted 'report'
(ROLE, the readers' role of fuzz.py): all of these are pg_monitor's."""

CASES = 3000
TIMEOUT_MS = 4000
TARGET = "fuzz_advise"
ROLE = "ranread_fuzz_reader"

SETUP = [
    "SET client_min_messages = error",
    "SELECT ranread_setup('16MB', target => '%s')" % TARGET,
    "SELECT ranread_run(1, target => '%s', duration => '0.2s')" % TARGET,
    "SELECT ranread_run(1, target => '%s', duration => '0.2s')" % TARGET,
    "SELECT ranread_run(2, target => '%s', duration => '0.2s', queue_depth => 2)" % TARGET,
    "SELECT ranread_run(1, target => '%s', duration => '0.2s', block_size => 1048576, pattern => 'sequential')" % TARGET,
    "SELECT ranread_run(2, target => '%s', duration => '0.2s', block_size => 1048576, pattern => 'sequential')" % TARGET,
]

NUMBERS = ["0", "0.5", "0.9", "1", "10", "-1", "1.5", "1e-300", "1e300", "'NaN'::float8", "'Infinity'::float8",
           "'-Infinity'::float8", "NULL"]
BAD_RATIOS = ["-0.1", "1.5", "'NaN'::float8", "'Infinity'::float8", "NULL"]
BOUNDS = ["10", "0.75", "1e-300", "1e300", "0", "-1", "'NaN'::float8", "'Infinity'::float8", "NULL"]
BAD_BOUNDS = ["0", "-1", "'NaN'::float8", "'Infinity'::float8", "NULL"]
DURATIONS = ["'2s'", "'0.1s'", "'10min'", "'0.05s'", "'11min'", "'-1s'", "'0'", "'1 year'", "NULL"]
BAD_DURATIONS = ["'0.05s'", "'11min'", "'-1s'", "'0'", "NULL"]
NAMES = ["pg_default", "pg_global", "no_such_tablespace", "", " ", "PG_DEFAULT", "pg_default ",
         "x" * 100, "\u00e9" * 40, "'; SELECT 1; --", "\U0001F600"]
TARGETS = [TARGET, "no_such_target", "", "x" * 100, "\u00e9" * 30, "ranread"]
METHODS = ["open_datasync", "fdatasync", "fsync", "fsync_writethrough", "open_sync", "none", "FSYNC", "",
           "x" * 200, None]


def pick(rng, values):
    return rng.choice(values)


def advise_case(rng):
    args, params = [], []
    if rng.random() < 0.7:
        args.append("tablespace => %s")
        params.append(rng.choice(NAMES + [None]) if rng.random() < 0.5 else "pg_default")
    if rng.random() < 0.5:
        args.append("target => %s")
        params.append(rng.choice(TARGETS + [None]))
    measure = rng.choice(["false", "false", "NULL", "true"])
    ratio, bound, duration = pick(rng, NUMBERS), pick(rng, BOUNDS), pick(rng, DURATIONS)
    if measure == "true":
        # refused before any batch runs: one argument out of range
        which = rng.randrange(3)
        ratio = pick(rng, BAD_RATIOS) if which == 0 else ratio
        bound = pick(rng, BAD_BOUNDS) if which == 1 else bound
        duration = pick(rng, BAD_DURATIONS) if which == 2 else duration
    args += ["measure => %s" % measure, "cache_hit_ratio => %s" % ratio, "max_avg_ms => %s" % bound,
             "duration => %s" % duration]
    rng.shuffle(args)
    return "SELECT count(*) FROM ranread_advise(%s)" % ", ".join(args), (params or None)


def floats(rng):
    if rng.random() < 0.1:
        return "NULL"
    n = rng.choice([0, 1, 2, 3, 8, 40, 1000])
    return "ARRAY[%s]::float8[]" % ", ".join(pick(rng, NUMBERS) for _ in range(n))


def ints(rng):
    if rng.random() < 0.1:
        return "NULL"
    n = rng.choice([0, 1, 2, 3, 8, 40, 1000])
    return "ARRAY[%s]::integer[]" % ", ".join(
        rng.choice(["1", "2", "4", "0", "-1", "2147483647", "NULL", str(rng.randrange(1, 5000))]) for _ in range(n))


def formula_case(rng):
    f = rng.randrange(10)
    if f == 0:
        return "SELECT * FROM ranread_advise_page_costs(%s, %s, %s, %s)" % tuple(pick(rng, NUMBERS) for _ in range(4))
    if f == 1:
        return "SELECT * FROM ranread_advise_io_concurrency(%s, %s, %s, %s, %s)" % (
            ints(rng), floats(rng), floats(rng), pick(rng, BOUNDS), pick(rng, NUMBERS))
    if f == 2:
        return "SELECT * FROM ranread_advise_parallel_workers(%s, %s)" % (pick(rng, NUMBERS), pick(rng, NUMBERS))
    if f == 3:
        n = rng.choice([0, 1, 2, 5, 50])
        return ("SELECT * FROM ranread_advise_wal_sync_method(%s, %s, %s)",
                [[pick(rng, METHODS) for _ in range(n)],
                 [rng.choice([1000.0, 0.0, -1.0, 1e308, float("nan"), float("inf"), 4431.5]) for _ in range(rng.choice([0, n, n + 1]))],
                 pick(rng, METHODS)])
    if f == 4:
        return ("SELECT ranread_internal.ranread_advise_same(%s, %s)",
                [rng.choice(["4", "4.0", "1" * 2000, "-0", ".5", "1e9", "fsync", "", None]) for _ in range(2)])
    if f == 5:
        return ("SELECT * FROM ranread_internal.ranread_advise_pending(%s, %s, %s, %s, %s)",
                [rng.choice(["random_page_cost", "wal_sync_method", "", "x" * 500, None]),
                 rng.choice(["1.1", "open_sync", "it's", "9" * 1000, "", None]),
                 rng.choice(["1.10", "fdatasync", "", None]),
                 rng.choice(["tablespace", "server", "", None]),
                 rng.choice(["ALTER SYSTEM SET x = 1;", "", None])])
    if f == 6:
        return "SELECT * FROM ranread_internal.ranread_advise_cache(%s, %s, %s, %s)" % (
            pick(rng, NUMBERS), rng.choice(["'t'", "''", "NULL", "'%s'" % ("x" * 100)]),
            rng.choice(["0", "1", "-1", "9223372036854775807", "NULL", "8589934592"]),
            rng.choice(["0", "-1", "9223372036854775807", "4611686018427387904", "NULL", "4294967296"]))
    if f == 7:
        return ("SELECT * FROM ranread_internal.ranread_advise_figure(%s, %s, %s, %s, %s, %s)",
                [rng.choice(NAMES + [None]), rng.choice(["random", "sequential", "", "RANDOM", None]),
                 rng.choice([8192, 1048576, 0, -1, 2147483647, None]),
                 rng.choice([1, 2, 0, -1, 2147483647, None]), rng.choice([1, 2, 0, -1, 2147483647, None]),
                 rng.choice([1, 4, 0, -1, 2147483647, None])])
    if f == 8:
        return ("SELECT ranread_internal.ranread_advise_source(f, %s) FROM ranread_internal.ranread_advise_figure(%s, 'random', 8192, 1, 1) f",
                [rng.choice([0.0, 0.05, 1e308, float("nan"), float("inf"), -1.0, None]), rng.choice(["pg_default", "no_such", None])])
    return ("SELECT ranread_internal.ranread_advise_measure_sql(%s, %s, %s, %s, %s, %s)",
            [rng.choice(["random QD1", "sequential", "random sweep", "sequential sweep", "commit test", "target", "other", "", None]),
             rng.choice(TARGETS + [None]), rng.choice(["2s", "0", "-1 day", "1000 years", None]),
             rng.choice([10.0, 0.0, float("nan"), float("inf"), None]), rng.choice(["public", "a \"b\"", "", None]),
             rng.choice(NAMES + [None])])


def cases(rng, n):
    for _ in range(n):
        if rng.random() < 0.5:
            yield advise_case(rng)
        else:
            yield formula_case(rng)
