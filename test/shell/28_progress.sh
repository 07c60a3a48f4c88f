#!/bin/bash
# ranread_progress, read from a second session while something runs
# (docs/running.md, "Watching a run from another session"), sampled every
# 0.4 s until the call returns:
#  - a run (12 s, 2 s warm-up): its row (kind run, the batch, its target,
#    processes) goes from warming up to running; the I/Os only grow; the
#    IOPS and p99 of its last seconds are there once it measures; the time
#    left falls and the call returns when the row said it would (within
#    a few seconds); eta is now + remaining; its progress line every 5 s in
#    the NOTICE stream; no row once it returned
#  - a sweep (1, 2, 4 processes at most): one row, kind sweep and its id,
#    step 1 of 3, then step 2 of 3 (ranread_progress: 'sweep N', '1 of 3',
#    eta a time of day), each step's batch; the time left a bound
#    for the steps to come; the progress line "sweep N: step i of at most 3,
#    ..." at NOTICE while a step runs (a step's own NOTICEs are DEBUG1)
#  - a study of two points: kind study, point 1 of 2 then 2 of 2, and its
#    progress line
#  - a latency-target search: its window, no count and no time left (it
#    does not know them ahead), and its progress line
#  - a fleet of one node (a second cluster): the coordinator's row (kind
#    fleet, its id, phase running, the time left to the nodes' end) and, on
#    the node, the node's batch of that fleet with its I/Os growing
#  - a setup and a verify: bytes done of the target's size, growing
#  - a role granted 'report' reads the views; nothing is left once all ended
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/lib/cluster.bash"
trap 'faults_cleanup; cluster_stop_all' EXIT

setup_db rr_progress
setup_target 256MB

# one sample of the view per line (every column: ranread_progress_full):
# when (ms), then its columns; eta as seconds from the sample's clock
SAMPLE="SELECT format('%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s',
            (extract(epoch FROM clock_timestamp()) * 1000)::bigint, pid, kind, id, batch, phase, step, steps,
            ios, seconds, iops, p99_ms, extract(epoch FROM remaining),
            round(extract(epoch FROM eta - clock_timestamp())::numeric, 1), bytes_done, bytes_total,
            target, processes)
          FROM ranread_progress_full"
# watch PID FILE [QUERY-RUNNER]: sample until the client PID ends
watch() {
  local pid=$1 out=$2 run=${3:-q}
  : > "$out"
  : > "$out.c"
  while pid_alive "$pid"; do
    $run "$SAMPLE" >> "$out"
    $run "SELECT concat_ws('|', running, batch, phase, step, ios, seconds, iops, p99_ms, eta) FROM ranread_progress" >> "$out.c"
    sleep 0.4
  done
  echo "$(now_ms)" > "$out.end"
}
# the samples of FILE whose kind is KIND (field 3)
rows() { awk -F'|' -v k="$2" '$3 == k' "$1"; }

# --- a run
bg_psql rr_run "SELECT batch FROM ranread_run(2, duration => '12s', warmup => '4s')"
watch "$BG_PID" "$WORK/run.s"
R=$(rows "$WORK/run.s" run)
B=$(latest_batch)
diag "$(echo "$R" | wc -l) samples of the run; first: $(echo "$R" | head -1); last: $(echo "$R" | tail -1)"
is "$(echo "$R" | awk -F'|' -v b="$B" '$4 == b && $5 == b && $17 == "ranread" && $18 == 2 { n++ } END { print (n >= 5) }')" 1 \
   "a second session sees the run: kind run, its batch as id and batch ($B), its target and processes"
is "$(echo "$R" | awk -F'|' '{ p[$6] = 1 } END { print (p["warming up"] ? "w" : "") (p["running"] ? "r" : "") }')" wr \
   "... its phase goes from warming up to running"
is "$(echo "$R" | awk -F'|' '$6 == "running" { if ($9 < last) bad = 1; last = $9; n++; if (n == 1) first = $9 } END { print (!bad && last > first) }')" 1 \
   "... its I/Os only grow while it runs"
