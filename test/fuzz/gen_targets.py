"""Targets: ranread_setup and ranread_purge take a size as text (whatever
pg_size_bytes reads, and what it does not), a tablespace name and a target
name.  Cases: sizes that parse and are tiny, sizes that do not parse, that
are negative, zero, below the minimum or far beyond any disk; names of odd
Unicode and of every length around NAMEDATALEN (63 bytes, cut by the name
type); tablespaces that do not exist or cannot hold a target.

A setup that can succeed is followed by the purge of the same name in the
same transaction, so no target outlives its case and at most one target of
at most 4 MB exists at a time (far below the 16 MB such a generator may
have at once).  A size that parses and is larger than 4 MB is always one
that no filesystem has room for (a petabyte and more) or that no relation
can hold, so setup refuses it before writing anything."""

CASES = 2000
TIMEOUT_MS = 4000

SETUP = [
    "SELECT count(*) FROM ranread_targets",
]

# sizes setup may accept: all at most 4 MB
SMALL = ["1MB", "1 MB", "1.5 MB", "1.5MB", "2048 kB", "4MB", "1048576", "1048577 bytes",
         "1.0001 MB", " 2 MB", "3 MB ", "1048576 B", "0.001 GB"]
# sizes setup must refuse before writing a block
REFUSED = ["", " ", "-1", "-1MB", "0", "0 kB", "1", "1 kB", "1023 kB", "1e30 kB", "1e30",
           "1 PB", "5 PB", "1000 PB", "9223372036854775807", "9223372036854775808",
           "-9223372036854775808", "1 XB", "1 mb", "1 MiB", "1 GiB", "MB", "1.5.5 MB",
           "NaN", "Infinity", "-Infinity", "1e-30 MB", "garbage", "1MB; DROP TABLE x",
           "\u0661 MB", "\uff11 MB", "1\u00a0MB", "1\tMB", "100000000 TB", "1,5 MB",
           "0x100000 bytes", "+-1 MB", "--1", "1 MB 2 MB", None]

ODD = ["\u00e9", "\u00e9" * 40, "\U0001f600", "\U0001f600" * 20, "\u05d0\u05d1\u05d2",
       "\u202e", "\ufffe", "\uffff", "\u0301", "a\u0301" * 30, "\u200b", "\u00a0", "'",
       "\"", "\\", "%s", "%", "$1", "; --", "ranread", "RANREAD", " ranread ", "x" * 63,
       "x" * 64, "x" * 200, "\u00e9" * 31 + "x", "x" + "\u00e9" * 31, "\U0001f600" * 16,
       "a b", "\t", "\n", "\u3042" * 21, "\u3042" * 22, "pg_default", "pg_temp", "public"]

SPACES = ["pg_default", "pg_default", "pg_default", "pg_global", "no_such_tablespace",
          "\u00e9" * 40, "", None, "PG_DEFAULT", "x" * 100, "\U0001f600"]


def name(rng):
    k = rng.randrange(5)
    if k == 0:
        return rng.choice(ODD)
    if k == 1:
        return "".join(rng.choice(ODD) for _ in range(rng.randrange(1, 4)))
    if k == 2:
        return "".join(chr(rng.choice([rng.randrange(0x20, 0x7f), rng.randrange(0xa0, 0x800),
                                       rng.randrange(0x800, 0xd800), rng.randrange(0xe000, 0x10000),
                                       rng.randrange(0x10000, 0x110000)]))
                       for _ in range(rng.randrange(1, 70)))
    if k == 3:
        return "fuzz_%d" % rng.randrange(1000)
    return rng.choice(["", None])


def size(rng):
    return rng.choice(SMALL) if rng.random() < 0.4 else rng.choice(REFUSED)


def cases(rng, n):
    for _ in range(n):
        k = rng.randrange(10)
        t = name(rng)
        if k < 6:
            yield ("SELECT target FROM ranread_setup(%s, %s, %s); SELECT ranread_purge(%s)",
                   (size(rng), rng.choice(SPACES), t, t))
        elif k < 7:
            yield ("SELECT target FROM ranread_setup(%s, target => %s); SELECT ranread_purge(%s)",
                   (size(rng), t, t))
        elif k < 9:
            yield ("SELECT ranread_purge(%s)", (t,))
        else:
            yield ("SELECT target, state, note FROM ranread_targets", None)
