"""What a role granted 'run' can write into the history that others read:
ranread_run_step's point (a study's coordinates, a latency-target search's
window: every key, known and not, with values of every JSON type, numbers
huge, fractional, negative, strings odd; coordinates that say what the
batch runs and what it does not) beside the study and latency_target ids
of a call this session registered in the same transaction; and the
recorders of sweeps and studies (ranread_sweep_record, ranread_study_record)
for a registered id, with nonsense arguments, after zero to three batches of
that call.  The cases run as a role granted 'run' (ROLE), and the readers'
check (fuzz.py, READERS_EVERY) reads every view and report as a role granted
'report' after every few cases: no row a case leaves may break them.
Batches are tiny (the 16 MB target, 10 I/Os)."""
import json

CASES = 300
TIMEOUT_MS = 4000
TARGET = "fuzz_trust"
ROLE = "ranread_fuzz_runner"
READERS_EVERY = 20

SETUP = [
    "SET client_min_messages = error",
    "SELECT ranread_setup('16MB', target => '%s')" % TARGET,
    "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%s') THEN CREATE ROLE %s; END IF; END $$" % (ROLE, ROLE),
    "SELECT count(*) FROM ranread_grant('%s', 'run')" % ROLE,
]

STUDY_KEYS = ["n", "processes", "queue_depth", "block_size", "write_pct", "region", "pattern", "distribution",
              "small", "large", "test", "mode", "pass"]
WINDOW_KEYS = ["latency_target", "step", "phase", "dimension", "load", "target_ms", "percentile", "max_load"]
ODD_KEYS = ["", "N", "colour", "n ", "\u00e9" * 40, "latency_target", "study", "x" * 100]
NUMBERS = [0, 1, 2, 8, -1, 1.5, 1e30, -1e30, 2 ** 31, 2 ** 63, 1e-300, 0.0, 100, 99.9, 8192]
STRINGS = ["x", "", "1", "random", "sequential", "RANDOM", "0-100", "0-40", "40-100", "nan-nan", "inf-1",
           "0x1p3-100", "1e2-100", "uniform", "zipf:1.2", "zipf:nan", "hotset:95/5", "read", "write",
           "search", "confirm", "queue_depth", "processes", "<svg onload=x>", "\u00e9" * 80, "'; --"]
OTHER = [None, True, False, [], [1, 2], {}, {"a": 1}]


def value(rng):
    r = rng.random()
    if r < 0.5:
        return rng.choice(NUMBERS)
    if r < 0.85:
        return rng.choice(STRINGS)
    return rng.choice(OTHER)


def study_point(rng):
    p = {}
    if rng.random() < 0.85:
        p["n"] = rng.choice([1, 1, 2, 3]) if rng.random() < 0.8 else value(rng)
    for k in rng.sample(STUDY_KEYS[1:], rng.randrange(0, 4)):
        p[k] = value(rng)
    # what the batch runs, sometimes: one process at QD 1, 8 KiB reads
    if rng.random() < 0.4:
        p.update(rng.choice([{"processes": 1}, {"queue_depth": 1}, {"block_size": 8192},
                             {"write_pct": 0}, {"pattern": "random"}, {"region": "0-100"},
                             {"distribution": "uniform"}, {"mode": "read"}, {"small": 0}]))
    if rng.random() < 0.1:
        p[rng.choice(ODD_KEYS)] = value(rng)
    return p


def window(rng):
    w = {"step": 1, "phase": "search", "dimension": "queue_depth", "load": 1, "target_ms": 5,
         "percentile": 99, "max_load": 4}
    for k in rng.sample(WINDOW_KEYS[1:], rng.randrange(0, 4)):
        if rng.random() < 0.2:
            w.pop(k, None)
        else:
            w[k] = value(rng)
    if rng.random() < 0.1:
        w[rng.choice(ODD_KEYS)] = value(rng)
    return w


def spec(rng, extra):
    s = {"target": TARGET, "iterations": 10, "groups": [{"processes": 1}]}
    s.update(extra)
    return json.dumps(s, ensure_ascii=rng.random() < 0.5)


def register(kind, seq):
    return "SELECT ranread_internal.ranread_call_register('%s', nextval('%s'))" % (kind, seq)


