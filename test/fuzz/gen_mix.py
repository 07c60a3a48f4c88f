"""The groups of ranread_mix: a JSON array of group objects, every key of
docs/mixes.md "Mixed workloads" (label, processes, block_size, write_pct,
queue_depth, pattern, region_start, region_end, rate_iops, distribution,
sync, iterations, target) with values of the right and the wrong type, at
and past their bounds, labels of odd Unicode and odd lengths, many groups,
NULLs, and the batch's own arguments (duration, warmup, seed, workers,
steady_state, target, iterations, start_at).  Most cases are refused before
any I/O; the valid ones are tiny (the 16 MB target made in SETUP, at most
0.2 s or 50 I/Os per process, few processes) and are checked like the rest:
the server stays up, no call outlives its timeout, no internal error."""
import json

CASES = 700
TIMEOUT_MS = 3000
TARGET = "fuzz_mix"

SETUP = [
    "SET client_min_messages = error",
    "SELECT ranread_setup('16MB', target => '%s')" % TARGET,
]

LABELS = [
    "oltp", "scan", "", " ", "total", "TOTAL", "g1", "a" * 63, "a" * 64, "a" * 200,
    "\u00e9" * 31, "\u00e9" * 32, "\u00e9" * 40, "\u20ac" * 21, "\u20ac" * 22,
    "\U0001F600" * 15, "\U0001F600" * 16, "e\u0301" * 30, "\u05e9\u05dc\u05d5\u05dd", "\ufffe\uffff",
    "tab\there", "new\nline", "quote\"d", "back\\slash", "<svg>&amp;", "'; DROP TABLE x; --",
    "\u200b", "\u202eevil", "x" * 62 + "\u00e9", "x" * 63 + "\u00e9",
]


def small_int(rng):
    return rng.choice([1, 1, 1, 2, 2, 3, 4])


VALID = {
    "block_size": [8192, 4096, 16384, 65536], "write_pct": [0, 10, 50, 100], "queue_depth": [1, 2, 4],
    "pattern": ["random", "sequential", "RANDOM"], "region_start": [0, 10, 40.5], "region_end": [60, 99.9, 100],
    "rate_iops": [None, 5000], "distribution": ["uniform", "zipf:1.2", "pareto:0.2", "hotset:95/5", "UNIFORM"],
    "sync": ["none", "fdatasync", "open_datasync"], "iterations": [10, 50], "target": [TARGET],
}


def value(rng, key):
    """A value for a group key: mostly valid and small, sometimes at or past
    a bound, sometimes of the wrong type"""
    r = rng.random()
    if key in VALID and r > 0.3:
        return rng.choice(VALID[key])
    wrong = [None, "4", 1.5, True, [], {}, "", -1, 0, 2 ** 31, 2 ** 63, -2 ** 63, 1e308, "NaN"]
    if r < 0.04:
        return rng.choice(wrong)
    if key == "label":
        return rng.choice(LABELS) if rng.random() < 0.7 else "".join(
            chr(rng.choice([rng.randrange(32, 127), rng.randrange(0xa0, 0x2000), rng.randrange(0x1f300, 0x1f600)]))
            for _ in range(rng.randrange(0, 80)))
    if key == "processes":
        return small_int(rng) if r < 0.9 else rng.choice([0, -1, 2048, 2049, 100000])
    if key == "block_size":
        return rng.choice([8192, 8192, 4096, 16384, 65536, 512, 511, 513, 1000, 1048576, 1048577, 2 ** 30, 0])
    if key == "write_pct":
        return rng.choice([0, 0, 0, 10, 50, 100, 101, -1, 99])
    if key == "queue_depth":
        return rng.choice([1, 1, 2, 4, 8, 0, 1024, 1025])
    if key == "pattern":
        return rng.choice(["random", "sequential", "RANDOM", "Sequential", "seq", "", "random "])
    if key in ("region_start", "region_end"):
        return rng.choice([0, 0.5, 10, 40, 50, 99.9, 100, 100.0001, -0.001, 1e-300, 1e300])
    if key == "rate_iops":
        return rng.choice([None, 1000, 5000, 100000000, 100000001, 0, -5])
    if key == "distribution":
        return rng.choice(["uniform", "UNIFORM", "zipf:1.2", "zipf:0", "zipf:1", "zipf:100", "zipf:100.1",
                           "zipf:", "zipf:abc", "pareto:0.2", "pareto:1", "pareto:0", "hotset:95/5",
                           "hotset:100/5", "hotset:95/0", "hotset:95", "hotset:1e-300/1e-300", "gaussian",
                           "zipf:1e999", "zipf:nan", "zipf:inf", " uniform"])
    if key == "sync":
        return rng.choice(["none", "fdatasync", "fsync", "open_datasync", "open_sync", "fsync_writethrough", "O_SYNC"])
    if key == "iterations":
        return rng.choice([10, 50, 1, 0, -1, 2 ** 62, 2 ** 62 + 1])
    if key == "target":
        return rng.choice([TARGET, TARGET, "no_such_target", "", "\u00e9" * 40, "x" * 100, "ranread"])
    return None


