"""The one workload definition: the option table (ranread_options), specs
built from options given flat (ranread_internal.ranread_spec, with and
without a base spec), specs read without running
(ranread_internal.ranread_spec_check), the defaults of a level, the one
null check (ranread_internal.ranread_require) and the one privilege check
(ranread_internal.ranread_check_privileges, with needs lists that say
nothing sensible), and the functions that hand their arguments on by name
(ranread_sweep, ranread_latency_target, ranread_study) with NULLs, wrong
values and huge ones, refused before any batch, or run tiny (one process,
0.1 s, the 16 MB target)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_mix  # noqa: E402

CASES = 600
TIMEOUT_MS = 3000
TARGET = gen_mix.TARGET
SETUP = gen_mix.SETUP

OPTIONS = ["processes", "iterations", "target", "duration", "block_size", "write_pct", "queue_depth",
           "pattern", "region_start", "region_end", "warmup", "rate_iops", "seed", "workers",
           "distribution", "steady_state", "sync", "start_at", "label", "groups", "sweep", "study",
           "point", "fleet", "caller"]
VALUES = [None, 0, 1, -1, 2 ** 31, 2 ** 63 - 1, 1.5, "NaN", "Infinity", "-Infinity", "", "x", "0.1s",
          "-1 s", "random", "zipf:1.2", "10%/3s", True, [], [1, 2], {}, {"processes": 1},
          [{"processes": 1}], "\u00e9" * 70, "x" * 3000, 1e308, -1e308]


def value(rng):
    return rng.choice(VALUES)


def flat(rng):
    o = {}
    for _ in range(rng.randrange(0, 8)):
        o[rng.choice(OPTIONS + ["nodes", "start", "max_avg_ms", "Processes", ""])] = value(rng)
    return o


def q(v):
    return "'" + json.dumps(v).replace("'", "''") + "'"


def lit(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    return q(v)


def forwarded(rng):
    """A call of a function that hands its arguments on, refused or tiny"""
    args = {"target": "'%s'" % TARGET, "duration": "'0.1s'"}
    fn = rng.choice(["ranread_sweep", "ranread_latency_target", "ranread_study"])
    if fn == "ranread_sweep":
        args.update({"start": "1", "max_processes": "1"})
        pool = ["start", "max_processes", "iterations", "duration", "max_avg_ms", "block_size",
                "write_pct", "queue_depth", "pattern", "region_start", "region_end", "warmup",
                "rate_iops", "seed", "workers", "distribution", "steady_state", "target"]
    elif fn == "ranread_latency_target":
        args.update({"target_ms": "1000", "max_load": "1"})
        pool = ["target_ms", "percentile", "dimension", "max_load", "duration", "processes",
                "queue_depth", "block_size", "write_pct", "pattern", "region_start", "region_end",
                "warmup", "seed", "workers", "distribution", "target"]
    else:
        args.update({"processes": "'{1}'"})
        pool = ["processes", "queue_depth", "block_size", "write_pct", "region", "pattern",
                "distribution", "small", "large", "matrix", "num_small", "num_large", "duration",
                "warmup", "max_avg_ms", "early_end", "target", "small_size", "large_size",
                "large_pattern", "seed", "workers"]
    for _ in range(rng.randrange(0, 3)):
        a = rng.choice(pool)
        v = rng.choice(["NULL", "0", "-1", "2147483647", "'zigzag'", "'x'", "'-1 s'", "'NaN'",
                        "'{}'", "'{0,5000}'", "'{NULL}'", "'25 hours'", "'sequential'"])
        args[a] = v
    return "SELECT count(*) FROM %s(%s)" % (fn, ", ".join("%s => %s" % kv for kv in args.items()))


def cases(rng, n):
    for _ in range(n):
        r = rng.random()
        if r < 0.25:
            base = rng.choice([None, flat(rng), {"groups": [flat(rng)]}, {"groups": [flat(rng), flat(rng)]}, [1], "x"])
            yield "SELECT ranread_internal.ranread_spec(%s, %s)" % (q(flat(rng)), "NULL" if base is None else q(base))
        elif r < 0.45:
            spec = rng.choice([flat(rng), {"groups": [flat(rng)]}, {"groups": [dict(flat(rng), processes=1)], "duration": "0.1s"}])
            yield "SELECT ranread_internal.ranread_spec_check(%s, %s)" % (q(spec), rng.choice(["true", "false", "NULL"]))
        elif r < 0.5:
            yield "SELECT ranread_internal.ranread_spec_check(ranread_internal.ranread_spec(%s), false)" % q(flat(rng))
        elif r < 0.55:
            yield "SELECT ranread_internal.ranread_defaults(%s)" % lit(rng.choice(["group", "batch", "", None, "GROUP", "x" * 200]))
        elif r < 0.6:
            yield "SELECT ranread_internal.ranread_require(%s, %s, %s::text, %s)" % (
                lit(rng.choice(["ranread_x", None, "%s%n", "\u00e9" * 100])), lit(rng.choice(["a", None, ""])),
                lit(value(rng) if not isinstance(value(rng), (list, dict)) else None), lit(rng.choice([None, "h", "%s"])))
        elif r < 0.7:
            needs = [rng.choice(["EXECUTE on function ranread_limits()", "EXECUTE on function nope()",
                                 "EXECUTE on functions ranread_internal.ranread_sweep_*",
                                 "EXECUTE on functions nope.x*", "EXECUTE on functions x", "USAGE on schema ranread_internal",
                                 "USAGE on schema nope", "INSERT on table ranread_sweeps", "DELETE on table ranread_sweeps",
                                 "USAGE on sequence ranread_sweep_seq", "SELECT on view x", "", "on", "x on y z",
                                 "EXECUTE on function @extschema@.ranread_run_step(jsonb)", "USAGE on function ranread_limits()",
                                 "EXECUTE on function ranread_limits(", "\u00e9 on \u00e9 \u00e9"])
                     for _ in range(rng.randrange(0, 4))]
            yield "SELECT ranread_internal.ranread_check_privileges('run x', 'x', %s::text[])" % lit(
                "{" + ",".join('"%s"' % x.replace('"', '\\"') for x in needs) + "}")
        elif r < 0.75:
            yield "SELECT count(*) FROM ranread_options()"
        else:
            yield forwarded(rng)
