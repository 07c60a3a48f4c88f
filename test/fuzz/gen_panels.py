"""ranread_svg(spec) with panels: heat charts stacked under a line chart on
its x axis (docs/charts-and-reports.md, "Charts from SQL"), the way
ranread_timeline draws the latency heatmap under its plot.  Cases are line specs from gen_svg.py's
generator with a random "panels" array: heat panels whose columns lie
between "edges" (increasing numbers, one more than the columns), with
extreme edges (1e300, -1e300, 5e-324, a span narrower than a pixel, off
the x axis, on a log x axis), many rows and columns up to the limits; and
malformed ones: edges missing, too few or too many, decreasing, equal,
null, strings, NaN; a panel of another kind, a panel that is not an
object, unknown keys, more panels than allowed, panels on a bar or heat
chart, edges in a heat table, panels that are not an array.  And
ranread_timeline, which draws the latency heatmap as a panel, on scripted
seconds whose histograms are good, garbage or NULL at odd seconds.

Every document goes through fuzz_svg_check (gen_svg.py): well-formed
plain-ASCII XML, finite short coordinates; a broken document is XX000,
reported with the case.  A clean refusal of a malformed spec is fine."""

import importlib.util
import math
import os

CASES = 1500
TIMEOUT_MS = 5000


def _svg_gen():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_svg.py")
    spec = importlib.util.spec_from_file_location("gen_svg_for_panels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SVG = _svg_gen()
MAX_PANELS = 4

# A stored histogram (histogram.c): version 1, count, sum, min, max (ns),
# then (uint16 bucket, uint64 count) pairs, little-endian; n I/Os of ns
# nanoseconds each in bucket k (954 holds 1 ms, 841 0.3 ms)
LE_SQL = r"""
CREATE OR REPLACE FUNCTION fuzz_panels_le(v bigint, n integer) RETURNS bytea LANGUAGE sql AS $$
    SELECT string_agg(set_byte('\x00'::bytea, 0, ((v >> (8 * i)) & 255)::integer), ''::bytea ORDER BY i)
      FROM generate_series(0, n - 1) i
$$"""
HIST_SQL = r"""
CREATE OR REPLACE FUNCTION fuzz_panels_hist(k integer, ns bigint, n bigint) RETURNS bytea LANGUAGE sql AS $$
    SELECT '\x01'::bytea || fuzz_panels_le(n, 8) || fuzz_panels_le(n * ns, 8) || fuzz_panels_le(ns, 8)
           || fuzz_panels_le(ns, 8) || fuzz_panels_le(k, 2) || fuzz_panels_le(n, 8)
$$"""

SETUP = SVG.SETUP + ["SET client_min_messages = error", LE_SQL, HIST_SQL]


def edges(rng, g, n, valid):
    """n increasing edges, or (as a defect) not"""
    start = rng.choice([0, 0.5, -3, 1e-300, 5e-324, 1e299, -1e300, 7])
    step = rng.choice([1, 0.25, 3, 1e-9, 1e298, 60])
    e = []
    x = start
    for _ in range(n):
        e.append(x)
        x = x + step * rng.choice([1, 1, 2, 0.5])
        if x > 1e300:
            x = e[-1] + (1e300 - e[-1]) / 2
        # a step a float cannot take (1e299 + 1): the next float up
        x = max(x, math.nextafter(e[-1], math.inf))
    if not valid:
        r = rng.random()
        if r < 0.2 and e:
            e.pop()
        elif r < 0.35:
            e.append(e[-1] + 1 if e else 0)
        elif r < 0.5 and len(e) > 1:
            e[rng.randrange(1, len(e))] = e[0]
        elif r < 0.6 and e:
            e[rng.randrange(len(e))] = None
        elif r < 0.7 and e:
            e[rng.randrange(len(e))] = rng.choice(["NaN", "Infinity", "1", True, [1], {}])
        elif r < 0.8:
            e.reverse()
        elif r < 0.9 and e:
            e[rng.randrange(len(e))] = SVG.Raw(rng.choice(["1e301", "-1e999", "1e-16000"]))
        else:
            e = rng.choice([None, "0,1", 3, {}])
    return e


def panel(rng, g, valid):
    h = g.heat()
    nc = len(h["columns"]) if isinstance(h.get("columns"), list) else 0
    ok = valid and not g.defect()
    if rng.random() < 0.97 or not ok:
        h["edges"] = edges(rng, g, nc + 1, ok)
    p = {"heat": h}
    if rng.random() < 0.5:
        p["kind"] = g.pick(["heat"], ["line", "bar", "Heat", 1, None])
    if rng.random() < 0.6:
        p["title"] = g.maybe_wrong(g.text())
    if rng.random() < 0.5:
        p["y"] = g.maybe_wrong(g.axis())
    if g.defect():
        p[rng.choice(["x", "series", "notes", "panels", "subtitle"])] = rng.choice([{}, [], "a"])
    if g.defect():
        return rng.choice([None, "heat", [], 1, {}])
    return p


def spec(rng):
    valid = rng.random() < 0.6
    ascii_only = rng.random() < 0.5
    g = SVG.Gen(rng, valid=valid, ascii_only=ascii_only)
    # a line chart's spec (ten tries; else whatever came)
    for _ in range(10):
        s = g.spec()
        if s.get("kind", "line") == "line":
            break
    if rng.random() < 0.3:
        s["x"] = {"log": rng.choice([True, False, "auto"]),
                  "min": rng.choice([None, 0, -5, 1e-300]), "max": rng.choice([None, 10, 1e300])}
        s["x"] = {k: v for k, v in s["x"].items() if v is not None}
        if "min" in s["x"] and "max" in s["x"] and not s["x"]["max"] > s["x"]["min"]:
            del s["x"]["max"]
    n = g.pick([0, 1, 1, 2, MAX_PANELS], [MAX_PANELS + 1])
    s["panels"] = [panel(rng, g, valid) for _ in range(n)]
    if g.defect():
        s["panels"] = rng.choice([None, {}, "heat", 1, True])
    if not valid and rng.random() < 0.05:
        s["kind"] = rng.choice(["bar", "heat"])
    if not valid and rng.random() < 0.05 and isinstance(s.get("heat"), dict):
        s["heat"]["edges"] = [0, 1]
    return s, ascii_only


HISTS = ["NULL", "''::bytea", "'\\x01'::bytea", "decode(repeat('ff', 60), 'hex')",
         "fuzz_panels_hist(954, 1000000, %d)", "fuzz_panels_hist(841, 300000, %d)",
         "fuzz_panels_hist(%d, 1000, %d)"]


def timeline(rng):
    """ranread_timeline of a scripted batch whose seconds have histograms
    (good ones, big-endian ones that the reader refuses, garbage, NULL) at
    odd seconds: sparse, far apart, huge, so that the heatmap's columns
    are runs of many seconds"""
    secs = sorted(set(rng.choice([rng.randrange(5), rng.randrange(100), rng.randrange(10 ** 6)])
                      for _ in range(rng.randint(1, 60))))
    if rng.random() < 0.1:
        secs.append(rng.choice([2 ** 31 - 1, 2147483000, 2147483001, 2 ** 31 - 50]))
    rows = []
    # mostly good histograms (one bad one makes the whole merge an error)
    good = HISTS[4:6] + ["NULL"] if rng.random() < 0.8 else HISTS
    for sec in secs:
        h = rng.choice(good)
        n = rng.choice([0, 1, 1000, 2 ** 40])
        if h.count("%d") == 2:
            h = h % (rng.choice([0, 1, 500, 2047, 65535, -1]), n)
        elif "%d" in h:
            h = h % n
        rows.append("(990003, %d, 1000, 0, 1000, 0.5, 1, 1, %s)" % (sec, h))
    # the case's batch made, drawn and removed (an error rolls it all back)
    return ("DELETE FROM ranread_intervals WHERE batch = 990003; DELETE FROM ranread_batches WHERE batch = 990003; "
            "INSERT INTO ranread_batches (batch, run_at, target, tablespace, processes, duration, block_size, "
            "queue_depth, write_pct, pattern, region_start, region_end, seed, workers, engine, reads, writes, "
            "seconds, iops, mbps, avg_ms, p99_ms, max_ms, status, groups, distribution) VALUES (990003, now(), "
            "'f', 'pg_default', 1, '1s', 8192, 1, 0, 'random', 0, 100, 1, 1, 'io_uring', 1, 0, 1, 1, 0, 1, 1, 1, "
            "'completed', 1, 'uniform'); INSERT INTO ranread_intervals (batch, second, reads, writes, iops, "
            "avg_ms, max_ms, grp, histogram) VALUES %s ON CONFLICT DO NOTHING; "
            "SELECT fuzz_svg_check(ranread_timeline(990003)); "
            "DELETE FROM ranread_intervals WHERE batch = 990003; DELETE FROM ranread_batches WHERE batch = 990003"
            % ", ".join(rows))


def cases(rng, n):
    for _ in range(n):
        if rng.random() < 0.15:
            yield timeline(rng)
            continue
        s, ascii_only = spec(rng)
        yield SVG.call(SVG.dump(s, ascii_only))
