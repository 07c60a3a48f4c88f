"""The power-loss durability check: ranread_durability_start's arguments
(tablespaces there or not, pg_global, odd names, NULL; methods in and out
of wal_sync_method's list; durations and sizes in and out of range) and its
internal C half (ranread_internal.ranread_durability_create, _write, _read,
_drop) on test numbers that do not exist, out-of-range block counts and
sequence numbers.  Each case runs in a transaction block, where the
procedure's first COMMIT is refused: no case writes a durability file for
long, and the ones that get that far end with a clean error."""

CASES = 2000
TIMEOUT_MS = 4000

SETUP = ["SET client_min_messages = error"]

NAMES = ["pg_default", "pg_global", "no_such_tablespace", "", " ", "PG_DEFAULT", "x" * 100,
         "\u00e9" * 40, "'; SELECT 1; --", None]
METHODS = ["fdatasync", "fsync", "open_datasync", "open_sync", "fsync_writethrough", "none", "FSYNC",
           "", "x" * 200, None]
DURATIONS = ["60s", "0.01s", "0", "-1s", "1 day", "25 hours", "1000 years", None]
SIZES = ["64MB", "8kB", "8191", "1GB", "1025MB", "-1", "0", "lots", "", "9e99 TB", None]
NUMBERS = ["0", "1", "-1", "2", "131072", "131073", "9223372036854775807", "-9223372036854775808", "NULL"]


def start_case(rng):
    args, params = [], []
    for name, values in (("tablespace", NAMES), ("method", METHODS), ("duration", DURATIONS),
                         ("size", SIZES)):
        if rng.random() < 0.6:
            args.append("%s => %%s" % name)
            params.append(rng.choice(values))
    return "CALL ranread_durability_start(%s)" % ", ".join(args), params


def internal_case(rng):
    fn = rng.choice(["create", "write", "read", "drop"])
    n = lambda: rng.choice(NUMBERS)
    if fn == "create":
        return ("SELECT ranread_internal.ranread_durability_create(%s, %%s, %%s, %s, %s)"
                % (n(), n(), rng.choice(["true", "false", "NULL"])),
                [rng.choice(NAMES), rng.choice(METHODS)])
    if fn == "write":
        return ("SELECT ranread_internal.ranread_durability_write(%s, %%s, %s, %s)" % (n(), n(), n()),
                [rng.choice(METHODS)])
    if fn == "read":
        return "SELECT * FROM ranread_internal.ranread_durability_read(%s, %s, %s)" % (n(), n(), n())
    return "SELECT ranread_internal.ranread_durability_drop(%s)" % n()


def cases(rng, n):
    for _ in range(n):
        r = rng.random()
        if r < 0.5:
            yield start_case(rng)
        elif r < 0.9:
            yield internal_case(rng)
        else:
            yield rng.choice(["SELECT * FROM ranread_durability_check()", "SELECT ranread_durability_stop()",
                              "SELECT ranread_durability_purge()"])