KEYS = ["label", "processes", "block_size", "write_pct", "queue_depth", "pattern", "region_start",
        "region_end", "rate_iops", "distribution", "sync", "iterations", "target"]


def group(rng):
    g = {}
    if rng.random() < 0.95:
        g["processes"] = value(rng, "processes")
    g["target"] = TARGET
    for k in KEYS:
        if k in ("processes",):
            continue
        if rng.random() < 0.2:
            g[k] = value(rng, k)
    if rng.random() < 0.05:
        g[rng.choice(["blocksize", "Processes", "procs", "", "label "])] = 1
    return g


def heavy(groups):
    """Would this mix, were it valid, take more than a tiny run?"""
    procs = 0
    inflight = 0
    for g in groups:
        if not isinstance(g, dict):
            return False
        p = g.get("processes")
        q = g.get("queue_depth", 1)
        b = g.get("block_size", 8192)
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (p, q, b)):
            continue
        procs += max(p, 0)
        inflight += max(p, 0) * max(q, 0) * max(b, 0)
        if isinstance(g.get("rate_iops"), int) and 0 < g["rate_iops"] < 1000:
            return True
    return procs > 16 or inflight > 64 * 1024 * 1024


def groups_array(rng):
    r = rng.random()
    if r < 0.03:
        return None
    if r < 0.06:
        return rng.choice([{}, {"processes": 1}, 1, "x", [], [None], [[{"processes": 1}]]])
    n = rng.choice([1, 1, 1, 1, 2, 2, 2, 3, 4] * 3 + [16, 17, 40])
    gs = [group(rng) for _ in range(n)]
    if rng.random() < 0.05:
        gs[rng.randrange(n)] = rng.choice([None, 1, "g", [], True])
    if n > 4 or heavy(gs):
        # many groups, or heavy ones: keep the case but make it one that is refused
        gs[0] = dict(gs[0] if isinstance(gs[0], dict) else {}, write_pct=101)
    return gs


def literal(v):
    return "NULL" if v is None else v


def cases(rng, n):
    for _ in range(n):
        gs = groups_array(rng)
        if rng.random() < 0.02:
            text = rng.choice(["[", "[{]", "{\"processes\": }", "nul", "[1,]"])
        else:
            text = None if gs is None else json.dumps(gs, ensure_ascii=rng.random() < 0.5)
        args = ["%s::jsonb"]
        params = [text]
        good = rng.random() < 0.9
        dur = "'0.1s'" if good else rng.choice(["'0.2s'", "'0.05s'", "NULL", "'0'", "'-1s'", "'5 ms'",
                                                 "'25 hours'", "'1 mon'", "'999999999 years'"])
        args.append("duration => %s" % dur)
        extra = [
            ("iterations", ["10", "50"], ["0", "-1", "NULL", "9223372036854775807"]),
            ("warmup", ["'0'", "'0.05s'"], ["'-1s'", "'25 hours'", "NULL"]),
            ("workers", ["1", "2"], ["3", "0", "-1", "NULL", "2048", "2049"]),
            ("seed", ["0", "42"], ["-1", "9223372036854775807", "NULL"]),
            ("steady_state", [], ["'10%%/30s'", "'10%%/3s'", "'0%%/3s'", "'x'", "'10%%/1.5s'", "'100%%/3s'",
                                  "'10%%/'", "''"]),
            ("start_at", ["clock_timestamp() + interval '0.2 s'"],
             ["now() - interval '1 s'", "clock_timestamp() + interval '2 hours'", "NULL"]),
        ]
        for name, fine, bad in extra:
            if rng.random() < 0.15:
                pick = rng.choice(fine) if fine and rng.random() < 0.7 else rng.choice(bad)
                args.append("%s => %s" % (name, pick))
        args.append("target => %s" % ("'%s'" % TARGET if rng.random() < 0.95 else rng.choice(["'nope'", "NULL", "''"])))
        yield ("SELECT count(*) FROM ranread_mix(%s)" % ", ".join(args), params)
