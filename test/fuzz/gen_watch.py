"""Keeping watch: the comparison of histograms (ranread_hist_compare, which
pg_monitor may call, on any bytea), the histograms made from latencies
(ranread_internal.ranread_hist_make), ranread_compare, _sweeps and _studies
on ids that exist or not, and the watch's settings and baselines
(ranread_health_set, ranread_baseline_set, ranread_baseline_reset,
ranread_probe_chart), the threshold test (ranread_hist_threshold), the
hysteresis (ranread_health_hold) and the robust baseline
(ranread_baseline_robust) on odd tablespaces (multibyte names among them:
a name of 63 bytes cut inside a character), thresholds and intervals.  The
history holds two short batches."""

CASES = 2000
TIMEOUT_MS = 3000
TARGET = "fuzz_watch"

SETUP = [
    "SET client_min_messages = error",
    "SELECT ranread_setup('16MB', target => '%s')" % TARGET,
    "SELECT ranread_run(1, target => '%s', duration => '0.2s')" % TARGET,
    "SELECT ranread_run(1, target => '%s', duration => '0.2s')" % TARGET,
]

NUMBERS = ["0", "1", "1.25", "0.001", "0.5", "-1", "2", "1000", "1001", "1e-300", "1e300", "'NaN'::float8",
           "'Infinity'::float8", "'-Infinity'::float8", "NULL"]
INTS = ["0", "1", "5", "1000", "1001", "-1", "2147483647", "NULL"]
IDS = ["1", "2", "0", "-1", "9223372036854775807", "NULL", "(SELECT min(batch) FROM ranread_batches)",
       "(SELECT max(batch) FROM ranread_batches)"]
NAMES = ["'pg_default'", "'pg_global'", "'no_such_tablespace'", "''", "NULL", "repeat('x', 100)",
         "'''; SELECT 1; --'", "'таблица😀'", "repeat('é', 40)", "repeat('😀', 16)", "'日本語の表領域'"]
INTERVALS = ["'30 days'", "'1 s'", "'0'", "'-1 day'", "'1000 years'", "NULL", "'1 microsecond'"]
REAL = ["(SELECT histogram FROM ranread_batches ORDER BY batch LIMIT 1)",
        "(SELECT histogram FROM ranread_batches ORDER BY batch DESC LIMIT 1)"]


def blob(rng):
    kind = rng.randrange(5)
    n = rng.choice([0, 1, 9, 33, 43, 53, 100, 4096])
    if kind == 0:
        return "'\\x%s'::bytea" % bytes(rng.randrange(256) for _ in range(n)).hex()
    if kind == 1:
        return "'\\x01%s'::bytea" % bytes(rng.choice([0, 0, 255, 1]) for _ in range(n)).hex()
    if kind == 2:
        return "NULL"
    if kind == 3:
        return rng.choice(REAL)
    return made(rng)


def made(rng):
    k = rng.choice([0, 1, 3, 50])
    lat = ",".join(rng.choice(["0", "0.001", "1", "2.5", "137000", "137001", "-1", "NaN", "Infinity", "NULL"])
                   for _ in range(k))
    cnt = ",".join(rng.choice(["0", "1", "100", "-1", "281474976710656", "9223372036854775807", "NULL"])
                   for _ in range(rng.choice([k, k, k + 1])))
    return "ranread_internal.ranread_hist_make('{%s}'::float8[], '{%s}'::bigint[])" % (lat, cnt)


def cases(rng, n):
    for _ in range(n):
        c = rng.randrange(11)
        p = lambda v: rng.choice(v)
        if c == 8:
            yield "SELECT * FROM ranread_hist_threshold(%s, %s, %s, %s)" % (blob(rng), p(NUMBERS), p(NUMBERS), p(NUMBERS))
            continue
        if c == 9:
            readings = ",".join(p(["ok", "slower", "degraded", "critical", "unknown", "x", "NULL"])
                                for _ in range(rng.choice([0, 1, 3, 5])))
            yield "SELECT * FROM ranread_internal.ranread_health_hold(%s, '{%s}'::text[], %s)" % (
                p(["NULL", "'ok'", "'critical'", "'unknown'", "'x'"]), readings, p(INTS))
            continue
        if c == 10:
            yield "SELECT * FROM ranread_internal.ranread_baseline_robust(ARRAY[1, 2, 3]::bigint[], ARRAY[%s, %s, %s], %s, %s)" % (
                blob(rng), blob(rng), blob(rng), p(NUMBERS), p(NUMBERS))
            continue
        if c == 0:
            yield "SELECT * FROM ranread_hist_compare(%s, %s, %s, %s)" % (blob(rng), blob(rng), p(NUMBERS), p(NUMBERS))
        elif c == 1:
            yield "SELECT %s" % made(rng)
        elif c == 2:
            fn = p(["ranread_compare", "ranread_compare_sweeps", "ranread_compare_studies"])
            yield "SELECT * FROM %s(%s, %s, %s, %s)" % (fn, p(IDS), p(IDS), p(NUMBERS), p(NUMBERS))
        elif c == 3:
            yield "SELECT * FROM ranread_health_set(%s, %s, %s, %s, %s, %s, %s)" % (
                p(NAMES), p(NUMBERS), p(NUMBERS), p(NUMBERS), p(INTS), p(NUMBERS), p(INTS))
        elif c == 4:
            ids = ",".join(p(IDS) for _ in range(rng.choice([0, 1, 3])))
            if rng.random() < 0.2:
                yield "SELECT * FROM ranread_baseline_set(%s, %s::bigint[])" % (
                    p(NAMES), p(["'{{1,2},{1,2}}'", "'{{{1}}}'", "'[0:1]={1,2}'", "'{{}}'"]))
            else:
                yield "SELECT * FROM ranread_baseline_set(%s, ARRAY[%s]::bigint[])" % (p(NAMES), ids)
        elif c == 5:
            yield "SELECT ranread_baseline_reset(%s)" % p(NAMES)
        elif c == 6:
            yield "SELECT length(ranread_probe_chart(%s, %s::interval))" % (p(NAMES), p(INTERVALS))
        else:
            yield "SELECT count(*) FROM ranread_health"
