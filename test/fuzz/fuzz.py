#!/usr/bin/python3
"""Fuzz ranread's entry points with seeded random inputs.

    fuzz.py AREA [--seed S] [--cases N] [--only K] [--timeout-ms T] [--db DB]

AREA names a generator, test/fuzz/gen_AREA.py.  A generator module has

    SETUP    a list of SQL statements run once before the cases (optional)
    def cases(rng, n)   yields n cases, each an SQL text (or (text, params))
                        built only from rng, a random.Random

Each case runs in its own transaction on one connection, under
statement_timeout (T ms, default 2000; a generator may set TIMEOUT_MS).
The run fails when
  - the server went away or restarted (a crash broke the connection, or
    pg_postmaster_start_time moved; a crash restart keeps that time, so
    test/fuzz/run also reads the server log for a crash),
  - a call outlived its bound (statement_timeout plus a grace of 3 s: the
    call did not notice the cancel),
  - an error had SQLSTATE XX000 (internal error) or XX001/XX002 (corruption).
Everything else, success or a clean error, is fine: the point is that bad
input gets an error in PostgreSQL's style, never a crash or a hang.

The seed is printed first; a failure prints the case number and its SQL, and
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
import time

import psycopg2

GRACE_S = 3.0
BAD_STATES = {"XX000", "XX001", "XX002"}


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
    n = a.cases or getattr(gen, "CASES", 1000)
    timeout_ms = a.timeout_ms or getattr(gen, "TIMEOUT_MS", 2000)
    print("# fuzz %s: seed %d, %d cases, statement_timeout %d ms" % (a.area, seed, n, timeout_ms))
    print("# reproduce: test/fuzz/fuzz.py %s --seed %d" % (a.area, seed))

    conn = connect(a.db)
    boot = started(conn)
    with conn.cursor() as cur:
        for stmt in getattr(gen, "SETUP", []):
            cur.execute(stmt)

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
    print("# outcomes: " + ", ".join("%s %d" % kv for kv in sorted(states.items(), key=lambda kv: -kv[1])))
    return 0 if not (crash or not up or slow or bad) else 1


if __name__ == "__main__":
    sys.exit(main())
