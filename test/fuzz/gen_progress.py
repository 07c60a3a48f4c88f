"""What runs now, and what a role granted 'run' can make others read of it:
ranread_internal.ranread_progress_call with every argument NULL, huge,
negative, NaN, infinite, of odd text (long, multibyte, control
characters), for a call this session registered in the same transaction
(sweep, study, latency_target) and for none; tiny batches, some cut by
statement_timeout while they run (at 1 IOPS), some of which say a step
first; ranread_help(name) and ranread_grant / ranread_revoke with odd
names, numbers as roles and odd kinds (a 'run' role: refused).  The cases
run as a role granted 'run' (ROLE).  Beside them, all the while, a role
granted 'report' reads ranread_progress whole (CONCURRENT: every column
computed); every few cases the readers' check reads it, ranread_brief and
ranread_seconds whole too (READERS): no call may leave them failing for
anyone.  SETUP writes a damaged history first (as a superuser may by
hand), which the readers read past too."""

CASES = 500
TIMEOUT_MS = 2000
TARGET = "fuzz_progress"
ROLE = "ranread_fuzz_progress"
READERS_EVERY = 50

SETUP = [
    "SET client_min_messages = error",
    "SELECT ranread_setup('16MB', target => '%s')" % TARGET,
    "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%s') THEN CREATE ROLE %s; END IF; END $$" % (ROLE, ROLE),
    "SELECT count(*) FROM ranread_grant('%s', 'run')" % ROLE,
    # a damaged history, as a superuser may write it by hand (NaN, infinite,
    # 1e20 figures, counts at a bigint's end, a clock gone backwards, a
    # batch of no figures): the readers read past it (test/tap/history_damaged.sql)
    "INSERT INTO ranread_batches (batch, run_at, target, tablespace, processes, duration, block_size, "
    "queue_depth, write_pct, pattern, region_start, region_end, seed, workers, engine, reads, writes, "
    "seconds, iops, mbps, avg_ms, p99_ms, max_ms, status, groups, distribution) VALUES "
    "(990101, now() + interval '10 years', 'f', 'pg_default', 1, '1s', 8192, 1, 0, 'random', 0, 100, 1, 1, "
    "'io_uring', 9223372036854775807, 9223372036854775807, 'NaN', 'Infinity', '-Infinity', 1e300, -1, 'NaN', "
    "'completed', 1, 'uniform'), "
    "(990102, now() - interval '10 years', 'f', 'pg_default', -5, '-1s', -8192, -1, -50, 'random', 100, 0, 1, 1, "
    "'io_uring', -1, -1, -1, -1e20, 1e20, -1, 1e15, 1e16, 'completed', 0, 'uniform'), "
    "(990103, now(), 'f', 'pg_default', 1, NULL, 8192, 1, 0, 'random', 0, 100, 1, 1, 'io_uring', "
    "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'completed', NULL, NULL) ON CONFLICT DO NOTHING",
    "INSERT INTO ranread_intervals (batch, second, reads, writes, iops, avg_ms, max_ms, grp, histogram) VALUES "
    "(990101, 1, 9223372036854775807, 9223372036854775807, 'Infinity', 'NaN', 'Infinity', 1, NULL), "
    "(990101, 1, 9223372036854775807, 0, 1e300, 1e300, 1e300, 2, NULL), "
    "(990102, -1, -5, -5, -1e20, -1, 1e20, 1, NULL), "
    "(990102, 2147483647, 1, 1, 'NaN', 'NaN', 'NaN', 1, NULL) ON CONFLICT DO NOTHING",
]

# each column computed (a count(*) of the view would compute none)
WHOLE = [
    "SELECT count(*), sum(length(t::text)) FROM ranread_progress t",
    "SELECT count(*), sum(length(t::text)) FROM ranread_progress_full t",
    "SELECT count(*), sum(length(t::text)) FROM (SELECT * FROM ranread_brief ORDER BY batch DESC LIMIT 200) t",
    "SELECT count(*), sum(length(t::text)) FROM (SELECT * FROM ranread_seconds ORDER BY batch DESC, second LIMIT 2000) t",
]
READERS = WHOLE
CONCURRENT = WHOLE[:2]

