"""The probe and io_priority: ranread_probe's arguments (tablespaces there
or not, odd names, NULL; rates and durations in and out of the cap;
io_priority strings of every shape), io_priority in a spec of any JSON
type, the cap's check on its own, the probe target's name for odd
tablespace names, and the schedule functions without pg_cron.  The
durations that pass the cap are short (at most 300 ms) so that a case that
runs a batch ends within its timeout."""

CASES = 600
TIMEOUT_MS = 3000

SETUP = ["SET client_min_messages = error",
         "SELECT ranread_probe_setup('pg_default', '16MB')"]

SPACES = ["pg_default", "pg_global", "no_such_tablespace", "", " ", "PG_DEFAULT", "x" * 100,
          "\u00e9" * 40, "'; SELECT 1; --", "\u0442\u0430\u0431\u043b\u0438\u0446\u0430\U0001f600", "\U0001f600" * 16, None]
RATES = ["1", "50", "200", "1000", "1001", "0", "-1", "2147483647", "-2147483648", "NULL"]
DURATIONS = ["0.1s", "0.3s", "0", "-1s", "5ms", "61s", "1 day", "1000 years", "infinity", None]
PRIOS = ["idle", "best-effort", "best-effort:0", "best-effort:7", "best-effort:8", "best-effort:-1",
         "best-effort:07", "realtime", "realtime:0", "idle:0", "IDLE", "Best-Effort:3", "none", "",
         ":", "best-effort:", ":3", "be:4", "x" * 300, "idle\u00e9", "best-effort:3 ", None]
JSON_VALUES = ['"idle"', '"best-effort:9"', '7', '-1', 'true', 'null', '[]', '{}', '"\\u0000"', '1e400']


def probe_case(rng):
    args, params = [], []
    for name, values in (("tablespace", SPACES), ("duration", DURATIONS), ("io_priority", PRIOS),
                         ("job", ["ranread probe pg_default", "", None, "x" * 1000])):
        if rng.random() < 0.6:
            args.append("%s => %%s" % name)
            params.append(rng.choice(values))
    args.append("rate_iops => %s" % rng.choice(RATES))
    if not any(a.startswith("duration") for a in args):
        args.append("duration => '0.2s'")
    return "SELECT * FROM ranread_probe(%s)" % ", ".join(args), params


def spec_case(rng):
    return ('SELECT * FROM ranread_run_step(\'{"groups": [{"processes": 1, "target": "ranread_probe_pg_default"}], '
            '"iterations": 5, "io_priority": %s}\')' % rng.choice(JSON_VALUES))


def cases(rng, n):
    for _ in range(n):
        r = rng.random()
        if r < 0.45:
            yield probe_case(rng)
        elif r < 0.6:
            yield spec_case(rng)
        elif r < 0.75:
            yield ("SELECT * FROM ranread_run(1, 5, target => 'ranread_probe_pg_default', io_priority => %s)",
                   [rng.choice(PRIOS)])
        elif r < 0.85:
            yield ("SELECT ranread_internal.ranread_probe_check(%%s, %s, %%s)" % rng.choice(RATES),
                   [rng.choice(["ranread_probe", "", None]), rng.choice(DURATIONS)])
        elif r < 0.92:
            yield "SELECT ranread_internal.ranread_probe_target(%s)", [rng.choice(SPACES)]
        else:
            yield (rng.choice(["SELECT ranread_probe_schedule(%s, %s)", "SELECT * FROM ranread_probe_schedules() WHERE %s IS NULL OR %s IS NULL",
                               "SELECT ranread_probe_unschedule(%s) WHERE %s IS NULL OR true"]),
                   [rng.choice(SPACES), rng.choice(["* * * * *", "nonsense", "", None])])
