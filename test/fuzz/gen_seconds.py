"""Per-second histograms, the latency heatmap and atomic writes: the
heatmap and its spec on batches that exist or not (NULL, negative, huge),
its cells on scripted interval rows whose histograms are valid, truncated,
random bytes or NULL; ranread_atomic_writes on tablespaces there or not and
odd names; the advisor's pure rows (durability citation, full_page_writes)
with arrays of mismatched lengths, NULLs and odd values."""

CASES = 600
TIMEOUT_MS = 4000

SETUP = ["SET client_min_messages = error"]

BATCHES = ["NULL", "0", "-1", "1", "990002", "9223372036854775807", "-9223372036854775808"]
HISTS = ["NULL", "''::bytea", "'\\x01'::bytea", "'\\x00ff'::bytea",
         "(SELECT histogram FROM ranread_batches WHERE histogram IS NOT NULL LIMIT 1)",
         "decode(repeat('01', 33), 'hex')", "decode(repeat('ff', 60), 'hex')"]
NAMES = ["pg_default", "pg_global", "no_such_tablespace", "", " ", "x" * 100, "'; SELECT 1; --", None]
BOOLS = ["'{}'", "'{true}'", "'{false,NULL}'", "NULL", "'{true,true,true}'"]
TEXTS = ["'{}'", "'{a}'", "'{a,b}'", "NULL", "'{NULL}'"]


def scripted(rng):
    rows = ", ".join("(990002, %d, 1, 0, 1, 1, 1, %d, %s)" % (s, rng.choice([1, 2]), rng.choice(HISTS))
                     for s in range(rng.randint(1, 5)))
    return ("INSERT INTO ranread_batches (batch, run_at, target, tablespace, processes, duration, block_size, "
            "queue_depth, write_pct, pattern, region_start, region_end, seed, workers, engine, reads, writes, "
            "seconds, iops, mbps, avg_ms, p99_ms, max_ms, status, groups, distribution) VALUES (990002, now(), "
            "'f', 'pg_default', 1, '1s', 8192, 1, 0, 'random', 0, 100, 1, 1, 'io_uring', 1, 0, 1, 1, 0, 1, 1, 1, "
            "'completed', 1, 'uniform'); INSERT INTO ranread_intervals (batch, second, reads, writes, iops, "
            "avg_ms, max_ms, grp, histogram) VALUES %s ON CONFLICT DO NOTHING; " % rows)


def cases(rng, n):
    for _ in range(n):
        r = rng.random()
        b = rng.choice(BATCHES)
        if r < 0.3:
            yield scripted(rng) + rng.choice([
                "SELECT ranread_latency_heatmap(990002)",
                "SELECT * FROM ranread_internal.ranread_latency_heat_cells(990002)",
                "SELECT * FROM ranread_percentiles_over_time WHERE batch = 990002"])
        elif r < 0.5:
            yield rng.choice(["SELECT ranread_latency_heatmap(%s)", "SELECT ranread_internal.ranread_latency_heat_spec(%s)",
                              "SELECT * FROM ranread_internal.ranread_latency_heat_cells(%s)"]) % b
        elif r < 0.7:
            yield "SELECT * FROM ranread_internal.ranread_atomic_writes(%s)", [rng.choice(NAMES)]
        elif r < 0.85:
            yield ("SELECT * FROM ranread_internal.ranread_advise_full_page_writes(%s, %s, %s, %%s)"
                   % (rng.choice(TEXTS), rng.choice(BOOLS), rng.choice(TEXTS)), [rng.choice(["on", "off", None, ""])])
        else:
            yield ("SELECT * FROM ranread_internal.ranread_advise_durability(%s, %%s, %%s, now(), %s, %s, %s, %%s)"
                   % (rng.choice(BATCHES), rng.choice(BATCHES), rng.choice(BATCHES), rng.choice(BATCHES)),
                   [rng.choice(NAMES), rng.choice(["fsync", None, "x"]), rng.choice(["fsync", None])])
