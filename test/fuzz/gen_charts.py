"""The charts of the history: ranread_chart, ranread_timeline and the sweep
section of the report (ranread_internal.ranread_report_sweep) draw whatever the history
holds, and pg_monitor may call them.  Each case writes a random history
(batches, their seconds, a sweep's verdict) with odd labels (U+FFFE, <&>,
controls, noncharacters, names cut at 63 bytes) and odd figures (NaN,
Infinity, 1e308, -0, 5e-324, negative and huge counts, thousands of
batches at one process count), draws one chart from it, then undoes the
history (a subtransaction that ends in an error of its own, RRFZ1).

Every document drawn goes through fuzz_svg_check (gen_svg.py): well-formed
plain-ASCII XML, finite short coordinates, no 60-digit numbers; a document
that fails it raises XX000, which the harness reports with the case."""

import importlib.util
import json
import os

CASES = 500
TIMEOUT_MS = 5000


def _svg_gen():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_svg.py")
    spec = importlib.util.spec_from_file_location("gen_svg_for_charts", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SVG = _svg_gen()

CASE_SQL = r"""
CREATE OR REPLACE FUNCTION fuzz_charts_case(batches jsonb, intervals jsonb, sweeps jsonb,
                                            fn text, arg bigint)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    out text;
    doc text;
    n   integer := 0;
BEGIN
    BEGIN
        DELETE FROM ranread_intervals;
        DELETE FROM ranread_results;
        DELETE FROM ranread_batches;
        DELETE FROM ranread_sweeps;
        INSERT INTO ranread_batches
            SELECT * FROM jsonb_populate_recordset(NULL::ranread_batches, batches);
        INSERT INTO ranread_intervals
            SELECT * FROM jsonb_populate_recordset(NULL::ranread_intervals, intervals);
        INSERT INTO ranread_sweeps
            SELECT * FROM jsonb_populate_recordset(NULL::ranread_sweeps, sweeps);
        out := CASE fn WHEN 'chart' THEN ranread_chart(arg)
                       WHEN 'timeline' THEN ranread_timeline(arg)
                       ELSE ranread_internal.ranread_report_sweep(arg) END;
        RAISE EXCEPTION 'the history of a fuzz case is undone' USING ERRCODE = 'RRFZ1';
    EXCEPTION WHEN SQLSTATE 'RRFZ1' THEN
        NULL;
    END;
    IF fn IN ('chart', 'timeline') THEN
        RETURN fuzz_svg_check(out);
    END IF;
    FOR doc IN SELECT m[1] FROM regexp_matches(out, '(<svg.*?</svg>)', 'g') m LOOP
        n := n + fuzz_svg_check(doc);
    END LOOP;
    RETURN n;
END
$$"""

SETUP = [SVG.CHECK_SQL, CASE_SQL]

FIGURES = ["NaN", "Infinity", "-Infinity", 1e308, -1e308, 1e300, -0.0, 0, 5e-324, 1e-300,
           1e15, 1e16, -5, 0.001, 123456789012.5]
STATUSES = ["completed", "completed", "completed", "stopped", "cancelled", "failed", "running"]


def label(rng):
    if rng.random() < 0.5:
        return rng.choice(SVG.TEXTS + ["ranread", "random", "io_uring", "sync"])
    return "".join(chr(rng.choice([rng.randrange(0x20, 0x7f), rng.randrange(0xa0, 0xd800),
                                   rng.randrange(0xe000, 0x10000), 0xFFFE, 0xFFFF, 0xFDD0,
                                   rng.randrange(1, 0x20), rng.randrange(0x10000, 0x110000)]))
                   for _ in range(rng.randrange(1, 80)))


def figure(rng):
    r = rng.random()
    if r < 0.1:
        return None
    if r < 0.35:
        return rng.choice(FIGURES)
    return rng.uniform(0, 10 ** rng.randrange(0, 7))


def when(rng):
    return rng.choice(["2024-05-02 14:00:00+00", "2024-05-02 14:03:00+00", "1970-01-01 00:00:00+00",
                       "294276-12-31 23:59:59+00", "4713-01-01 00:00:00+00 BC", "infinity",
                       "-infinity", "2024-05-03 09:00:00+00"])


def batch(rng, k, sweep, processes):
    return {
        "batch": k, "run_at": when(rng), "target": label(rng),
        "processes": processes, "iterations": rng.choice([None, 10000, -1, 9223372036854775807]),
        "duration": rng.choice([None, "10 s", "0", "-5 s", "178000000 years", "0.001 s"]),
        "block_size": rng.choice([8192, 4096, 1048576, 0, -1, 2147483647, None]),
        "queue_depth": rng.choice([1, 32, 0, -1, None]),
        "write_pct": rng.choice([0, 100, 30, -5, 1000, None]),
        "pattern": rng.choice(["random", "sequential", label(rng), None]),
        "seed": 1, "workers": rng.choice([1, 2]),
        "engine": rng.choice(["io_uring", "sync", label(rng)]),
        "reads": rng.choice([0, 1000, None]), "writes": 0, "seconds": figure(rng),
        "iops": figure(rng), "mbps": figure(rng), "avg_ms": figure(rng), "p99_ms": figure(rng),
        "max_ms": figure(rng), "status": rng.choice(STATUSES), "sweep": sweep,
        "steady": rng.choice([None, True, False]), "steady_excursion": figure(rng),
        "steady_slope": figure(rng), "ended_steady": rng.choice([None, True, False]),
        "steady_state": rng.choice([None, "5%", label(rng)]),
    }


def history(rng):
    sweep = rng.choice([None, 1, 1, 2])
    procs = [1, 2, 4, 8, 16, 32, 0, -1, 2147483647]
    if rng.random() < 0.02:
        # thousands of batches at one process count: every point shares an x
        # (copies of one batch, their figures drawn quickly)
        first = batch(rng, 1, sweep, 1)
        batches = [dict(first, batch=k + 1, iops=rng.random() * 1e5, avg_ms=rng.random() * 10,
                        status=rng.choice(STATUSES)) for k in range(rng.choice([2000, 4000]))]
    else:
        n, same = rng.choice([0, 1, 2, 3, 5, 8, 20, 60]), rng.random() < 0.2
        batches = [batch(rng, k + 1, sweep if rng.random() < 0.8 else None,
                         1 if same else rng.choice(procs)) for k in range(n)]
    n = len(batches)
    sweeps = []
    if sweep and rng.random() < 0.7:
        sweeps.append({
            "sweep": sweep, "started_at": when(rng), "finished_at": when(rng),
            "target": label(rng), "block_size": 8192, "write_pct": 0, "queue_depth": 1,
            "pattern": label(rng), "start": 1, "max_processes": 64,
            "max_avg_ms": rng.choice([10, 2, 0, -1, "NaN", "Infinity", 1e300, 1e-300, 5e-324]),
            "steps": n, "stop_reason": rng.choice([None, label(rng)]),
            "max_iops": figure(rng), "actual_latency_ms": figure(rng),
            "max_iops_processes": rng.choice([1, 0, -1, None]),
            "max_iops_batch": rng.choice([1, 2, 99, None]),
            "meets_flash_guidance": rng.choice([True, False]), "started_by": "postgres",
        })
    intervals = []
    if batches and rng.random() < 0.7:
        b = rng.choice(batches)["batch"]
        seconds = rng.choice([0, 1, 2, 5, 60, 600, 3000] if rng.random() < 0.98 else [30000])
        start = rng.choice([0, 0, 5, -3, 2147483000])
        odd = [figure(rng) for _ in range(20)]
        for s in range(seconds):
            intervals.append({"batch": b, "second": start + s, "reads": 100, "writes": 0,
                              "iops": rng.choice([rng.random() * 1e5, odd[s % 20] or 0]),
                              "avg_ms": rng.choice(odd), "max_ms": rng.choice(odd), "grp": 1})
    return batches, intervals, sweeps


def quote(text):
    tag = "$fz$"
    while tag in text:
        tag = tag[:-1] + "z$"
    return tag + text + tag


def cases(rng, n):
    for _ in range(n):
        batches, intervals, sweeps = history(rng)
        sweep = next((b["sweep"] for b in batches if b["sweep"]), 1)
        batch = intervals[0]["batch"] if intervals else 1
        fn, arg = rng.choice([("chart", None), ("chart", sweep), ("chart", sweep),
                              ("timeline", None), ("timeline", batch), ("timeline", batch),
                              ("report_sweep", sweep)] if rng.random() < 0.9 else
                             [("chart", 99), ("timeline", -1), ("report_sweep", 99)])
        # the call first, so that a failure shows it; the history after
        yield "SELECT fuzz_charts_case(fn => '%s', arg => %s, sweeps => %s::jsonb, batches => %s::jsonb, intervals => %s::jsonb)" % (
            fn, "NULL" if arg is None else arg, quote(json.dumps(sweeps)),
            quote(json.dumps(batches)), quote(json.dumps(intervals)))
