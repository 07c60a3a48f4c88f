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
THROUGHPUT_MBPS = {"setup", "fill", "seq_qd8", "seq_qd8_huge", "seq_qd8_small"}


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
    # like for like: fio's buffers in huge pages too (--iomem=mmaphuge)
    ("64k random read, 32 processes (vs fio io_uring QD32, huge-page buffers)", "iops", "IOPS", "p32_64k", "uring32_64k_huge", ">=", 0.95),
    ("1 MiB sequential read, 1 process QD8 (vs fio read QD8, huge-page buffers)", "mbps", "MiB/s", "seq_qd8", "seq_qd8_huge", ">=", 0.95),
    ("8k random read, 1 process QD32 (vs fio io_uring QD32, huge-page buffers)", "iops", "IOPS", "qd32", "uring32_huge", ">=", 0.95),
    ("CPU per I/O, 8k QD1 (1 process vs psync x1)", "cpu_us_per_io", "us/IO", "qd1", "psync1", "<=", 1.10),
    ("CPU per I/O, 8k 1 process QD32 (vs io_uring QD32)", "cpu_us_per_io", "us/IO", "qd32", "uring32", "<=", 1.10),
    ("CPU per I/O, 8k 32 processes (vs io_uring QD32)", "cpu_us_per_io", "us/IO", "p32", "uring32", "<=", 1.10),
]
INFO_ROWS = [
    ("info: 8k QD1 with ranread.engine = sync (vs fio psync x1)", "iops", "IOPS", "qd1_sync", "psync1"),
    ("info: 8k QD1 with ranread.engine = sync: avg latency", "lat_ms", "ms", "qd1_sync", "psync1"),
    ("info: 8k QD1 sync engine: CPU per I/O", "cpu_us_per_io", "us/IO", "qd1_sync", "psync1"),
    # like for like the other way: ranread.huge_pages = off, base pages as fio's default
    ("info: 64k random, 32 processes, ranread.huge_pages = off (vs fio io_uring QD32)", "iops", "IOPS", "p32_64k_small", "uring32_64k"),
    ("info: 1 MiB sequential QD8, ranread.huge_pages = off (vs fio read QD8)", "mbps", "MiB/s", "seq_qd8_small", "seq_qd8"),
    ("info: 8k 1 process QD32, ranread.huge_pages = off (vs fio io_uring QD32)", "iops", "IOPS", "qd32_small", "uring32"),
]
PEAK_RR = ["qd1", "qd1_sync", "p32", "qd32", "qd128", "p2_qd64", "p256",
           "scale_p1", "scale_p8", "scale_p64", "scale_p256", "scale_p1024", "timing_on"]
PEAK_FIO = ["psync1", "psync32", "uring32", "uring32_huge", "uring128", "uring128_huge", "uring64x2"]

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
    if fv.endswith("_huge") and not any(x["tool"] == "fio" and x["variant"] == fv for x in runs):
        continue                # no hugetlbfs for fio: not run (a failed run still shows)
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

# ---------------------------------------------------------------------------
# Extras: scale, timing cost, history at scale (their own tables)
# ---------------------------------------------------------------------------
def simple_table(head, rows):
    w = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    out_ = ["| " + " | ".join(str(c).ljust(w[i]) for i, c in enumerate(head)) + " |",
            "|" + "|".join("-" * (x + 2) for x in w) + "|"]
    out_ += ["| " + " | ".join(str(c).ljust(w[i]) for i, c in enumerate(r)) + " |" for r in rows]
    return out_


def num(v, f):
    return "n/a" if v is None else f.format(v)


extra_md = []      # report sections
extra_console = []
extra_verdicts = []  # (label, PASS/FAIL)

scale_vs = sorted({r["variant"] for r in runs if r["variant"].startswith("scale_p")},
                  key=lambda v: int(v[len("scale_p"):]))
