"""The fleet: ranread_fleet and ranread_fleet_sweep with random node arrays
and options, ranread_nodes with random connection strings, and the
connection-string functions on random text.  Nodes fail fast: closed ports
on 127.0.0.1 (1 to 19), sockets in directories that do not exist, host names
that do not resolve, strings libpq cannot read (wrong case, one slash, open
quotes, huge, binary-looking), NULLs; a few are this cluster itself through
a loopback connection string (ranread_nodes name fuzz_self, or built in SQL),
which runs a tiny batch.  Passwords come in every spelling libpq accepts
(key = value with any spacing and quoting, URIs with percent-encoding,
?password= and ?sslpassword= parameters) and some it does not.

Every password generated is recorded in SECRETS (its core, and each
spelling that hides the core), so that test/shell/96_fleet_secrets.sh can
replay the cases of a seed and check that none of them is ever stored,
printed or logged."""

import string

CASES = 500
TIMEOUT_MS = 3000

SETUP = [
    "DO $$BEGIN IF NOT EXISTS (SELECT FROM ranread_targets WHERE target = 'ranread') THEN"
    " PERFORM ranread_setup('8MB'); END IF; END$$",
    "DELETE FROM ranread_nodes WHERE name = 'fuzz_self'",
    "INSERT INTO ranread_nodes VALUES ('fuzz_self', format('host=%s port=%s dbname=%s',"
    " ranread_internal.ranread_conninfo_quote(split_part(current_setting('unix_socket_directories'), ',', 1)),"
    " current_setting('port'), ranread_internal.ranread_conninfo_quote(current_database())))",
]

SECRETS = []

ALNUM = string.ascii_letters + string.digits


def secret(rng):
    """A password: a core no text has by chance, sometimes with characters
    that need quoting or escaping after it"""
    core = "Zq" + "".join(rng.choice(ALNUM) for _ in range(10))
    SECRETS.append(core)
    tail = rng.choice(["", "", "", " x", "'q", "\\b", "@h", "%z", "&=", "é", ";--"])
    return core + tail


def kv_quote(v, rng):
    """A value as libpq reads it in key = value strings"""
    plain = v and not any(c.isspace() or c in "'\\" for c in v)
    if plain and rng.random() < 0.6:
        return v
    return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"


def pct(v, rng, force=False):
    """Percent-encoding, of every byte needing it and of some that do not"""
    out = []
    for b in v.encode("utf-8"):
        c = chr(b)
        if c in ALNUM and not force and rng.random() < 0.8:
            out.append(c)
        else:
            out.append("%%%02X" % b if rng.random() < 0.5 else "%%%02x" % b)
    s = "".join(out)
    if s != v:
        SECRETS.append(s)
    return s


def sp(rng):
    return rng.choice(["", " ", "  ", "\t", " \n "])


def closed_host(rng):
    return rng.choice([
        "host=127.0.0.1 port=%d" % rng.randint(1, 19),
        "host=/nonexistent/fuzz%d port=%d" % (rng.randint(0, 9), rng.randint(1, 65535)),
        "host=fuzz-%d.invalid" % rng.randint(0, 99),
        "hostaddr=127.0.0.1 port=%d connect_timeout=%d" % (rng.randint(1, 19), rng.randint(0, 3)),
        "host=127.0.0.1,127.0.0.2 port=%d,%d" % (rng.randint(1, 19), rng.randint(1, 19)),
    ])


def kv_password(rng, base):
    kw = rng.choice(["password", "password", "sslpassword"])
    return "%s %s%s=%s%s" % (base, kw, sp(rng), sp(rng), kv_quote(secret(rng), rng))


def uri(rng, host="127.0.0.1", port=None, db="fuzz"):
    port = port if port is not None else rng.randint(1, 19)
    user = rng.choice(["u", "postgres", "a%20b"])
    parts = []
    kind = rng.randrange(5)
    auth = user
    if kind in (0, 1):
        auth = "%s:%s" % (user, pct(secret(rng), rng, force=kind == 1))
    q = []
    if kind in (2, 3):
        key = rng.choice(["password", "pass%77ord", "%70assword", "sslpassword"])
        q.append("%s=%s" % (key, pct(secret(rng), rng)))
    if rng.random() < 0.4:
        q.append("connect_timeout=%d" % rng.randint(1, 3))
    if kind == 4 and rng.random() < 0.5:
        q.append("application_name=x%d" % rng.randint(0, 9))
    parts.append("%s://%s@%s:%s/%s" % (rng.choice(["postgresql", "postgres"]), auth, host, port, db))
    s = "".join(parts)
    if q:
        s += "?" + "&".join(q)
    return s