KINDS = ["sweep", "study", "latency_target"]
SEQS = {"sweep": "ranread_sweep_seq", "study": "ranread_study_seq", "latency_target": "ranread_latency_target_seq"}
ODD_KINDS = ["fleet", "Sweep", "", " ", "sweep ", "x" * 5000, "probe", "run", "'", "\u00e9t\u00e9"]
INTS = ["NULL", "0", "1", "2", "-1", "7", "2147483647", "-2147483648", "1000000"]
IDS = ["NULL", "0", "-1", "1", "9223372036854775807", "-9223372036854775808"]
FLOATS = ["NULL", "0", "1", "30", "-1", "1e9", "3.2e9", "1e12", "1e300", "1.7976931348623157e308",
          "'NaN'", "'Infinity'", "'-Infinity'", "1e-300", "-1e300"]
STAMPS = ["NULL", "clock_timestamp()", "clock_timestamp() + interval '10 s'", "now() - interval '1 day'",
          "'infinity'", "'-infinity'", "'294276-12-31 23:59:59+00'", "'4713-01-01 00:00:00+00 BC'",
          "'2000-01-01'", "now() + interval '100 years'", "now() + interval '99 years'"]
PHASES = ["starting step", "", " ", "p", "x" * 23, "x" * 24, "x" * 100000, "\u00e9" * 1000, "\U0001F600" * 50,
          "a\x01b\tc\nd", "'; DROP TABLE ranread_batches; --", "%s%n%x", "\\", "NULL"]


def lit(s):
    return "NULL" if s == "NULL" else "'" + s.replace("'", "''") + "'"


def say(rng, kind, id_sql):
    args = [lit(kind), id_sql, lit(rng.choice(PHASES))]
    n = rng.randrange(0, 5)
    extra = [rng.choice(INTS), rng.choice(INTS), rng.choice(FLOATS), rng.choice(STAMPS)][:n]
    return "SELECT ranread_internal.ranread_progress_call(%s)" % ", ".join(args + extra)


def registered(rng):
    kind = rng.choice(KINDS)
    seq = SEQS[kind]
    stmts = ["SELECT nextval('%s')" % seq,
             "SELECT ranread_internal.ranread_call_register('%s', currval('%s'))" % (kind, seq)]
    for _ in range(rng.randrange(1, 4)):
        stmts.append(say(rng, kind, "currval('%s')" % seq))
        # long enough for the reader beside the cases to see what it said
        stmts.append("SELECT pg_sleep(0.1)")
        stmts.append(rng.choice(WHOLE))
    if rng.random() < 0.3:
        # the step's batch, with the call's progress line
        stmts.append("SELECT status FROM ranread_run(1, iterations => %d, target => '%s')"
                     % (rng.choice([5, 20, 50]), TARGET))
    return "; ".join(stmts)


def batch(rng):
    r = rng.random()
    if r < 0.15:
        # cut by statement_timeout while it runs: its row must go, no worker stays
        return ("SELECT status FROM ranread_run(1, iterations => %d, rate_iops => 1, duration => NULL, target => '%s')"
                % (rng.choice([100, 4611686018427387903]), TARGET))
    return ("SELECT status FROM ranread_run(%d, iterations => %d, target => '%s'%s)"
            % (rng.randrange(1, 3), rng.choice([1, 10, 50]), TARGET,
               rng.choice(["", ", rate_iops => 100", ", duration => '200ms'"])))


def cases(rng, n):
    for _ in range(n):
        r = rng.random()
        if r < 0.35:
            yield registered(rng)
        elif r < 0.55:
            # a call this session does not run, an odd kind, NULLs
            kind = rng.choice(KINDS + ODD_KINDS + ["NULL"])
            yield say(rng, kind, rng.choice(IDS))
        elif r < 0.7:
            yield batch(rng)
        elif r < 0.85:
            name = rng.choice(["ranread_progress", "ranread_brief", "ranread_seconds", "ranread_grant",
                               "ranread_progress_call", "NULL", "", "'", "\"ranread_run\"", "x" * 20000,
                               "ranread_run(integer)", "public.ranread_run", "\u00e9" * 3000])
            yield "SELECT count(*) FROM ranread_help(%s)" % lit(name)
        else:
            fn = rng.choice(["ranread_grant", "ranread_revoke"])
            role = rng.choice(["0", "4294967295", "'%s'" % ROLE, "NULL", "'pg_monitor'", "'postgres'",
                               "'public'", "'no_such_role'"])
            what = rng.choice(["'run'", "'report'", "'export'", "'probe'", "NULL", "''", "'run,report'",
                               "'%s'" % ("x" * 5000)])
            yield "SELECT count(*) FROM %s(%s::oid::regrole, %s%s)" % (
                fn, role, what, rng.choice(["", ", verbose => true", ", verbose => NULL"])) \
                if role in ("0", "4294967295") else \
                "SELECT count(*) FROM %s(%s, %s%s)" % (fn, role, what, rng.choice(["", ", verbose => true"]))