if scale_vs:
    best = {v: picked("ranread", v) for v in scale_vs}
    mx = max((b["iops"] for b in best.values() if b), default=0)
    sat = None
    for v in scale_vs:
        if best[v] and mx and best[v]["iops"] >= 0.85 * mx:
            sat = v
            break
    rows = []
    all_ok = True
    flat_ok = True
    seen_sat = False
    for v in scale_vs:
        b = best[v]
        n = int(v[len("scale_p"):])
        allr = [r for r in runs if r["tool"] == "ranread" and r["variant"] == v]
        rec_ok = [r for r in allr if not r.get("failed") and r.get("status") == "completed"
                  and r.get("result_rows") == n and r.get("processes") == n]
        if len(rec_ok) != len(allr) or not allr:
            all_ok = False
        if v == sat:
            seen_sat = True
        if b is None:
            rows.append((n, "", "failed", "", "", f"{len(rec_ok)}/{len(allr)}", "", "", "", "", "", "", "", "FAIL"))
            flat_ok = False
            continue
        ratio = b["iops"] / mx if mx else None
        step_ok = (not seen_sat) or (ratio is not None and ratio >= 0.85)
        flat_ok = flat_ok and step_ok
        rss_sum, anon_sum = b.get("rss_kb_sum"), b.get("rss_anon_kb_sum")
        rows.append((n, b.get("workers", ""), num(b["iops"], "{:,.0f}"), num(ratio, "{:.3f}x"),
                     num(b.get("lat_ms"), "{:.3f}"),
                     f"{len(rec_ok)}/{len(allr)} ({b.get('status')}, {b.get('result_rows')} row{'' if b.get('result_rows') == 1 else 's'})",
                     num(b.get("shm_mb"), "{:.1f}"), num(b.get("shm_kb_per_process"), "{:.1f}"),
                     num(b.get("iobuf_mb"), "{:.1f}"),
                     num(rss_sum and rss_sum / 1024.0, "{:.1f}") + " / " + num(b.get("rss_kb_max") and b["rss_kb_max"] / 1024.0, "{:.1f}"),
                     num(anon_sum and anon_sum / 1024.0, "{:.1f}"),
                     num(anon_sum and anon_sum / n, "{:.1f}"),
                     num(b.get("rss_anon_growth_kb") and b["rss_anon_growth_kb"] / 1024.0
                         if b.get("rss_anon_growth_kb") is not None else None, "{:+.2f}") +
                     (f" ({b['rss_growth_workers']} of {b.get('rss_workers')} workers)"
                      if b.get("rss_anon_growth_kb") is not None and b.get("rss_growth_workers") != b.get("rss_workers") else ""),
                     ("PASS" if step_ok else "FAIL") + (" (sat.)" if v == sat else "") +
                     (" (noisy)" if noisy(b) else "")))
    head_s = ("processes", "workers", "IOPS", "vs best", "avg ms", "recorded runs (status, rows)",
              "shm MB", "shm kB/process", "I/O buffers MB", "worker RSS MB (sum / max)",
              "worker RssAnon MB (sum)", "RssAnon kB/process", "RssAnon MB change, mid to end", "result")
    extra_md.append("## Scale: 8k random read, 1 to 1024 processes\n")
    extra_md.extend(simple_table(head_s, rows))
    extra_md.append("")
    extra_md.append(
        f"Best of {machine['reps']} runs per step ({machine['secs']} s each, io_uring engine, queue depth 1 per process). "
        "\"vs best\" is the step's IOPS over the highest step's. The saturation point (sat.) is the first step "
        "within 15% of the highest; a step passes when it is below the saturation point, or at or above it "
        "with IOPS >= 0.85x the highest (no collapse). \"recorded runs\": runs whose batch is in "
        "ranread_summary with status completed and exactly `processes` rows in ranread_results, over all runs "
        "of the step. Shared memory and I/O buffers are from the DETAIL of ranread_run's NOTICE "
        "(\"Memory: X MB of shared memory (Y kB per process), Z MB of I/O buffers\"); worker RSS is "
        "VmRSS (and RssAnon, the private part) from /proc/PID/status of the `ranread worker` backends, "
        "sampled mid-run (and RssAnon again a second before the end: 'change, mid to end' is its growth, summed over the workers alive at both samples); VmRSS also counts PostgreSQL shared memory the worker has touched (RssShmem).\n")
    v_scale = "PASS" if (flat_ok and all_ok) else "FAIL"
    extra_verdicts.append((f"Scale: all steps recorded ({'yes' if all_ok else 'NO'}), no collapse after saturation "
                           f"({'yes' if flat_ok else 'NO'})", v_scale))
    extra_console.append("scale:")
    extra_console.extend(simple_table(head_s, rows))