def step_case(rng):
    r = rng.random()
    if r < 0.55:
        extra = {"point": study_point(rng)} if rng.random() < 0.95 else {}
        return "; ".join([
            register("study", "ranread_study_seq"),
            "SELECT count(*) FROM ranread_run_step(%s::jsonb || jsonb_build_object('study', currval('ranread_study_seq')))"]), \
            [spec(rng, extra)]
    if r < 0.9:
        return "; ".join([
            register("latency_target", "ranread_latency_target_seq"),
            "SELECT count(*) FROM ranread_run_step(%s::jsonb || jsonb_build_object('point', "
            "%s::jsonb || jsonb_build_object('latency_target', currval('ranread_latency_target_seq'))))"]), \
            [spec(rng, {}), json.dumps(window(rng))]
    # a point of no call, or of a call of no one
    extra = {"point": rng.choice([study_point(rng), window(rng)])}
    if rng.random() < 0.5:
        extra["study"] = rng.choice([1, 999999, -1])
    return "SELECT count(*) FROM ranread_run_step(%s::jsonb)", [spec(rng, extra)]


ARGS = ["1", "2", "4", "0", "-1", "NULL", "2147483647"]
BOUNDS = ["10", "0.001", "1e300", "0", "-1", "'NaN'::float8", "'Infinity'::float8", "NULL"]


def sweep_record_case(rng):
    stmts = [register("sweep", "ranread_sweep_seq")]
    for processes in rng.choice([[], [1], [1, 2], [2, 1], [1, 2, 4], [3]]):
        stmts.append("SELECT count(*) FROM ranread_run_step(jsonb_build_object('sweep', currval('ranread_sweep_seq'), "
                     "'target', '%s', 'iterations', 10, 'groups', jsonb_build_array(jsonb_build_object('processes', %d))))"
                     % (TARGET, processes))
    stmts.append("SELECT ranread_internal.ranread_sweep_record(currval('ranread_sweep_seq'), %s, %s, %s)"
                 % (rng.choice(ARGS), rng.choice(ARGS), rng.choice(BOUNDS)))
    return "; ".join(stmts)


KINDS = ["'study'", "'crystaldiskmark'", "'orion-oltp'", "'grid'", "''", "NULL", "'\u00e9'"]
FNS = ["'ranread_study'", "'ranread_profile'", "'ranread_sweep'", "NULL", "''"]
CALLS = ["'SELECT * FROM ranread_study(processes => ''{1}'');'", "'SELECT * FROM ranread_profile(''orion-oltp'');'",
         "'DROP TABLE x'", "NULL", "repeat('x', 70000)", "'<script>'"]
DEFINITIONS = ["'{}'", "'{\"dimensions\": {\"processes\": [1]}}'", "'[]'", "'1'", "NULL", "'null'"]
DIMS = ["'processes'", "'n'", "'small'", "NULL", "''", "'\u00e9'"]
ROWDIMS = ["'{}'", "'{large}'", "'{processes,write_pct}'", "NULL", "'{NULL}'"]


def study_record_case(rng):
    stmts = [register("study", "ranread_study_seq")]
    for n in range(rng.choice([0, 1, 1, 2, 3])):
        point = study_point(rng) if rng.random() < 0.3 else {"n": n + 1, "processes": 1}
        stmts.append("SELECT count(*) FROM ranread_run_step(jsonb_build_object('study', currval('ranread_study_seq'), "
                     "'point', '%s'::jsonb, 'target', '%s', 'iterations', 10, 'groups', '[{\"processes\": 1}]'::jsonb))"
                     % (json.dumps(point).replace("'", "''"), TARGET))
    stmts.append("SELECT ranread_internal.ranread_study_record(currval('ranread_study_seq'), %s, %s, %s, %s::jsonb, "
                 "%s, %s, %s, now(), %s, %s, %s::text[])"
                 % (rng.choice(KINDS), rng.choice(FNS), rng.choice(CALLS), rng.choice(DEFINITIONS),
                    rng.choice(ARGS), rng.choice(["0", "1", "-1", "NULL"]), rng.choice(BOUNDS),
                    rng.choice(["0", "1.5", "'NaN'::float8", "NULL"]), rng.choice(DIMS), rng.choice(ROWDIMS)))
    return "; ".join(stmts)


def cases(rng, n):
    for _ in range(n):
        r = rng.random()
        if r < 0.7:
            yield step_case(rng)
        elif r < 0.85:
            yield sweep_record_case(rng)
        else:
            yield study_record_case(rng)
