"""The rounded views: a recorded figure of any float8 value (NaN, the
infinities, the largest and smallest doubles, negative numbers) reads back
through ranread_summary, ranread_summary_full, ranread_group_summary,
ranread_process_summary and ranread_commit_summary without an internal
error: each case writes one batch (with its group and process rows) of
random figures in its own transaction, which the harness rolls back, and
reads every rounded view of it."""

CASES = 600
TIMEOUT_MS = 2000

FIGURES = ["0", "1", "0.0005", "0.0004999", "-1", "123456789.987654", "1e15", "1e300", "-1e300",
           "1e-300", "'NaN'", "'Infinity'", "'-Infinity'", "NULL", "9.3e18", "-9.3e18", "4210.5"]

VIEWS = ["ranread_summary", "ranread_summary_full", "ranread_group_summary", "ranread_process_summary",
         "ranread_commit_summary"]

BATCH_FIGS = ["seconds", "iops", "mbps", "avg_ms", "min_ms", "p50_ms", "p95_ms", "p99_ms", "p999_ms",
              "max_ms", "read_avg_ms", "write_avg_ms", "busy", "steady_excursion", "steady_slope"]
GROUP_FIGS = ["seconds", "iops", "mbps", "avg_ms", "p99_ms", "max_ms", "busy"]
PROC_FIGS = ["seconds", "iops", "avg_ms", "p99_ms", "max_ms", "busy"]


def fig(rng, nullable=True):
    v = rng.choice(FIGURES)
    if v == "NULL" and not nullable:
        v = "0"
    return v + "::float8" if v != "NULL" else "NULL::float8"


def cases(rng, n):
    for _ in range(n):
        batch = 900000000 + rng.randrange(1000000)
        cols_b = ", ".join(BATCH_FIGS)
        vals_b = ", ".join(fig(rng) for _ in BATCH_FIGS)
        cols_g = ", ".join(GROUP_FIGS)
        vals_g = ", ".join(fig(rng, nullable=c not in ("seconds", "iops", "mbps")) for c in GROUP_FIGS)
        vals_p = ", ".join(fig(rng, nullable=False) if c in ("seconds", "iops") else fig(rng) for c in PROC_FIGS)
        view = rng.choice(VIEWS)
        yield ("INSERT INTO ranread_batches (batch, run_at, target, processes, seed, workers, engine, status, "
               "groups, block_size, pattern, write_pct, commit_test, %s) "
               "VALUES (%d, now(), 'fuzz', 1, 1, 1, 'sync', 'completed', 1, 8192, 'random', 0, %d, %s); "
               "INSERT INTO ranread_groups (batch, grp, label, target, processes, block_size, queue_depth, "
               "write_pct, pattern, region_start, region_end, distribution, reads, writes, histogram, writes_per_op, "
               "sync, %s) "
               "SELECT %d, 1, 'main: fuzz', 'fuzz', 1, 8192, 1, 0, 'random', 0, 100, 'uniform', 1, 0, '\\x'::bytea, 1, "
               "'fdatasync', %s; "
               "INSERT INTO ranread_results (batch, process, run_at, target, processes, block_size, queue_depth, "
               "write_pct, pattern, reads, writes, histogram, status, %s) "
               "VALUES (%d, 1, now(), 'fuzz', 1, 8192, 1, 0, 'random', 1, 0, '\\x'::bytea, 'completed', %s); "
               "SELECT string_agg(s::text, ',') FROM (SELECT * FROM %s x WHERE x.batch = %d) s"
               % (cols_b, batch, batch, vals_b, cols_g, batch, vals_g, ", ".join(PROC_FIGS), batch, vals_p,
                  view, batch))