is "$(echo "$R" | awk -F'|' '$6 == "running" && $10 >= 3 { n++; if ($11 > 0 && $12 > 0) good++ } END { print (n > 0 && good == n) }')" 1 \
   "... once it has measured a few seconds every sample has the IOPS and p99 of its last seconds"
is "$(echo "$R" | awk -F'|' '$13 == "" || $13 > 17 || ($14 - $13) > 1.5 || ($13 - $14) > 1.5 { bad++ } END { print bad + 0 }')" 0 \
   "... the time left is never more than its warm-up and duration (16 s), and eta is now + remaining"
END_MS=$(cat "$WORK/run.s.end")
is "$(echo "$R" | awk -F'|' -v e="$END_MS" '$6 == "running" && $10 > 2 && $10 < 9 {
        d = (e - $1) / 1000 - $13; if (d < -1 || d > 5) bad++; n++ } END { print (n > 0 && !bad) }')" 1 \
   "... and the call returns when the row said it would (within -1 to +5 s of remaining)"
grep -Eq "^NOTICE: +ranread batch $B: [0-9]+ s of 12, [0-9]+ I/Os: [0-9]+ IOPS, p99 [0-9]+\.[0-9]{3} ms; 00:00:[0-9]{2} left, done at about [0-2][0-9]:[0-5][0-9]:[0-5][0-9]$" "$WORK/rr_run.out"
ok $? "the run says its progress every 5 s: 'ranread batch $B: 5 s of 12, N I/Os: N IOPS, p99 X ms; 00:00:07 left, done at about HH:MM:SS'"
is "$(q "SELECT count(*) FROM ranread_progress")" 0 "once it returned, ranread_progress has no row"

# --- a sweep: 1, 2, 4 processes at most
bg_psql rr_sweep "SET client_min_messages = notice" \
  "SELECT count(*) FROM ranread_sweep(start => 1, max_processes => 4, duration => '7s', max_avg_ms => 1000)"
watch "$BG_PID" "$WORK/sweep.s"
S=$(q "SELECT max(sweep) FROM ranread_sweeps")
R=$(rows "$WORK/sweep.s" sweep)
diag "$(echo "$R" | wc -l) samples of sweep $S; e.g. $(echo "$R" | sed -n 5p)"
is "$(echo "$R" | awk -F'|' -v s="$S" '$4 != s { bad++ } { k[$7 "/" $8] = 1 } END { print (!bad && k["1/3"] && k["2/3"]) }')" 1 \
   "a second session sees the sweep (its id $S): step 1 of 3, then step 2 of 3"
is "$(awk -F'|' -v s="sweep $S" '$1 == s && $3 == "running" && $9 ~ /^([0-2][0-9]:[0-5][0-9]:[0-5][0-9]|[0-3][0-9] [A-Z][a-z][a-z] [0-2][0-9]:[0-5][0-9])$/ { k[$4] = 1 } END { print (k["1 of 3"] && k["2 of 3"]) }' "$WORK/sweep.s.c")" 1 \
   "... and the row a person reads (ranread_progress) says 'sweep $S', running, '1 of 3' then '2 of 3', eta as HH:MM:SS"
is "$(q "SELECT count(DISTINCT batch) FROM ranread_batches WHERE sweep = $S")" \
   "$(echo "$R" | awk -F'|' '$5 != "" { b[$5] = 1 } END { print length(b) }')" \
   "... each step's batch in its row, as the history has them"
is "$(echo "$R" | awk -F'|' '$7 == 1 && $6 == "running" { n++; if ($13 <= 7 || $13 > 22) bad++ } END { print (n > 0 && !bad) }')" 1 \
   "... during step 1 the time left is a bound for the steps that may follow (more than 7 s, at most 3 x 7 s)"
