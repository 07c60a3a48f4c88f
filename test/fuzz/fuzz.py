#!/usr/bin/python3
"""Fuzz ranread's entry points with seeded random inputs.

    fuzz.py AREA [--seed S] [--cases N] [--only K] [--timeout-ms T] [--db DB]

AREA names a generator, test/fuzz/gen_AREA.py.  A generator module has

    SETUP    a list of SQL statements run once before the cases (optional)
    def cases(rng, n)   yields n cases, each an SQL text (or (text, params))
                        built only from rng, a random.Random
    ROLE     the role the cases run as (optional: a role SETUP granted
             'run' or 'probe'); SETUP runs as the superuser
    READERS_EVERY  how many cases between two checks of the readers (below;
             default 250)
    READERS  more queries for the readers' check (optional), read as
             READER after the common ones: a generator's own views, read
             whole (every column computed)
    CONCURRENT  queries read as READER in a loop, on a connection of their
             own, all the while the cases run (optional): what others read
             while the cases run, start, fail and get cancelled

Each case runs in its own transaction on one connection, under
statement_timeout (T ms, default 2000; a generator may set TIMEOUT_MS).
The run fails when
  - the server went away or restarted (a crash broke the connection, or
    pg_postmaster_start_time moved; a crash restart keeps that time, so
    test/fuzz/run also reads the server log for a crash),
  - a call outlived its bound (statement_timeout plus a grace of 3 s: the
    call did not notice the cancel),
  - an error had SQLSTATE XX000 (internal error) or XX001/XX002 (corruption),
  - the readers of the history failed: every READERS_EVERY cases and after
    the last, each view and report a role granted 'report' reads (READERS,
    and the charts and reports of the latest studies, sweeps and batch) is
    read as such a role (READER), and any error at all fails the run, as no
    row a case leaves may break what everyone reads; and so does any error
    of a CONCURRENT reader while the cases run (but a lost connection when
    the server went away, which the first check counts).
Everything else, success or a clean error, is fine: the point is that bad
input gets an error in PostgreSQL's style, never a crash or a hang.

RANREAD_FUZZ_SHARE=F (0 < F <= 1) runs that share of each area's cases
(CI shares them between its two builds, .ci/run; --cases overrides it).  The seed is printed first; a failure prints the case number and its SQL, and
`--seed S --only K` runs that case alone.  Output is one line per check,
"PASS text" or "FAIL text", and "# ..." lines of detail, for
test/fuzz/run to turn into TAP.
"""
import argparse
import collections
import importlib.util
import os
import random
import sys
import threading
import time

import psycopg2

GRACE_S = 3.0
BAD_STATES = {"XX000", "XX001", "XX002"}
READER = "ranread_fuzz_reader"
READER_TIMEOUT_MS = 30000

# what a role granted 'report' reads: the views, the report
READERS = [
    "SELECT count(*) FROM ranread_summary",
    "SELECT count(*) FROM ranread_summary_full",
    "SELECT count(*) FROM ranread_process_summary",
    "SELECT count(*) FROM ranread_group_summary",
    "SELECT count(*) FROM ranread_percentiles_over_time",
    "SELECT count(*) FROM ranread_sweep_verdict",
    "SELECT count(*) FROM ranread_latency_target_verdict",
    "SELECT count(*) FROM ranread_study_overview",
    "SELECT count(*) FROM ranread_study_points",
    "SELECT count(*) FROM ranread_health",
    "SELECT count(*) FROM ranread_targets",
    "SELECT length(ranread_report())",
    "SELECT length(ranread_probe_chart('pg_default'))",
]
# ... and the charts and reports of the latest of each (ids read as READER)
READERS_OF = [
    ("SELECT study FROM ranread_study_overview ORDER BY study DESC LIMIT 2",
     ["SELECT length(ranread_study_chart(%s))", "SELECT count(*) FROM ranread_study_grid(%s)",
      "SELECT length(ranread_study_heat(%s))", "SELECT count(*) FROM ranread_study_summary(%s)",
      "SELECT length(ranread_report(study => %s))"]),
    ("SELECT study FROM ranread_study_overview WHERE kind <> 'study' ORDER BY study DESC LIMIT 1",
     ["SELECT count(*) FROM ranread_profile_report(%s)", "SELECT length(ranread_profile_chart(%s))"]),
    ("SELECT sweep FROM ranread_sweep_verdict ORDER BY sweep DESC LIMIT 2",
     ["SELECT length(ranread_chart(%s))", "SELECT length(ranread_report(sweep => %s))"]),
    # (the timeline draws the batch's heatmap when it has one: a batch
    # without per-second histograms has no heatmap of its own, by design)
    ("SELECT batch FROM ranread_summary_full ORDER BY batch DESC LIMIT 1",
     ["SELECT length(ranread_timeline(%s))"]),
]


