"""What a fleet's nodes answer for their batches (ranread_fleet_answer),
from nodes that may be anything: a real node's answer with keys added,
dropped or given values of every JSON type, numbers out of every range
(counts near 2^63, 1e308 IOPS, seconds of 1e308), histograms of random
bytes, seconds repeated or without counts, and text that is not JSON; one
to four nodes a case.  Each case goes the way the coordinator takes its
nodes' answers (ranread_fleet_finish): the answers kept are turned into the
nodes' rows and seconds by ranread_fleet_node_rows, the fleet's totals by
ranread_fleet_totals, the call's rows by ranread_fleet_result_rows and
ranread_fleet_round, and the rows and seconds are inserted into copies of
ranread_fleet_nodes and ranread_fleet_seconds with their constraints.  The
case raises an internal error (XX000, which the harness counts as a
failure) when any of that fails on answers that were kept, or when an
answer is neither kept nor refused with a reason: the fleet's recording
must never fail on what its nodes sent."""
import json

CASES = 1000
TIMEOUT_MS = 3000

SETUP = [
    "SET client_min_messages = error",
    "CREATE TEMP TABLE fa_nodes (LIKE ranread_fleet_nodes INCLUDING ALL)",
    "CREATE TEMP TABLE fa_seconds (LIKE ranread_fleet_seconds INCLUDING ALL)",
    """CREATE FUNCTION pg_temp.fa_check(answers text[]) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
    a       record;
    states  ranread_internal.ranread_fleet_node_state[] := '{}';
    nr      record;
    t       record;
    rows    jsonb;
    n       integer := 0;
BEGIN
    FOR k IN 1..cardinality(answers) LOOP
        SELECT * INTO a FROM ranread_internal.ranread_fleet_answer(answers[k]);
        IF a.batch IS NULL AND a.error IS NULL THEN
            RAISE EXCEPTION USING ERRCODE = 'XX000', MESSAGE = 'an answer neither kept nor refused with a reason';
        END IF;
        n := n + (a.batch IS NOT NULL)::integer;
        states := states || ROW(k, 'n' || k, 'host=n' || k, 'c' || k, 'public', NULL, 'done', NULL, NULL, NULL, 0, 0, now(),
                                a.batch, a.error, NULL)::ranread_internal.ranread_fleet_node_state;
    END LOOP;
    BEGIN
        SELECT * INTO nr FROM ranread_internal.ranread_fleet_node_rows(1, NULL::ranread_fleet_options, now(), states);
        SELECT * INTO t FROM ranread_internal.ranread_fleet_totals(nr.rows, nr.secs, 1048576);
        rows := ranread_internal.ranread_fleet_result_rows(1, nr.rows, jsonb_build_object(
            'status', 'completed', 'reads', t.reads, 'writes', t.writes, 'window_seconds', t.window_seconds,
            'iops', t.iops, 'mbps', t.mbps, 'avg_ms', t.avg_ms, 'p50_ms', t.p50_ms, 'p99_ms', t.p99_ms,
            'p999_ms', t.p999_ms, 'max_ms', t.max_ms, 'start_spread_ms', t.start_spread_ms), states);
        PERFORM ranread_internal.ranread_fleet_round(r)
           FROM jsonb_populate_recordset(NULL::ranread_internal.ranread_fleet_result_raw, rows) r;
        INSERT INTO fa_nodes SELECT * FROM jsonb_populate_recordset(NULL::fa_nodes, nr.rows);
        INSERT INTO fa_seconds SELECT * FROM jsonb_populate_recordset(NULL::fa_seconds, nr.secs);
    EXCEPTION WHEN OTHERS THEN
        RAISE EXCEPTION USING ERRCODE = 'XX000', MESSAGE = 'answers kept cannot be recorded: ' || SQLERRM;
    END;
    DELETE FROM fa_nodes;
    DELETE FROM fa_seconds;
    RETURN n || ' of ' || cardinality(answers) || ' kept';
END
$f$""",
]

BASE = {
    "batch": 12, "status": "completed", "message": None, "reads": 1000, "writes": 0,
    "seconds": 2.0, "iops": 500.0, "mbps": 3.9, "avg_ms": 0.2, "p50_ms": 0.18, "p95_ms": 0.3,
    "p99_ms": 0.5, "p999_ms": 0.9, "max_ms": 1.2, "histogram": None,
    "first_io_at": "2026-12-02T03:00:00+00:00",
    "intervals": [{"second": 0, "reads": 500, "writes": 0, "iops": 500.0, "avg_ms": 0.2, "max_ms": 1.0},
                  {"second": 1, "reads": 500, "writes": 0, "iops": 500.0, "avg_ms": 0.2, "max_ms": 1.2}],
}
KEYS = list(BASE) + ["fleet", "node", "name", "conninfo", "offset_ms", "rtt_ms", "late_ms", "outlier", "extra", ""]
STRINGS = ["", "x", "completed", "running", "failed", "lost", "skipped", "NaN", "Infinity", "-Infinity",
           "infinity", "-infinity", "1e400", "2026-13-45", "epoch", "\\x", "\\x00", "\\xdeadbeef", "ä\u00e9\u4e2d",
           "a\nb", "'; DROP TABLE ranread_batches; --", "9" * 40]
NUMBERS = [0, 1, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 40, 2 ** 40 + 1, 2 ** 48, 9 * 10 ** 18, 2 ** 63, 1e9, 1e7, 1e300, 1e308,
           -1e308, 0.5, 1e-320, 12345678901234567890]


def value(rng, depth=0):
    k = rng.random()
    if k < 0.25:
        return rng.choice(NUMBERS)
    if k < 0.5:
        return rng.choice(STRINGS)
    if k < 0.6:
        return rng.choice([None, True, False])
    if k < 0.7 and depth < 2:
        return [value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if k < 0.8 and depth < 2:
        return {rng.choice(KEYS): value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    if k < 0.9:
        return "\\x" + "".join(rng.choice("0123456789abcdef") for _ in range(2 * rng.randint(0, 40)))
    return rng.choice(STRINGS) * rng.randint(1, 50)


def interval(rng):
    i = {"second": rng.choice([0, 1, 2, 2, -1, None, 2 ** 31, "3", 1.5]),
         "reads": rng.choice([1, 0, -5, None, "x", 2 ** 63]),
         "writes": rng.choice([0, 1, None]),
         "iops": rng.choice([1.0, 0, -1, None, "NaN", "Infinity", 1e9, 1e308])}
    for key in ("avg_ms", "max_ms"):
        if rng.random() < 0.7:
            i[key] = rng.choice([0.1, None, -1, "Infinity", "NaN", 1e308])
    if rng.random() < 0.1:
        i[rng.choice(KEYS)] = value(rng)
    return i


def answer(rng):
    k = rng.random()
    if k < 0.05:
        return rng.choice(["", "not json", "[1, 2]", "null", "42", "\"completed\"", "{", "{}"])
    a = json.loads(json.dumps(BASE))
    for _ in range(rng.randint(0, 4)):
        key = rng.choice(KEYS)
        r = rng.random()
        if r < 0.2:
            a.pop(key, None)
        elif key == "intervals" and r < 0.7:
            a[key] = [interval(rng) for _ in range(rng.randint(0, 5))]
        else:
            a[key] = value(rng)
    return json.dumps(a)


def cases(rng, n):
    for _ in range(n):
        yield ("SELECT pg_temp.fa_check(%s)", ([answer(rng) for _ in range(rng.choice([1, 1, 2, 3, 4]))],))
