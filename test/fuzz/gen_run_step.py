"""ranread_run_step(spec jsonb): the batch described as JSON that sweeps,
studies, searches and fleets hand to it.  Every key (groups, duration,
iterations, warmup, seed, workers, steady_state, start_at, target, sweep,
study, point, fleet, caller) with values of the right and the wrong type,
unknown keys, ids of calls that do not run in this session (refused), points
that are arrays, huge, or name a latency-target search, callers of odd
Unicode and length, and specs that are not objects.  The groups come from
gen_mix.  Valid specs are tiny (the 16 MB target, at most 0.2 s or 50 I/Os
per process)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_mix  # noqa: E402

CASES = 700
TIMEOUT_MS = 3000
TARGET = gen_mix.TARGET
SETUP = gen_mix.SETUP


def pick(rng, fine, bad, p_fine=0.75):
    return rng.choice(fine) if rng.random() < p_fine else rng.choice(bad)


def point(rng):
    r = rng.random()
    if r < 0.4:
        return {"processes": rng.randrange(1, 9), "write_pct": rng.choice([0, 20])}
    if r < 0.5:
        return {"latency_target": rng.choice([1, 2, -1, 0, 2 ** 63 - 1, "x", None, 1.5])}
    if r < 0.6:
        return rng.choice([[], [1, 2], "p", 3, None, True])
    if r < 0.7:
        return {"k" * rng.randrange(1, 50): "v" * rng.randrange(0, 1200)}
    if r < 0.8:
        return {"\u00e9" * 300: "\U0001F600" * 100}
    return {"n": 1, "nested": {"a": [1, {"b": None}]}}


def spec(rng):
    s = {}
    gs = gen_mix.groups_array(rng)
    if gs is not None or rng.random() < 0.5:
        s["groups"] = gs
    s["target"] = TARGET
    if rng.random() < 0.9:
        s["duration"] = pick(rng, ["0.1s", "0.1s", "100 ms"], ["0", "-1 s", "25 hours", "x", 5, None, "5 ms"], 0.9)
    for key, fine, bad in [
        ("iterations", [10, 50], [0, -1, 2 ** 62 + 1, "10", 1.5, None]),
        ("warmup", ["0", "0.05s"], ["-1s", "25h", 1, None]),
        ("seed", [0, 42, -1], [2 ** 63, "s", 1.5]),
        ("workers", [1, 2], [0, -1, 3, 2049, 2 ** 31, "2", None]),
        ("steady_state", [], ["10%/3s", "10%/30s", "x", "", 10]),
        ("start_at", [], ["2000-01-01 00:00:00+00", "infinity", "x", "3000-01-01", 0]),
        ("target", [TARGET], ["", "nope", None, 5, "\u00e9" * 40]),
        ("sweep", [0], [1, 999999, -1, 2 ** 63 - 1, "1", 1.5, None]),
        ("study", [0], [1, 999999, -5, "x", None]),
        ("fleet", [0], [1, 424242, -1, None, []]),
        ("caller", ["ranread_sweep", "ranread_study", "ranread_fleet"],
         ["", "x" * 500, "\u00e9" * 100, "%s%n%x", 7, None, "ranread_study\u0301"]),
    ]:
        if rng.random() < 0.15:
            s[key] = pick(rng, fine, bad) if fine else rng.choice(bad)
    if rng.random() < 0.15:
        s["point"] = point(rng)
    if rng.random() < 0.04:
        s[rng.choice(["group", "Groups", "", "durations", "sweep_id"])] = 1
    return s


def cases(rng, n):
    for _ in range(n):
        r = rng.random()
        if r < 0.03:
            text = rng.choice([None, "[]", "1", "\"spec\"", "null", "[{\"processes\": 1}]"])
        elif r < 0.05:
            text = rng.choice(["{", "{\"groups\": [}", "{\"a\" 1}"])
        else:
            text = json.dumps(spec(rng), ensure_ascii=rng.random() < 0.5)
        yield ("SELECT count(*) FROM ranread_run_step(%s::jsonb)", [text])
