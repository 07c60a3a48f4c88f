"""The help and the roles: ranread_help(name) takes any text (pg_monitor
may call it) and ranread_grant / ranread_revoke any role and kind of use.
Cases: names of the help cut, doubled, misspelt, in other cases, with
quotes, backslashes, NULs escaped away, very long or empty, and NULL; the
grants with nonsense kinds of use, NULL roles, roles that do not exist,
and one throwaway role of its own (fuzz_help_role, the only one a grant
can reach: the cases commit, so no other role may gain anything)."""

CASES = 600
TIMEOUT_MS = 2000

SETUP = [
    "DO $$ BEGIN IF to_regrole('fuzz_help_role') IS NULL THEN CREATE ROLE fuzz_help_role; END IF; END $$",
]

NAMES = ["ranread_run", "ranread_sweep", "ranread_study", "ranread_help", "ranread_summary",
         "ranread_export", "ranread_fleet", "ranread_hist_merge", "run", "mix", "grant"]
ODD = ["", " ", "'", "''", "\\", "%", "_", "*", "ranread_", "ranread__", "é", "日本",
       "\t", "\n", "a" * 10000, "ranread_" * 300, "NULL", "); DROP TABLE x; --"]
WHATS = ["run", "report", "export", "RUN", "run ", "", "all", "superuser", "runreport", "NULL", "'"]


def literal(s):
    return "'" + s.replace("'", "''") + "'"


def mangle(rng, s):
    k = rng.randrange(7)
    if k == 0 and len(s) > 1:
        i = rng.randrange(len(s))
        return s[:i] + s[i + 1:]
    if k == 1:
        i = rng.randrange(len(s) + 1)
        return s[:i] + rng.choice("abcxyz_'\\%") + s[i:]
    if k == 2:
        return s.upper()
    if k == 3:
        return s * rng.randrange(2, 50)
    if k == 4:
        return rng.choice(ODD)
    if k == 5:
        return s + rng.choice(ODD)
    return s


def cases(rng, n):
    for _ in range(n):
        k = rng.randrange(4)
        if k < 2:
            name = mangle(rng, rng.choice(NAMES))
            arg = "NULL" if rng.random() < 0.05 else literal(name)
            yield "SELECT count(*) FROM ranread_help(%s)" % arg
        elif k == 2:
            yield "SELECT count(*) FROM ranread_help()"
        else:
            fn = rng.choice(["ranread_grant", "ranread_revoke"])
            role = rng.choice(["'fuzz_help_role'", "NULL", literal(mangle(rng, "fuzz_help_role"))])
            what = rng.choice(WHATS)
            what = "NULL" if what == "NULL" else literal(mangle(rng, what) if rng.random() < 0.3 else what)
            yield "SELECT count(*) FROM %s(%s, %s)" % (fn, role, what)