grep -Eq "^NOTICE: +sweep $S: step 1 of at most 3, 1 process, [0-9]+ s of 7: [0-9]+ IOPS, p99 [0-9]+\.[0-9]{3} ms; 00:00:[0-9]{2} left at most, done by about [0-2][0-9]:[0-5][0-9]:[0-5][0-9]$" "$WORK/rr_sweep.out" &&
  grep -Eq "^NOTICE: +sweep $S: step 2 of at most 3, 2 processes, " "$WORK/rr_sweep.out"
ok $? "the sweep says its progress while a step runs: 'sweep $S: step 1 of at most 3, 1 process, 5 s of 7: ...; 00:00:16 left at most, done by about HH:MM:SS'"

# --- a study of two points
bg_psql rr_study "SELECT count(*) FROM ranread_study(processes => '{1,2}', duration => '7s')"
watch "$BG_PID" "$WORK/study.s"
ST=$(q "SELECT max(study) FROM ranread_studies")
R=$(rows "$WORK/study.s" study)
is "$(echo "$R" | awk -F'|' -v s="$ST" '$4 != s { bad++ } { k[$7 "/" $8] = 1; if ($6 == "running" && $9 > 0) io = 1 } END { print (!bad && k["1/2"] && k["2/2"] && io) }')" 1 \
   "a second session sees the study (its id $ST): point 1 of 2, then 2 of 2, with its batch's I/Os"
is "$(echo "$R" | awk -F'|' '$7 == 1 && $6 == "running" { n++; if ($13 < 6.5 || $13 > 20) bad++ } END { print (n > 0 && !bad) }')" 1 \
   "... during point 1 the time left counts point 2 too"
grep -Eq "^NOTICE: +study $ST: point 1 of 2, 1 process, [0-9]+ s of 7: [0-9]+ IOPS, p99 [0-9]+\.[0-9]{3} ms; 00:00:[0-9]{2} left, done at about " "$WORK/rr_study.out"
ok $? "the study says its progress while a point runs: 'study $ST: point 1 of 2, 1 process, 5 s of 7: ...'"

# --- a latency-target search (windows of 6 s, up to queue depth 2)
bg_psql rr_search "SELECT count(*) FROM ranread_latency_target(1000, max_load => 2, duration => '6s')"
watch "$BG_PID" "$WORK/search.s"
LT=$(q "SELECT last_value FROM ranread_latency_target_seq")
R=$(rows "$WORK/search.s" latency_target)
is "$(echo "$R" | awk -F'|' -v s="$LT" '$4 != s { bad++ } $7 == 1 && $8 == "" && $6 == "running" && $9 > 0 { w1++ } END { print (!bad && w1 > 0) }')" 1 \
   "a second session sees the latency-target search (its id $LT): window 1 (of a count it does not know), its batch's I/Os"
grep -Eq "^NOTICE: +latency target $LT: window 1, 1 process, [0-9]+ s of 6: [0-9]+ IOPS, p99 [0-9]+\.[0-9]{3} ms$" "$WORK/rr_search.out"
ok $? "... and its progress line: 'latency target $LT: window 1, 1 process, 5 s of 6: N IOPS, p99 X ms' (no time left it cannot know)"

# --- a setup and a verify
bg_psql rr_setup "SELECT target FROM ranread_setup('3GB', target => 'big')"
watch "$BG_PID" "$WORK/setup.s"
R=$(rows "$WORK/setup.s" setup)
diag "setup samples: $(echo "$R" | awk -F'|' '{ printf "%s/%s ", $15, $16 }')"
is "$(echo "$R" | awk -F'|' '$17 == "big" && $16 == 3221225472 { if ($15 < last) bad++; last = $15; n++ } END { print (n > 0 && !bad) }')" 1 \
   "a second session sees the setup of target big: bytes done of its 3 GB, growing"