def reader_setup(conn):
    """The role the readers read as, granted 'report' (made once)"""
    with conn.cursor() as cur:
        cur.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%s') THEN "
                    "CREATE ROLE %s; END IF; END $$" % (READER, READER))
        cur.execute("SET client_min_messages = error")
        cur.execute("SELECT count(*) FROM ranread_grant('%s', 'report')" % READER)


def readers_fail(db, extra=()):
    """Every reader (and the generator's extra ones), read as READER: the
    ones that failed, with their error"""
    failed = []
    try:
        conn = connect(db)
    except psycopg2.Error as e:
        return [("(connect)", str(e).strip())]
    try:
        with conn.cursor() as cur:
            cur.execute("SET ROLE %s" % READER)
            cur.execute("SET client_min_messages = error")
            cur.execute("SET statement_timeout = %d" % READER_TIMEOUT_MS)
        queries = list(READERS) + list(extra)
        for ids_sql, readers in READERS_OF:
            try:
                with conn.cursor() as cur:
                    cur.execute(ids_sql)
                    ids = [r[0] for r in cur.fetchall()]
            except psycopg2.Error as e:
                failed.append((ids_sql, (e.pgerror or str(e)).strip()))
                continue
            queries += [q % i for i in ids for q in readers]
        for q in queries:
            try:
                with conn.cursor() as cur:
                    cur.execute(q)
                    cur.fetchall()
            except psycopg2.Error as e:
                failed.append((q, "%s %s" % (e.pgcode, (e.pgerror or str(e)).strip().splitlines()[0])))
                if conn.closed:
                    break
    finally:
        conn.close()
    return failed


class Concurrent(threading.Thread):
    """Reads queries as READER in a loop until stopped: how many reads,
    and the first few that failed (query, error)"""

    def __init__(self, db, queries):
        super().__init__(daemon=True)
        self.db, self.queries = db, queries
        self.stop = threading.Event()
        self.reads = 0
        self.failed = []

    def run(self):
        try:
            conn = connect(self.db)
            with conn.cursor() as cur:
                cur.execute("SET ROLE %s" % READER)
                cur.execute("SET client_min_messages = error")
                cur.execute("SET statement_timeout = %d" % READER_TIMEOUT_MS)
        except psycopg2.Error as e:
            self.failed.append(("(connect)", str(e).strip()))
            return
        while not self.stop.is_set():
            for q in self.queries:
                try:
                    with conn.cursor() as cur:
                        cur.execute(q)
                        cur.fetchall()
                    self.reads += 1
                except psycopg2.Error as e:
                    if conn.closed:  # the server went away: the first check says so
                        return
                    if len(self.failed) < 5:
                        self.failed.append((q, "%s %s" % (e.pgcode, (e.pgerror or str(e)).strip().splitlines()[0])))
            time.sleep(0.02)
        conn.close()


