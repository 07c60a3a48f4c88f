"""The server path's two comparisons, as a role granted 'run' (ROLE):
ranread_paths (prefetch distances as arrays short, long, empty, with NULLs,
negative, huge and repeated; processes, rounds, duration, warm-up and
pattern fine and not; targets that exist, do not, or are odd) and
ranread_profile_postgres (readers, read path, the commit and checkpoint
rates, the WAL's and the checkpoint's targets, wal_sync, fine and not).
A valid call is tiny (the 16 MB target, 0.05 s per batch, at most two
distances and one round), so that most calls that run finish, and a few
ask for more rounds than the statement timeout allows: those are cancelled,
and no worker of theirs may outlive the cancel, nor keep the next call from
starting.  The readers' check (fuzz.py, READERS_EVERY) reads every view and
report as a role granted 'report' after every few cases."""

CASES = 150
TIMEOUT_MS = 6000
TARGET = "fuzz_paths"
WAL_TARGET = "fuzz_paths_wal"
ROLE = "ranread_fuzz_paths"
READERS_EVERY = 30

SETUP = [
    "SET client_min_messages = error",
    "SELECT ranread_setup('16MB', target => '%s')" % TARGET,
    "SELECT ranread_setup('16MB', target => '%s')" % WAL_TARGET,
    "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%s') THEN CREATE ROLE %s; END IF; END $$"
    % (ROLE, ROLE),
    "SELECT count(*) FROM ranread_grant('%s', 'run')" % ROLE,
]

READERS = [
    "SELECT count(*) FROM ranread_groups",
    "SELECT count(*) FROM ranread_batches",
]

ODD_TARGETS = ["", "nope", "\u00e9" * 40, "x" * 300, "fuzz_paths ", "FUZZ_PATHS", "fuzz_%", "'; SELECT 1; --"]
DURATIONS = ["0", "-1s", "NaN", "infinity", "25 hours", "1 microsecond", "x", "5 ms"]


def pick(rng, fine, bad, p_fine=0.8):
    return rng.choice(fine) if rng.random() < p_fine else rng.choice(bad)


def lit(v):
    """an SQL literal of a Python value (None: NULL)"""
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'%s'" % v.replace("'", "''")
    return str(v)


def distances(rng):
    r = rng.random()
    if r < 0.6:
        return "'{%s}'" % ",".join(str(rng.choice([0, 1, 2, 8, 32])) for _ in range(rng.randrange(1, 3)))
    return rng.choice([
        "'{}'", "NULL", "'{NULL}'", "'{1,NULL}'", "'{-1}'", "'{1001}'", "'{2147483647}'", "'{1,1}'",
        "'{%s}'" % ",".join(["1"] * 17), "'{{1,2},{3,4}}'", "ARRAY[]::integer[]",
        "array_fill(1, ARRAY[100000])", "'[0:1]={1,2}'"])


def target_arg(rng):
    return "target => %s" % lit(pick(rng, [TARGET], ODD_TARGETS + [None], 0.85))


def duration_arg(rng):
    return "duration => %s" % lit(pick(rng, ["0.05s", "50 ms"], DURATIONS + [None], 0.85))


def paths_case(rng):
    args = [distances(rng), target_arg(rng), duration_arg(rng)]
    if rng.random() < 0.2:
        args.append("processes => %s" % pick(rng, ["1", "2"], ["0", "-1", "NULL", "100000", "2147483647"], 0.5))
    if rng.random() < 0.85:
        # a few ask for more rounds than the statement timeout allows
        args.append("rounds => %s" % pick(rng, ["1"], ["0", "-1", "NULL", "100000", "2147483647"], 0.9))
    if rng.random() < 0.3:
        args.append("warmup => %s" % lit(pick(rng, ["0", "0.01s"], ["-1s", "NaN", "25 hours", None, "x"], 0.6)))
    if rng.random() < 0.2:
        args.append("pattern => %s" % lit(pick(rng, ["random", "sequential"],
                                               ["", "Random", "zipf", None, "\u00e9", "x" * 200], 0.5)))
    rng.shuffle(args[1:])
    return "SELECT count(*) FROM ranread_paths(%s)" % ", ".join(args)


def profile_case(rng):
    args = [lit(pick(rng, [TARGET], ODD_TARGETS + [None], 0.85)), duration_arg(rng)]
    args.append("readers => %s" % pick(rng, ["1", "2"], ["0", "-1", "NULL", "100000", "2147483647"], 0.85))
    if rng.random() < 0.4:
        args.append("read_path => %s" % lit(pick(rng, ["device", "server"],
                                                 ["", "Device", "buffered", None, "\u00e9" * 30], 0.6)))
    for name, fine, bad in [
        ("commits_per_s", ["10", "100"], ["0", "-1", "2147483647", "NULL"]),
        ("checkpoint_pages_per_s", ["10", "200"], ["0", "-1", "2147483647", "NULL"]),
    ]:
        # the server's own rates by default (NULL) or given; a huge rate only paces, it does not run longer
        if rng.random() < 0.6:
            args.append("%s => %s" % (name, pick(rng, fine, bad, 0.8)))
    if rng.random() < 0.3:
        args.append("wal_target => %s" % lit(pick(rng, [WAL_TARGET, TARGET], ODD_TARGETS + [None], 0.6)))
    if rng.random() < 0.2:
        args.append("checkpoint_target => %s" % lit(pick(rng, [WAL_TARGET], ODD_TARGETS + [None], 0.5)))
    if rng.random() < 0.3:
        args.append("wal_sync => %s" % lit(pick(rng, ["fdatasync", "fsync", "open_datasync", "open_sync"],
                                                ["", "FSYNC", "none", "fsync_writethrough", None, "x" * 100], 0.6)))
    return "SELECT count(*) FROM ranread_profile_postgres(%s)" % ", ".join(args)


def cases(rng, n):
    for _ in range(n):
        yield paths_case(rng) if rng.random() < 0.55 else profile_case(rng)
