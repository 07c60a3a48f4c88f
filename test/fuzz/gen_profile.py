"""Profiles and exports: ranread_profile's names (the known ones, their
spellings, unknown ones, odd Unicode, NULL) and arguments (duration,
passes, num_disks, writes, workers), ranread_profile_report and
ranread_profile_chart of studies that exist or not, and the export formats
and directories of ranread_export and ranread_export_study (relative,
missing, a file, too long, NULL; formats known, unknown and odd).  A valid
profile runs tiny (0.02 s per run, one pass, one disk) on the 16 MB target
made in SETUP; valid exports write into a fresh directory of this run."""
import os
import tempfile

CASES = 400
TIMEOUT_MS = 8000
TARGET = "fuzz_profile"

# a directory the server may write to, new for this run (under the test
# run's directory when test/run runs it, which removes it)
EXPORT_DIR = tempfile.mkdtemp(prefix="fuzz_export.", dir=os.environ.get("RANREAD_TEST_TMP", "/tmp"))
os.chmod(EXPORT_DIR, 0o777)

SETUP = [
    "SET client_min_messages = error",
    "SELECT ranread_setup('16MB', target => '%s')" % TARGET,
    "CREATE TEMP TABLE fuzz_study AS SELECT max(study) AS study FROM ranread_study(processes => '{1,2}', "
    "duration => '0.02s', target => '%s')" % TARGET,
]

NAMES = ["crystaldiskmark", "crystaldiskmark-nvme", "crystaldiskmark-real", "orion-oltp", "orion-dss",
         "orion-normal", "snia-latency"]
ODD_NAMES = ["CrystalDiskMark", "crystaldiskmark ", "orion", "orion-", "snia", "", "x" * 1000,
             "\u00e9" * 40, "crystaldiskmark%", "orion-%", "crystal'; SELECT 1; --", "\U0001F600"]
FORMATS = ["tsv", "csv", "json", "svg", "html", "TSV", "Csv", "xml", "", "pdf", "csv ", "\u00e9", "x" * 300]
STUDY_FORMATS = ["html", "csv", "json", "HTML", "tsv", "svg", "", "x" * 300, "csv;rm"]


def directory(rng):
    return rng.choice([
        EXPORT_DIR, EXPORT_DIR, EXPORT_DIR + "/", EXPORT_DIR + "/../" + os.path.basename(EXPORT_DIR),
        EXPORT_DIR + "/missing", "relative/dir", "", None, ".", "..", "/etc/hostname", "/proc/self",
        "/" + "x" * 5000, EXPORT_DIR + "/" + "\u00e9" * 200, "/nonexistent/deep/dir", "~", "$HOME",
    ])


def profile_case(rng):
    if rng.random() < 0.88:
        name = rng.choice(ODD_NAMES + [None])
    else:
        name = rng.choice(NAMES)
    args = ["%s", "target => '%s'" % TARGET]
    params = [name]
    dur = "'0.02s'" if rng.random() < 0.9 else rng.choice(["'0'", "'-1s'", "NULL", "'25 hours'"])
    args.append("duration => %s" % dur)
    if name and name.startswith("crystaldiskmark"):
        args.append("passes => %s" % rng.choice(["1", "1", "1", "0", "-1", "1000000"]))
    elif rng.random() < 0.1:
        args.append("passes => 1")
    if name and name.startswith("orion"):
        args.append("num_disks => %s" % rng.choice(["1", "1", "1", "0", "-1", "100000"]))
    elif rng.random() < 0.1:
        args.append("num_disks => 1")
    if rng.random() < 0.2:
        args.append("writes => %s" % rng.choice(["true", "false", "NULL"]))
    if rng.random() < 0.1:
        args.append("workers => %s" % rng.choice(["1", "0", "-1", "2049"]))
    if name == "orion-normal" or (name == "crystaldiskmark" and rng.random() < 0.5):
        args.append("duration => '0.02s'")     # twice: refused, so that no long profile runs
    return "SELECT count(*) FROM ranread_profile(%s)" % ", ".join(args), params


def cases(rng, n):
    for _ in range(n):
        r = rng.random()
        if r < 0.35:
            yield profile_case(rng)
        elif r < 0.5:
            fn = rng.choice(["ranread_profile_report", "ranread_profile_chart"])
            study = rng.choice(["(SELECT study FROM fuzz_study)", "NULL", "-1", "0", "9223372036854775807",
                                "(SELECT max(study) FROM ranread_batches)"])
            yield "SELECT count(*) FROM (SELECT %s(%s)) x" % (fn, study)
        elif r < 0.75:
            yield ("SELECT ranread_export(%s, %s)", [directory(rng), rng.choice(FORMATS + [None])])
        else:
            study = rng.choice(["(SELECT study FROM fuzz_study)"] * 3 + ["NULL", "-1", "0", "9223372036854775807"])
            yield ("SELECT count(*) FROM ranread_export_study(%%s, %s, %%s)" % study,
                   [directory(rng), rng.choice(STUDY_FORMATS + [None])])