def unreadable(rng):
    return rng.choice([
        "PASSWORD=%s host=127.0.0.1" % secret(rng),
        "host=127.0.0.1 Password = %s" % secret(rng),
        "postgresql:/user:%s@host:5522/db" % secret(rng),
        "postgresql:/user:%s@127.0.0.1:%d/db?sslmode=disable" % (secret(rng), rng.randint(1, 19)),
        "host=127.0.0.1 password='%s" % secret(rng),
        "host 127.0.0.1 password %s" % secret(rng),
        "postgresql://u:%s@[::1/db" % secret(rng),
        "postgresql://u:%s@h/db?nokeyword=1" % secret(rng),
        "postgresql://u:%s@h/db?password=%%zz" % secret(rng),
        "host=/nonexistent/fuzz password=%s" % secret(rng) + "\x01",
        "=",
        "db7",
        "fuzz_nobody",
        "x" * rng.choice([100, 5000, 200000]),
        "host=" + "h" * rng.choice([300, 70000]),
        "password=" + secret(rng) + " " + "k=v " * rng.choice([10, 2000]),
    ])


def local_expr(rng):
    """This cluster, through a loopback connection string built in SQL
    (the password, ignored by its trust authentication, is in the text)"""
    base = "(SELECT conninfo FROM ranread_nodes WHERE name = 'fuzz_self')"
    kind = rng.randrange(3)
    if kind == 0:
        return base
    if kind == 1:
        return "%s || %s" % (base, lit(" password%s=%s%s" % (sp(rng), sp(rng), kv_quote(secret(rng), rng))))
    return ("format('postgresql://postgres:%%s@%%s:%%s/%%s', %s, replace(split_part(current_setting('unix_socket_directories'), ',', 1), '/', '%%2F'),"
            " current_setting('port'), current_database())" % lit(pct(secret(rng), rng)))


def lit(s):
    if s is None:
        return "NULL"
    return "'" + s.replace("'", "''") + "'"


def node(rng):
    r = rng.random()
    if r < 0.04:
        return local_expr(rng)
    if r < 0.06:
        return lit("fuzz_self")
    if r < 0.08:
        return "NULL"
    if r < 0.30:
        return lit(closed_host(rng))
    if r < 0.55:
        return lit(kv_password(rng, closed_host(rng)))
    if r < 0.75:
        return lit(uri(rng))
    return lit(unreadable(rng))


def nodes(rng):
    r = rng.random()
    if r < 0.03:
        return "NULL"
    if r < 0.05:
        return "'{}'::text[]"
    if r < 0.07:
        return "ARRAY[ARRAY[%s, %s]]" % (lit(closed_host(rng)), lit(closed_host(rng)))
    if r < 0.09:
        return "array_fill(%s::text, ARRAY[%d])" % (lit(kv_password(rng, closed_host(rng))), rng.choice([3, 40, 257]))
    return "ARRAY[%s]::text[]" % ", ".join(node(rng) for _ in range(rng.choice([1, 1, 2, 2, 3, 4])))


OPTIONS = {
    "iterations": ["NULL", "0", "1", "200", "-5", "9223372036854775807"],
    "target": ["NULL", "''", "'ranread'", "'nope'", "'%s'" % ("t" * 70)],
    "duration": ["NULL", "'0'", "'0.2s'", "'-1 s'", "'1 year'", "'1 ms'"],
    "block_size": ["NULL", "0", "512", "4096", "8192", "3000", "1073741824", "-1"],
    "write_pct": ["NULL", "0", "50", "101", "-1"],
    "queue_depth": ["NULL", "0", "1", "4", "100000"],
    "pattern": ["NULL", "'random'", "'sequential'", "'RANDOM'", "''", "'x'"],
    "region_start": ["NULL", "0", "50", "'NaN'", "'Infinity'", "-1", "1e308"],
    "region_end": ["NULL", "100", "10", "'NaN'", "101", "-1e308"],
    "warmup": ["NULL", "'0'", "'0.1s'", "'-1s'", "'10 years'"],
    "rate_iops": ["NULL", "0", "100", "-1", "2147483647"],
    "seed": ["NULL", "0", "42", "-1"],
    "workers": ["NULL", "0", "1", "3", "-2", "100000"],
    "distribution": ["NULL", "'uniform'", "'zipf:1.2'", "'zipf:-1'", "'hot:5/95'", "'x'"],
    "steady_state": ["NULL", "'iops:10%'", "'x'", "''"],
    "sync": ["NULL", "'fsync'", "'x'"],
    "start_delay": ["NULL", "'100ms'", "'0.1s'", "'50ms'", "'31 min'", "'-1s'"],
    "skip_unavailable": ["NULL", "true", "false"],
    "on_node_failure": ["NULL", "'continue'", "'stop'", "'x'", "''"],
    "max_offset_ms": ["NULL", "10", "0", "-1", "'NaN'", "'Infinity'", "1e308"],
    "on_clock_skew": ["NULL", "'error'", "'warn'", "'x'"],
}


