#!/usr/bin/env python3
"""bench/report.py OUTDIR RESULTS.md

Reads OUTDIR/results.jsonl (one line per run of either tool), machine.json and
commands.txt written by bench/run; prints the comparison table and writes the
report.  Each (tool, variant) has BENCH_REPS runs; the reported run is the one
with the highest throughput ("best") or the median one ("median"), and every
figure of a row (IOPS, latency, CPU) comes from that same run.
"""
import json
import math
import os
import sys

out, results_path = sys.argv[1], sys.argv[2]
machine = json.load(open(os.path.join(out, "machine.json")))
runs = [json.loads(l) for l in open(os.path.join(out, "results.jsonl")) if l.strip()]
cmds = []
for line in open(os.path.join(out, "commands.txt")):
    if line.strip():
        k, v = line.rstrip("\n").split("\t", 1)
        cmds.append((k, v))

pick_mode = machine["pick"]
THROUGHPUT_MBPS = {"setup", "fill", "seq_qd8"}


def key_of(variant):
    return "mbps" if variant in THROUGHPUT_MBPS else "iops"


def picked(tool, variant):
    rs = [r for r in runs if r["tool"] == tool and r["variant"] == variant and not r.get("failed")]
    if not rs:
        return None
    k = key_of(variant)
    rs.sort(key=lambda r: r.get(k) or 0)
    if pick_mode == "median":
        return rs[(len(rs) - 1) // 2]
    return rs[-1]


def fmt(v, unit):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if unit == "IOPS":
        return f"{v:,.0f} IOPS"
    if unit == "MiB/s":
        return f"{v:,.1f} MiB/s"
    if unit == "ms":
        return f"{v:.3f} ms"
    if unit == "us/IO":
        return f"{v:.2f} us/IO"
    return str(v)


# label, metric, unit, ranread variant, fio variant, op, target
ROWS = [
    ("Setup fill, 1 MiB O_DIRECT writes, QD8 (vs fio write, new file)", "mbps", "MiB/s", "setup", "fill", ">=", 0.80),
    ("8k random read, 1 process QD1 (vs fio psync x1)", "iops", "IOPS", "qd1", "psync1", ">=", 0.95),
    ("8k random read, 1 process QD1: avg latency", "lat_ms", "ms", "qd1", "psync1", "<=", 1.10),
    ("8k random read, 32 processes (vs fio psync x32)", "iops", "IOPS", "p32", "psync32", ">=", 1.00),
    ("8k random read, 32 processes (vs fio io_uring QD32)", "iops", "IOPS", "p32", "uring32", ">=", 0.95),
    ("64k random read, 32 processes (vs fio io_uring QD32)", "iops", "IOPS", "p32_64k", "uring32_64k", ">=", 0.95),
    ("1 MiB sequential read, 1 process QD8 (vs fio read QD8)", "mbps", "MiB/s", "seq_qd8", "seq_qd8", ">=", 0.95),
    ("8k random 25% writes, 32 processes (vs fio randrw QD32), total", "iops", "IOPS", "rw25_p32", "rw25_qd32", ">=", 0.90),
    ("8k random read, 1 process QD32 (vs fio io_uring QD32)", "iops", "IOPS", "qd32", "uring32", ">=", 0.95),
    ("CPU per I/O, 8k QD1 (1 process vs psync x1)", "cpu_us_per_io", "us/IO", "qd1", "psync1", "<=", 1.10),
    ("CPU per I/O, 8k 1 process QD32 (vs io_uring QD32)", "cpu_us_per_io", "us/IO", "qd32", "uring32", "<=", 1.10),
    ("CPU per I/O, 8k 32 processes (vs io_uring QD32)", "cpu_us_per_io", "us/IO", "p32", "uring32", "<=", 1.10),
]
INFO_ROWS = [
    ("info: 8k QD1 with ranread.engine = sync (vs fio psync x1)", "iops", "IOPS", "qd1_sync", "psync1"),
    ("info: 8k QD1 with ranread.engine = sync: avg latency", "lat_ms", "ms", "qd1_sync", "psync1"),
    ("info: 8k QD1 sync engine: CPU per I/O", "cpu_us_per_io", "us/IO", "qd1_sync", "psync1"),
]
PEAK_RR = ["qd1", "qd1_sync", "p32", "qd32", "qd128", "p2_qd64", "p256"]
PEAK_FIO = ["psync1", "psync32", "uring32", "uring128", "uring64x2"]

table = []


def noisy(*rs):
    """Another process did more than 5% as many I/Os on the device as the tool did"""
    for r in rs:
        if r and r.get("other_iops") is not None and r.get("iops") and r["other_iops"] > 0.05 * r["iops"]:
            return True
        if r and r.get("other_mbps") is not None and r.get("mbps") and r["other_mbps"] > 0.05 * r["mbps"]:
            return True
    return False


def add(label, fio_v, rr_v, unit, op=None, target=None, note=""):
    ratio = None
    if fio_v and rr_v is not None and fio_v > 0:
        ratio = rr_v / fio_v
    if op is None:
        result = "info"
        tgt = ""
    else:
        tgt = f"{op} {target:.2f}x"
        if ratio is None:
            result = "n/a"
        elif (op == ">=" and ratio >= target) or (op == "<=" and ratio <= target):
            result = "PASS"
        else:
            result = "FAIL"
    table.append((label, fmt(fio_v, unit), fmt(rr_v, unit),
                  "n/a" if ratio is None else f"{ratio:.3f}x", tgt, result + note))


for label, metric, unit, rv, fv, op, target in ROWS:
    r, f = picked("ranread", rv), picked("fio", fv)
    if r is None and f is None:
        continue
    add(label, f and f.get(metric), r and r.get(metric), unit, op, target,
        " (noisy)" if noisy(r, f) else "")

peak_r = [(picked("ranread", v), v) for v in PEAK_RR]
peak_r = [(p["iops"], v) for p, v in peak_r if p]
peak_f = [(picked("fio", v), v) for v in PEAK_FIO]
peak_f = [(p["iops"], v) for p, v in peak_f if p]
if peak_r and peak_f and (picked("ranread", "qd128") or picked("fio", "uring128")):
    (ri, rv), (fi, fv) = max(peak_r), max(peak_f)
    table.append(("Peak 8k random read IOPS, any config "
                  f"(ranread {rv}, fio {fv})", fmt(fi, "IOPS"), fmt(ri, "IOPS"),
                  f"{ri / fi:.3f}x", ">= 0.95x", ("PASS" if ri / fi >= 0.95 else "FAIL") +
                  (" (noisy)" if noisy(picked("ranread", rv), picked("fio", fv)) else "")))

for label, metric, unit, rv, fv in INFO_ROWS:
    r, f = picked("ranread", rv), picked("fio", fv)
    if r is None or f is None:
        continue
    add(label, f.get(metric), r.get(metric), unit)

head = ("Configuration", "fio", "ranread", "ratio", "target", "result")
widths = [max(len(str(row[i])) for row in table + [head]) for i in range(6)]


def md_row(row):
    return "| " + " | ".join(str(c).ljust(widths[i]) for i, c in enumerate(row)) + " |"


lines = [md_row(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
lines += [md_row(r) for r in table]
n_pass = sum(1 for r in table if r[5].startswith("PASS"))
n_fail = sum(1 for r in table if r[5].startswith("FAIL"))
summary = f"{n_pass} passed, {n_fail} failed (ratio = ranread / fio; latency and CPU: lower is better)"

# every run
allrows = ["| tool | variant | run | IOPS | MiB/s | avg ms | CPU us/IO | CPU s | workers | other I/O/s | other MiB/s |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
for r in runs:
    if r.get("failed"):
        allrows.append(f"| {r['tool']} | {r['variant']} | {r['rep']} | failed | | | | | | | |")
        continue

    def g(k, f):
        v = r.get(k)
        return "" if v is None else f.format(v)
    allrows.append(f"| {r['tool']} | {r['variant']} | {r['rep']} | {g('iops', '{:,.0f}')} | {g('mbps', '{:,.1f}')} | "
                   f"{g('lat_ms', '{:.3f}')} | {g('cpu_us_per_io', '{:.2f}')} | {g('cpu_s', '{:.2f}')} | {g('workers', '{}')} | {g('other_iops', '{:,.0f}')} | {g('other_mbps', '{:,.1f}')} |")

m = machine
size_mib = m["size"] >> 20
md = []
md.append("# ranread vs fio: benchmark results\n")
if m.get("quick"):
    md.append("**Quick (smoke-test) run: 2-second measurements, figures are indicative only.**\n")
md.append(f"Produced by `bench/run{' --quick' if m.get('quick') else ''}` on {m['date']}. "
          f"Target: {size_mib} MiB ({m['nsegs']} segment files of 1 GiB); every measurement "
          f"{m['secs']} s; {m['reps']} runs of each tool per configuration, alternated "
          f"(A B, then B A); the table shows the **{m['pick']}** run of each "
          f"({'highest throughput' if m['pick'] == 'best' else 'median by throughput'}), "
          "and every figure of a row comes from that run.\n")
md.append("## Machine\n")
md.append("| | |\n|---|---|")
for k, label in [("nproc", "CPUs (nproc)"), ("cpu", "CPU model"), ("ram", "RAM"), ("kernel", "kernel"),
                 ("filesystem", "filesystem (source, type, options)"), ("device", "device"),
                 ("fio", "fio"), ("postgres", "PostgreSQL"), ("build", "ranread build"), ("date", "date"),
                 ("load_start", "load average at start"), ("load_end", "load average at end"),
                 ("other_clusters", "other PostgreSQL clusters online")]:
    md.append(f"| {label} | {m.get(k, '') or '-'} |")
md.append("")
md.append("## Results\n")
md.extend(lines)
md.append("")
md.append(summary + "\n")
md.append("Ratio is ranread / fio. Throughput rows pass when the ratio is at least the target; "
          "latency and CPU-per-I/O rows pass when ranread is at most that multiple of fio. "
          "ranread's CPU is user+system time of its background workers (utime+stime from "
          "/proc/PID/stat, sampled every 50 ms until they exit) over the I/Os of the run; "
          "fio's is (usr_cpu+sys_cpu)/100 x job_runtime from its JSON. `info` rows have no target. "
          "`(noisy)`: during the reported run of either tool, other processes did more than 5% as many "
          "I/Os on the device as the tool itself (\"other I/O/s\" below: completed I/Os of the whole "
          "device from /sys/block/DEV/stat minus the tool's own, per second; approximate, it also "
          "counts journal and WAL writes). For the fills, \"other MiB/s\" is the device's "
          "bytes read and written meanwhile minus the fill's own (its size, so file-system "
          "metadata counts as other); more than 5% of the fill's MiB/s marks it noisy.\n")
md.append("## Every run\n")
md.extend(allrows)
md.append("")
md.append("## Exact commands\n")
md.append("`$SEGMENTS` is the target's segment files joined with `:` "
          "(`$PGDATA/<pg_relation_filepath(relid)>`, `.1`, `.2`, ...; relid from "
          "`ranread_target_catalog`), so fio and ranread read the same bytes. `$DIR` is the "
          "directory of those files (same filesystem). ranread commands run in psql, in a "
          "throwaway cluster made by `pg_virtualenv -t -v 15`.\n")
md.append("```")
for k, v in cmds:
    md.append(f"# {k}")
    md.append(v)
md.append("```")
md.append("")
text = "\n".join(md)
open(results_path, "w").write(text)

print()
print(f"machine: {m['nproc']} CPUs, {m['ram']} RAM, {m['kernel']}; {m['filesystem']}; {m['device']}; "
      f"{m['fio']}; {m['postgres'].split(' on ')[0]}; load {m['load_start']} -> {m.get('load_end', '?')}")
print(f"{m['secs']} s per run, {m['reps']} runs per tool and configuration, {m['pick']} reported")
print()
print("\n".join(lines))
print()
print(summary)
