"""The stored latency histograms: ranread_hist_* read any bytea a caller
hands them (pg_monitor may call them).  Cases: real histograms from
ranread_hist_merge over nothing, random bytes, real ones with bytes flipped,
cut or extended, and nonsense percentiles."""

CASES = 3000
TIMEOUT_MS = 2000

SETUP = [
    "CREATE TEMP TABLE fuzz_hist AS SELECT ranread_hist_merge(h) AS h FROM (VALUES (NULL::bytea)) v(h)",
]

FUNCS = [
    "ranread_hist_percentile(%s, %s)",
    "ranread_hist_count(%s)",
    "(SELECT count(*) FROM ranread_hist_buckets(%s))",
    "ranread_hist_merge(x) FROM (VALUES (%s), (%s)) v(x)",
    "ranread_hist_within(%s, %s)",
]

NUMBERS = ["0", "50", "99.9", "100", "-1", "101", "'NaN'::float8", "'Infinity'::float8",
           "'-Infinity'::float8", "1e308", "-1e308", "1e-308", "NULL"]


def blob(rng):
    kind = rng.randrange(4)
    n = rng.choice([0, 1, 2, 7, 8, 9, 16, 17, 33, 64, 100, 1000, 4096, 20000])
    if kind == 0:
        data = bytes(rng.randrange(256) for _ in range(n))
    elif kind == 1:
        data = bytes([1]) + bytes(rng.randrange(256) for _ in range(n))
    elif kind == 2:
        data = bytes([rng.randrange(4)]) + bytes(rng.choice([0, 0, 0, 255, 1]) for _ in range(n))
    else:
        return "NULL"
    return "'\\x%s'::bytea" % data.hex()


def cases(rng, n):
    for _ in range(n):
        f = rng.choice(FUNCS)
        args = []
        for _ in range(f.count("%s")):
            args.append(blob(rng) if not args or "merge" in f else rng.choice(NUMBERS))
        yield "SELECT " + f % tuple(args)