def loopback(rng):
    r = rng.random()
    if r < 0.6:
        return None
    if r < 0.75:
        return "(SELECT conninfo FROM ranread_nodes WHERE name = 'fuzz_self')"
    if r < 0.85:
        return "(SELECT conninfo FROM ranread_nodes WHERE name = 'fuzz_self') || %s" % lit(" password=" + kv_quote(secret(rng), rng))
    return lit(rng.choice([unreadable(rng), kv_password(rng, closed_host(rng)), uri(rng)]))


def fleet_call(rng):
    opts = {}
    # mostly the defaults, as a run on this cluster should go through
    for k in rng.sample(sorted(OPTIONS), rng.choice([0, 0, 1, 2, 4, 6])):
        opts[k] = rng.choice(OPTIONS[k])
    lb = loopback(rng)
    if lb:
        opts["loopback"] = lb
    # a run on this cluster stays short
    if "iterations" not in opts and "duration" not in opts:
        opts["iterations"] = "200"
    opts.setdefault("start_delay", "'100ms'")
    return "SELECT * FROM ranread_fleet(%s)" % ", ".join(
        [nodes(rng), rng.choice(["1", "1", "1", "2", "NULL", "0", "-1", "3000"])]
        + ["%s => %s" % kv for kv in sorted(opts.items())])


def sweep_call(rng):
    opts = {"duration": rng.choice(["'0.2s'", "NULL", "'0'"]), "max_processes": "1"}
    # well-typed only: a call PostgreSQL refuses before ranread runs is
    # logged whole, passwords and all, by the server's own rules
    for k, vals in [("start", ["NULL", "0", "1", "2", "-1", "100000"]),
                    ("max_processes", ["NULL", "0", "1", "2", "-1", "100000"]),
                    ("max_avg_ms", ["NULL", "0", "1", "-1", "'NaN'", "'Infinity'", "1e308"])]:
        if rng.random() < 0.3:
            opts[k] = rng.choice(vals)
    for k in rng.sample(sorted(set(OPTIONS) - {"sync", "skip_unavailable"}), rng.randint(0, 4)):
        opts[k] = rng.choice(OPTIONS[k])
    opts.setdefault("start_delay", "'100ms'")
    lb = loopback(rng)
    if lb:
        opts["loopback"] = lb
    return "SELECT * FROM ranread_fleet_sweep(%s)" % ", ".join(
        [nodes(rng)] + ["%s => %s" % kv for kv in sorted(opts.items())])


def conninfo_text(rng):
    r = rng.random()
    if r < 0.3:
        return kv_password(rng, closed_host(rng))
    if r < 0.6:
        return uri(rng)
    if r < 0.9:
        return unreadable(rng)
    return "".join(rng.choice(string.printable) for _ in range(rng.randint(0, 60)))


def local_run(rng):
    """A fleet of this cluster alone that should run: a tiny batch, or one
    that statement_timeout cancels"""
    opts = {"start_delay": "'100ms'", "iterations": rng.choice(["200", "500"])}
    if rng.random() < 0.2:
        del opts["iterations"]
        opts["duration"] = "'1 year'"
    if rng.random() < 0.3:
        k = rng.choice(["block_size", "queue_depth", "pattern", "distribution", "on_node_failure", "skip_unavailable"])
        opts[k] = rng.choice(OPTIONS[k])
    if rng.random() < 0.3:
        opts["loopback"] = loopback(rng) or "NULL"
    return "SELECT * FROM ranread_fleet(ARRAY[%s], 1, %s)" % (
        rng.choice([local_expr(rng), lit("fuzz_self")]), ", ".join("%s => %s" % kv for kv in sorted(opts.items())))


def cases(rng, n):
    for _ in range(n):
        r = rng.random()
        if r < 0.03:
            yield local_run(rng)
        elif r < 0.55:
            yield fleet_call(rng)
        elif r < 0.62:
            yield sweep_call(rng)
        elif r < 0.72:
            yield "INSERT INTO ranread_nodes VALUES (%s, %s)" % (
                lit("fuzz_%d" % rng.randint(0, 10**9)), lit(conninfo_text(rng)))
        else:
            f = rng.choice(["ranread_internal.ranread_conninfo_strip(%s)", "ranread_internal.ranread_conninfo_name(%s)",
                            "ranread_internal.ranread_conninfo_problem(%s)", "ranread_internal.ranread_conninfo_has_password(%s)",
                            "ranread_internal.ranread_conninfo_scrub('password ' || %s, %s)"])
            c = lit(conninfo_text(rng)) if rng.random() < 0.95 else "NULL"
            yield "SELECT " + (f % (c, c) if f.count("%s") == 2 else f % c)
