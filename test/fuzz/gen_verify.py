"""Verified writes and reads: ranread_run_step specs whose groups carry the
verify option with values of every JSON type beside the options it meets
(block sizes of part of a page, writers without verify on a verified
target, many in flight), ranread_run's verify argument, and ranread_verify
on odd target names; regions at either end of a target, under a
ranread.verify_max_memory lowered to around what the verified region's
words (12 bytes a block) need, so that both sides of the limit are met.
The valid runs are tiny (the 8 MB targets made in
SETUP, 20 I/Os per process, few processes); ranread_verify reads an 8 MB
target.  Checked like the rest: the server stays up, no call outlives its
timeout, no internal error."""
import json

CASES = 300
TIMEOUT_MS = 3000
TARGET = "fuzz_verify"
OTHER = "fuzz_verify_b"

SETUP = [
    "SET client_min_messages = error",
    "SELECT ranread_setup('8MB', target => '%s')" % TARGET,
    "SELECT ranread_setup('8MB', target => '%s')" % OTHER,
]

VERIFY = [True, True, False, None, "true", "yes", 1, 0, 1.5, [], {}, [True], "", "t", "NaN"]


def group(rng):
    g = {"processes": rng.choice([1, 1, 2, 3, 0, -1, 70000]),
         "iterations": rng.choice([20, 20, 5, 0])}
    if rng.random() < 0.85:
        g["verify"] = rng.choice(VERIFY)
    if rng.random() < 0.6:
        g["write_pct"] = rng.choice([0, 30, 50, 100, 101])
    if rng.random() < 0.3:
        g["block_size"] = rng.choice([8192, 16384, 4096, 512, 1048576, 12288])
    if rng.random() < 0.3:
        g["queue_depth"] = rng.choice([1, 4, 8, 1024])
    if rng.random() < 0.2:
        g["pattern"] = rng.choice(["random", "sequential"])
    if rng.random() < 0.2:
        g["region_end"] = rng.choice([0.1, 1.5625, 50, 100])
    if rng.random() < 0.25:
        g["region_start"] = rng.choice([0, 10, 50, 90, 99.9, 100])
    if rng.random() < 0.3:
        g["target"] = rng.choice([TARGET, TARGET, OTHER, "no_such_target"])
    if rng.random() < 0.05:
        g["sync"] = rng.choice(["fdatasync", "open_datasync"])
    return g


def heavy(groups):
    """Would the spec, were it valid, be more than a tiny run?"""
    procs = 0
    for g in groups:
        p = g.get("processes")
        q = g.get("queue_depth", 1)
        b = g.get("block_size", 8192)
        if all(isinstance(x, int) and not isinstance(x, bool) for x in (p, q, b)):
            procs += max(p, 0)
            if max(p, 0) * max(q, 0) * max(b, 0) > 64 * 1024 * 1024:
                return True
    return procs > 8


def cases(rng, n):
    for _ in range(n):
        r = rng.random()
        if r < 0.15:
            name = rng.choice([TARGET, OTHER, "nope", "", None, "x" * 100, "\u00e9" * 40, "ranread"])
            yield ("SELECT * FROM ranread_verify(%s)", [name])
            continue
        if r < 0.3:
            v = rng.choice(["true", "false", "NULL", "'yes'", "'maybe'", "1::boolean", "'t'"])
            yield ("SELECT status FROM ranread_run(%d, 20, target => '%s', write_pct => %d, verify => %s)"
                   % (rng.choice([1, 2]), TARGET, rng.choice([0, 30, 100]), v), None)
            continue
        gs = [group(rng) for _ in range(rng.choice([1, 1, 2, 3]))]
        if heavy(gs):
            gs[0]["write_pct"] = 101      # keep the case, make it refused
        spec = {"groups": gs, "caller": "ranread_run_step"}
        if rng.random() < 0.8:
            spec["target"] = TARGET
        if rng.random() < 0.1:
            spec["verify"] = rng.choice(VERIFY)   # not a batch's option
        text = json.dumps(spec)
        if rng.random() < 0.03:
            text = text[:rng.randrange(1, len(text))]
        sql = "SELECT count(*) FROM ranread_run_step(%s::jsonb)"
        if rng.random() < 0.3:
            # an 8 MB target's words: 1024 blocks x 12 bytes = 12 kB
            sql = "SET LOCAL ranread.verify_max_memory = '%s'; " % rng.choice(
                ["1kB", "2kB", "6kB", "12kB", "13kB", "64kB", "0", "-1", "2TB"]) + sql
        yield (sql, [text])
