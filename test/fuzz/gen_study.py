"""ranread_study: its dimension arrays (processes, queue_depth, block_size,
write_pct, region, pattern, distribution, small, large) empty, with NULLs,
repeats, spellings of one value ('0-100'/'0-100.0', 'RANDOM', 'zipf:1.20'),
values at and past their bounds and arrays of thousands of values (grids far
past the 1000-point limit, matrices of 2049 x 2049 loads: refused at once,
not built); matrix modes and num_small/num_large; region strings of every
shape; distributions; and the other arguments.  Valid studies are tiny: at
most a few points of 0.05 s on the 16 MB target made in SETUP."""

CASES = 500
TIMEOUT_MS = 4000
TARGET = "fuzz_study"

SETUP = [
    "SET client_min_messages = error",
    "SELECT ranread_setup('16MB', target => '%s')" % TARGET,
]

REGIONS = ["0-100", "0-100.0", " 0 - 100 % ", "0-40", "40-100", "50-10", "10-10", "-5-10", "0-101",
           "abc", "", "0-1e2", "0.000001-100", "99.99999-100", "0--1", "0-100%%", "0-100-200",
           "\u0660-\u0661\u0660\u0660", "0.5-0.50000000000001", "1" * 400 + "-2"]
PATTERNS = ["random", "sequential", "RANDOM", "Random", " random", "seq", "", "random\u0301"]
DISTS = ["uniform", "UNIFORM", "zipf:1.2", "zipf:1.20", "ZIPF:1.2", "zipf:+1.2", "zipf:1.2e0", "zipf:.5",
         "zipf:0", "zipf:1e999", "zipf:1e-999", "pareto:0.2", "pareto:0.20", "hotset:95/5", "hotset:95.0/5.0",
         "hotset:95/5/1", "gaussian", "zipf:", "zipf:nan", "hotset:1e3/5", "zipf: 1.2"]


def int_array(rng, lo, hi, fine):
    r = rng.random()
    if r < 0.55:
        return None
    if r < 0.8:
        return rng.sample(fine, rng.randrange(1, min(3, len(fine)) + 1))
    if r < 0.85:
        return []
    if r < 0.9:
        return [rng.choice(fine), None]
    if r < 0.93:
        v = rng.choice(fine)
        return [v, v]
    if r < 0.97:
        return [rng.choice([lo - 1, hi + 1, -2 ** 31, 2 ** 31 - 1])]
    return "big"


def sql_int_array(v, lo, hi):
    if v is None:
        return "NULL"
    if v == "big":
        return "ARRAY(SELECT generate_series(%d, %d))" % (max(lo, 0), min(hi, 3000))
    return "ARRAY[%s]::integer[]" % ", ".join("NULL" if x is None else str(x) for x in v)


def text_array(rng, values, fine):
    r = rng.random()
    if r < 0.65:
        return None
    if r < 0.85:
        return "ARRAY[%s]::text[]" % ", ".join("%s" for _ in range(rng.randrange(1, 3))), \
            [rng.choice(fine) for _ in range(3)]
    if r < 0.9:
        return "'{}'::text[]", []
    if r < 0.93:
        return "ARRAY[%s, NULL]::text[]", [rng.choice(values)]
    if r < 0.96:
        return "ARRAY(SELECT %s || g FROM generate_series(1, 20000) g)", [rng.choice(values)]
    return "ARRAY[%s, %s]::text[]", [rng.choice(values), rng.choice(values)]


def cases(rng, n):
    for _ in range(n):
        args = []
        params = []
        size = 1
        mix = rng.random() < 0.25
        if not mix:
            for name, lo, hi, fine in [("processes", 1, 2048, [1, 2]), ("queue_depth", 1, 1024, [1, 2]),
                                       ("block_size", 1, 1073741824, [8192, 16384, 4096, 1000]),
                                       ("write_pct", 0, 100, [0, 10])]:
                v = int_array(rng, lo, hi, fine)
                if v is not None:
                    args.append("%s => %s" % (name, sql_int_array(v, lo, hi)))
                    size *= 3000 if v == "big" else max(len(v), 1)
        else:
            for name in ("small", "large"):
                v = int_array(rng, 0, 2048, [0, 1, 2])
                if v is not None:
                    args.append("%s => %s" % (name, sql_int_array(v, 0, 2048)))
                    size *= 3000 if v == "big" else max(len(v), 1) + 1
            if rng.random() < 0.8:
                args.append("matrix => %s" % rng.choice(["'basic'", "'detailed'", "'row'", "'col'", "'point'",
                                                          "'max'", "'BASIC'", "'diagonal'", "NULL", "''"]))
            for name in ("num_small", "num_large"):
                if rng.random() < 0.2:
                    args.append("%s => %s" % (name, rng.choice(["0", "1", "2", "-1", "2049", "NULL"])))
            if rng.random() < 0.1:
                args.append("large_size => %s" % rng.choice(["65536", "1048576", "0", "2097152"]))
            if rng.random() < 0.1:
                args.append("large_pattern => %s" % rng.choice(["'sequential'", "'random'", "'RANDOM'", "NULL"]))
        for name, values, fine in [("region", REGIONS, ["0-100", "0-100.0", " 0 - 50 ", "50-100"]),
                                   ("pattern", PATTERNS, ["random", "sequential", "RANDOM"]),
                                   ("distribution", DISTS, ["uniform", "zipf:1.2", "zipf:1.20", "hotset:95/5"])]:
            t = text_array(rng, values, fine)
            if t is not None:
                sql, vals = t
                args.append("%s => %s" % (name, sql))
                params.extend(vals[:sql.count("%s")])
                size *= 20000 if "generate_series" in sql else max(sql.count("%s"), 1)
        good = rng.random() < 0.93
        args.append("duration => %s" % ("'0.05s'" if good else rng.choice(
            ["'0'", "NULL", "'-1s'", "'5 ms'", "'25 hours'", "'0.3s'"])))
        for name, fine, bad in [("warmup", ["'0'"], ["'-1s'", "NULL"]),
                                ("max_avg_ms", ["10", "0.001"], ["0", "-1", "'NaN'", "'Infinity'", "NULL"]),
                                ("early_end", ["true", "false"], ["NULL"]),
                                ("workers", ["1"], ["0", "2", "-1", "3000"]),
                                ("seed", ["1"], ["-1"])]:
            if rng.random() < 0.12:
                args.append("%s => %s" % (name, rng.choice(fine) if rng.random() < 0.6 else rng.choice(bad)))
        args.append("target => %s" % ("'%s'" % TARGET if rng.random() < 0.95 else rng.choice(["'nope'", "NULL"])))
        if 4 < size <= 1000:
            # a grid of more than a few points would run too long: keep it, refused
            args.append("max_avg_ms => 0")
        yield ("SELECT count(*) FROM ranread_study(%s)" % ", ".join(args), params)