def load(area):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_%s.py" % area)
    spec = importlib.util.spec_from_file_location("gen_" + area, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def connect(db):
    conn = psycopg2.connect(dbname=db)
    conn.autocommit = True
    return conn


def started(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT pg_postmaster_start_time()")
        return cur.fetchone()[0]


def share(n):
    """The cases an area runs: its CASES, times RANREAD_FUZZ_SHARE when set
    (CI runs two thirds in the plain build and a third under the
    sanitizers, .ci/run)."""
    f = os.environ.get("RANREAD_FUZZ_SHARE")
    if not f:
        return n
    try:
        f = float(f)
    except ValueError:
        f = -1
    if not 0 < f <= 1:
        sys.exit("RANREAD_FUZZ_SHARE must be a number above 0 and at most 1, not %r"
                 % os.environ["RANREAD_FUZZ_SHARE"])
    return max(1, int(round(n * f)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("area")
    ap.add_argument("--seed", type=int,
                    default=int(os.environ.get("RANREAD_FUZZ_SEED", "0")) or None)
    ap.add_argument("--cases", type=int, default=None)
    ap.add_argument("--only", type=int, default=None)
    ap.add_argument("--timeout-ms", type=int, default=None)
    ap.add_argument("--db", default=os.environ.get("PGDATABASE", "postgres"))
    a = ap.parse_args()

    gen = load(a.area)
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1, 2**31)
    n = a.cases or share(getattr(gen, "CASES", 1000))
    timeout_ms = a.timeout_ms or getattr(gen, "TIMEOUT_MS", 2000)
    print("# fuzz %s: seed %d, %d cases, statement_timeout %d ms" % (a.area, seed, n, timeout_ms))
    print("# reproduce: test/fuzz/fuzz.py %s --seed %d" % (a.area, seed))

    t_start = time.monotonic()
    conn = connect(a.db)
    boot = started(conn)
    reader_setup(conn)
    with conn.cursor() as cur:
        for stmt in getattr(gen, "SETUP", []):
            cur.execute(stmt)
        if getattr(gen, "ROLE", None):
            cur.execute("SET ROLE %s" % gen.ROLE)
    every = getattr(gen, "READERS_EVERY", 250)
    extra = getattr(gen, "READERS", [])
    unread = None
    beside = None
    if getattr(gen, "CONCURRENT", None):
        beside = Concurrent(a.db, gen.CONCURRENT)
        beside.start()

    states = collections.Counter()
    slow = []
    bad = []
    crash = None
    worst = 0.0
    rng = random.Random(seed)
    for k, case in enumerate(gen.cases(rng, n)):
        if a.only is not None and k != a.only:
            continue
        sql, params = (case if isinstance(case, tuple) else (case, None))
        t0 = time.monotonic()
        try:
            with conn.cursor() as cur:
                cur.execute("SET statement_timeout = %d" % timeout_ms)
                cur.execute(sql, params)
                if cur.description is not None:
                    cur.fetchall()
            states["ok"] += 1
        except psycopg2.Error as e:
            code = e.pgcode
            if code is None or conn.closed:
                crash = (k, sql, str(e).strip())
                break
            states[code] += 1
            if code in BAD_STATES:
                bad.append((k, code, sql, (e.pgerror or "").strip()))
        finally:
            elapsed = time.monotonic() - t0
            worst = max(worst, elapsed)
            if elapsed > timeout_ms / 1000.0 + GRACE_S:
                slow.append((k, elapsed, sql))
            try:
                with conn.cursor() as cur:
                    cur.execute("RESET statement_timeout")
            except psycopg2.Error:
                pass
        if unread is None and not conn.closed and (k + 1) % every == 0:
            f = readers_fail(a.db, extra)
            if f:
                unread = (k, f)
    if beside is not None:
        beside.stop.set()
        beside.join(READER_TIMEOUT_MS / 1000.0 + GRACE_S)
        print("# %d reads beside the cases, as a role granted 'report'" % beside.reads)
        if beside.failed and unread is None:
            unread = (n - 1, [(q, "(beside the cases) " + m) for q, m in beside.failed])
    if unread is None and crash is None:
        f = readers_fail(a.db, extra)
        if f:
            unread = (n - 1, f)

    def show(sql):
        s = sql if len(sql) <= 600 else sql[:600] + "... (%d characters)" % len(sql)
        return s.replace("\n", " ")

    up = True
    try:
        again = connect(a.db)
        up = started(again) == boot
        again.close()
    except psycopg2.Error:
        up = False
    if crash or not up:
        print("FAIL %s: the server stayed up (seed %d)" % (a.area, seed))
        if crash:
            print("#   case %d broke the connection: %s" % (crash[0], crash[2]))
            print("#   %s" % show(crash[1]))
            print("#   reproduce: test/fuzz/fuzz.py %s --seed %d --only %d" % (a.area, seed, crash[0]))
    else:
        print("PASS %s: the server stayed up over %d cases (seed %d)" % (a.area, sum(states.values()), seed))
    if slow:
        print("FAIL %s: every call ended within statement_timeout + %.0f s" % (a.area, GRACE_S))
        for k, el, sql in slow[:5]:
            print("#   case %d took %.1f s: %s" % (k, el, show(sql)))
            print("#   reproduce: test/fuzz/fuzz.py %s --seed %d --only %d" % (a.area, seed, k))
    else:
        print("PASS %s: every call ended within statement_timeout + %.0f s (slowest %.2f s)" % (a.area, GRACE_S, worst))
    if bad:
        print("FAIL %s: no error was an internal one (XX000)" % a.area)
        for k, code, sql, msg in bad[:5]:
            print("#   case %d: %s %s" % (k, code, msg.splitlines()[0] if msg else ""))
            print("#   %s" % show(sql))
            print("#   reproduce: test/fuzz/fuzz.py %s --seed %d --only %d" % (a.area, seed, k))
    else:
        print("PASS %s: no error was an internal one (XX000)" % a.area)
    if unread:
        print("FAIL %s: the readers of the history work, read as a role granted 'report'" % a.area)
        print("#   after case %d (readers read every %d cases):" % (unread[0], every))
        for q, msg in unread[1][:5]:
            print("#   %s: %s" % (show(q), msg))
        print("#   reproduce: test/fuzz/fuzz.py %s --seed %d" % (a.area, seed))
    else:
        print("PASS %s: the readers of the history work, read as a role granted 'report'" % a.area)
    print("# %d cases in %.0f s" % (sum(states.values()), time.monotonic() - t_start))
    print("# outcomes: " + ", ".join("%s %d" % kv for kv in sorted(states.items(), key=lambda kv: -kv[1])))
    return 0 if not (crash or not up or slow or bad or unread) else 1


if __name__ == "__main__":
    sys.exit(main())