t_on = {r["rep"]: r for r in runs if r["variant"] == "timing_on" and not r.get("failed")}
t_off = {r["rep"]: r for r in runs if r["variant"] == "timing_off" and not r.get("failed")}
if t_on or t_off:
    rows = []
    ratios = []
    for rep in sorted(set(t_on) | set(t_off)):
        a, b = t_on.get(rep), t_off.get(rep)
        rr = a["iops"] / b["iops"] if a and b and b["iops"] else None
        if rr is not None:
            ratios.append(rr)
        rows.append((rep, "on, off" if rep % 2 else "off, on", num(a and a["iops"], "{:,.0f}"),
                     num(b and b["iops"], "{:,.0f}"), num(rr, "{:.3f}x"), num(rr and 1 / rr, "{:.3f}x"),
                     num(a and a.get("cpu_us_per_io"), "{:.2f}") + " / " + num(b and b.get("cpu_us_per_io"), "{:.2f}"),
                     num(a and a.get("other_iops"), "{:,.0f}") + " / " + num(b and b.get("other_iops"), "{:,.0f}")))

    def stats(xs):
        xs = sorted(xs)
        if not xs:
            return None, None, None
        mean = sum(xs) / len(xs)
        sd = (sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)) ** 0.5 if len(xs) > 1 else 0.0
        return xs[(len(xs) - 1) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2, mean, sd
    on_i = [r["iops"] for r in t_on.values()]
    off_i = [r["iops"] for r in t_off.values()]
    med_r, mean_r, sd_r = stats(ratios)
    _, mean_on, sd_on = stats(on_i)
    _, mean_off, sd_off = stats(off_i)
    best_r = max(on_i) / max(off_i) if on_i and off_i else None
    head_t = ("pair", "order", "timing on IOPS", "timing off IOPS", "on / off", "off / on",
              "CPU us/IO on / off", "other I/O/s on / off")
    extra_md.append("## Timing cost: ranread.timing on vs off at the peak configuration\n")
    extra_md.extend(simple_table(head_t, rows))
    extra_md.append("")
    summ = (f"median of the pairs' on/off ratios {num(med_r, '{:.3f}x')} (mean {num(mean_r, '{:.3f}x')}, "
            f"sd {num(sd_r, '{:.3f}')}, range {num(min(ratios) if ratios else None, '{:.3f}')}.."
            f"{num(max(ratios) if ratios else None, '{:.3f}')}); best on / best off {num(best_r, '{:.3f}x')}; "
            f"run-to-run spread: on {num(mean_on, '{:,.0f}')} +- {num(sd_on, '{:,.0f}')} IOPS "
            f"({num(sd_on and mean_on and 100 * sd_on / mean_on, '{:.1f}')}%), off {num(mean_off, '{:,.0f}')} "
            f"+- {num(sd_off, '{:,.0f}')} ({num(sd_off and mean_off and 100 * sd_off / mean_off, '{:.1f}')}%)")
    v_t = "n/a" if med_r is None else ("PASS" if med_r >= 0.98 else "FAIL")
    if med_r is not None and sd_r is not None and len(ratios) > 1 and sd_r / len(ratios) ** 0.5 > 0.01:
        v_t += " (noisy: the pairs' ratios vary by more than the 2% being measured)"
    extra_md.append(f"{summ}. Target: timing costs < 2% of IOPS, i.e. the median on/off ratio >= 0.98x. "
                    f"Result: **{v_t}**. Each pair runs on and off back to back (alternating which goes first) "
                    f"with `{next((v for k, v in cmds if k == 'ranread:timing_on'), '')}` and "
                    "`SET ranread.timing = off` (a superuser setting: counts only, no per-I/O clock reads or "
                    "histograms), so drift hits both; the per-pair ratio cancels slow drift, not fast noise.\n")
    extra_verdicts.append(("Timing cost < 2% (median on/off >= 0.98x)", v_t))
    extra_console.append("timing cost: " + summ)
    extra_console.extend(simple_table(head_t, rows))

hpath = os.path.join(out, "history.json")
if os.path.exists(hpath):
    h = json.load(open(hpath))
    rows = []
    hv = []
    for qd in h["queries"]:
        bc = min(qd["client_ms"]) if qd["client_ms"] else None
        bs = min(qd["server_ms"]) if qd["server_ms"] else None
        t = qd.get("target_ms")
        if t is None:
            res = "info"
        elif bc is None:
            res = "n/a"
        else:
            res = "PASS" if max(bc, bs or 0) < t else "FAIL"
            hv.append(res)
        rows.append((f"`{qd['query']}`", num(bc, "{:.3f}"), num(bs, "{:.3f}"),
                     "" if t is None else f"< {t:.0f} ms", res, qd["plan"][:90]))
    head_h = ("query", "best client ms (\\timing)", "best server ms (EXPLAIN ANALYZE)", "target", "result", "plan (top node)")
    extra_md.append(f"## History at scale: {h['batch_rows']:,} batches, {h['result_rows']:,} process rows\n")
    extra_md.extend(simple_table(head_h, rows))
    extra_md.append("")
    extra_md.append(
        f"A throwaway database with the extension; {h['batches']:,} synthetic completed batches of "
        f"{h['processes']} processes inserted directly into ranread_batches and ranread_results with "
        "generate_series (plausible IOPS and latencies; results.histogram is one real "
        f"{h.get('hist_bytes')}-byte histogram from a real 200-I/O batch, batches.histogram NULL), then ANALYZE. "
        f"Loading took {h['load_s']:.1f} s; ranread_batches {h['batches_bytes'] / 1048576:.1f} MiB, ranread_results "
        f"{h['results_bytes'] / 1048576:.1f} MiB (with indexes). Best of 5 executions each: client side from psql's "
        "\\timing (includes sending the rows), server side from EXPLAIN (ANALYZE, BUFFERS) execution time. "
        "A query passes when both are under the target.\n")
    v_h = "PASS" if hv and all(x == "PASS" for x in hv) else "FAIL"
    extra_verdicts.append((f"History: {h['batches']:,} batches x {h['processes']}, both summary queries < 100 ms", v_h))
    extra_console.append(f"history ({h['batches']:,} batches x {h['processes']}):")
    extra_console.extend(simple_table(head_h, rows))

if extra_verdicts:
    extra_md.insert(0, "## Scale, timing cost and history\n")
    extra_md.insert(1, "\n".join(simple_table(("check", "result"), extra_verdicts)) + "\n")


head = ("Configuration", "fio", "ranread", "ratio", "target", "result")
widths = [max(len(str(row[i])) for row in table + [head]) for i in range(6)]


def md_row(row):
    return "| " + " | ".join(str(c).ljust(widths[i]) for i, c in enumerate(row)) + " |"


lines = [md_row(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
lines += [md_row(r) for r in table]
n_pass = sum(1 for r in table if r[5].startswith("PASS"))
n_fail = sum(1 for r in table if r[5].startswith("FAIL"))
summary = f"{n_pass} passed, {n_fail} failed (ratio = ranread / fio; latency and CPU: lower is better)"
if not table:
    lines = [f"(no ranread-vs-fio group in this run: BENCH_CONFIGS was '{machine.get('configs', '?')}')"]
    summary = "no comparison with fio in this run"

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
md.extend(extra_md)
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
if extra_console:
    print()
    print("\n".join(extra_console))
    print()
    print("\n".join(simple_table(("check", "result"), extra_verdicts)))