bg_psql rr_verify "SELECT blocks FROM ranread_verify('big')"
watch "$BG_PID" "$WORK/verify.s"
R=$(rows "$WORK/verify.s" verify)
diag "verify samples: $(echo "$R" | awk -F'|' '{ printf "%s/%s ", $15, $16 }')"
is "$(echo "$R" | awk -F'|' '$17 == "big" && $16 == 3221225472 && $6 == "reading" { if ($15 < last) bad++; last = $15; n++ } END { print (n > 0 && !bad) }')" 1 \
   "... and ranread_verify of it: phase reading, bytes read of 3 GB, growing"

# --- a probe
q "SELECT target FROM ranread_probe_setup('pg_default')" >/dev/null
bg_psql rr_probe "SELECT batch FROM ranread_probe('pg_default', duration => '6s')"
watch "$BG_PID" "$WORK/probe.s"
is "$(rows "$WORK/probe.s" probe | awk -F'|' '$4 == $5 && $5 != "" && $18 == 1 { n++ } END { print (n > 0) }')" 1 \
   "a probe shows as kind probe, its batch, one process"

# --- a role granted 'report' reads it
q "CREATE ROLE rr_progress_reader; SELECT count(*) FROM ranread_grant('rr_progress_reader', 'report')" >/dev/null
bg_psql rr_run2 "SELECT batch FROM ranread_run(1, duration => '30s')"
wait_running 20
is "$(q "SET ROLE rr_progress_reader; SELECT count(*) FROM ranread_progress WHERE running LIKE 'run %'")|$(q "SET ROLE rr_progress_reader; SELECT count(*) FROM ranread_progress_full WHERE kind = 'run'")" "1|1" \
   "a role granted 'report' reads ranread_progress and ranread_progress_full"
q "SELECT ranread_stop()" >/dev/null
wait_pid "$BG_PID" 30

# --- a fleet of one node, a second cluster
d="$WORK/node1"
cluster_init "$d"
cluster_conf "$d" "shared_buffers = 16MB" "max_worker_processes = 16" "fsync = off"
p=$(free_port)
cluster_start "$d" "$p"
qc "$d" "$p" postgres "CREATE DATABASE fleet" >/dev/null
qc "$d" "$p" fleet "CREATE EXTENSION ranread" >/dev/null
qc "$d" "$p" fleet "SELECT target FROM ranread_setup('32MB')" >/dev/null
qnode() { qc "$d" "$p" fleet "$1"; }
bg_psql rr_fleet "SELECT node, status FROM ranread_fleet(ARRAY['host=$d port=$p dbname=fleet user=postgres'], 1, duration => '8s')"
FLEET_CLIENT=$BG_PID
watch "$FLEET_CLIENT" "$WORK/fleet.s" &
WATCH_COORD=$!
watch "$FLEET_CLIENT" "$WORK/node.s" qnode
wait "$WATCH_COORD"
F=$(q "SELECT max(fleet) FROM ranread_fleets")
R=$(rows "$WORK/fleet.s" fleet)
diag "coordinator: $(echo "$R" | awk -F'|' '{ print $6 }' | uniq | tr '\n' ' ')"
is "$(echo "$R" | awk -F'|' -v f="$F" '$4 == f && $6 == "running" { n++; if ($13 == "" || $13 > 12) bad++ } END { print (n > 0 && !bad) }')" 1 \
   "a second session on the coordinator sees fleet $F running, the time left to its nodes' end (at most 8 s and the start delay)"
R=$(rows "$WORK/node.s" fleet)
is "$(echo "$R" | awk -F'|' -v f="$F" '$4 == f && $5 != "" && $6 == "running" { if ($9 < last) bad++; last = $9; n++; if (n == 1) first = $9 } END { print (n > 1 && !bad && last > first) }')" 1 \
   "... and a session on the node sees the node's batch of fleet $F, its I/Os growing"
is "$(q "SELECT count(*) FROM ranread_progress")|$(qnode "SELECT count(*) FROM ranread_progress")" "0|0" \
   "nothing is left in ranread_progress on either server once all ended"

done_testing
