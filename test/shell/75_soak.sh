#!/bin/bash
# Soak: RANREAD_SOAK_BATCHES (default 200) batches in a row with
# mixed options, chosen at random (seeded, the seed is printed): processes
# 1..8, queue_depth 1..8, block_size 4096/8192/65536, write_pct 0/10,
# pattern random/sequential, region slices, warmup 0/100ms, rate_iops
# NULL/500, duration 200ms or 50..300 iterations, both engines; about 10%
# stopped by ranread_stop() from a second session and 10% cancelled by
# statement_timeout.  Then: every batch recorded with the status it should
# have and none left 'running', no ranread worker left, no dynamic shared
# memory segment leaked, the postmaster's file descriptors and memory stable.
# A slow variant: RANREAD_SOAK_BATCHES=2000.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

N=${RANREAD_SOAK_BATCHES:-200}
SEED=${RANREAD_SOAK_SEED:-$$}
RANDOM=$SEED
diag "$N batches, seed $SEED (RANREAD_SOAK_SEED=$SEED repeats this choice)"

setup_db rr_soak
setup_target 64MB
PM=$(postmaster_pid)
MARK=$(log_mark)
# worker slots free for ranread (the logical replication launcher takes one)
SYNC_MAX=$(( $(q "SHOW max_worker_processes") - 1 ))
[ "$SYNC_MAX" -gt 8 ] && SYNC_MAX=8
pm_fds() { ls "/proc/$PM/fd" | wc -l; }
pm_kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$PM/status"; }
shm_files() { local f n=0; for f in /dev/shm/PostgreSQL.*; do [ -e "$f" ] && n=$((n + 1)); done; echo "$n"; }

# the engines this machine can run (io_uring may be unavailable, e.g. seccomp)
ENGINES=(sync)
if [ "$(q "SET ranread.engine = io_uring; SELECT status FROM ranread_run(1, 50)")" = completed ]; then
  ENGINES+=(io_uring)
else
  diag "io_uring engine unavailable here: only the sync engine is soaked"
fi
# a first batch of each kind, so that one-time allocations are done before the baseline
q "SELECT status FROM ranread_run(2, 50, write_pct => 10)" >/dev/null
sleep 0.5
fds0=$(pm_fds); anon0=$(pm_kb RssAnon); rss0=$(pm_kb VmRSS); dsm0=$(dsm_segments); shm0=$(shm_files)
diag "before: postmaster $PM: $fds0 fds, RssAnon $anon0 kB, VmRSS $rss0 kB; DSM live/files: $dsm0; /dev/shm PostgreSQL.*: $shm0"
START_BATCH=$(( $(latest_batch) + 1 ))

pick() { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }

# one random set of options: sets ENGINE and ARGS (ranread_run's arguments
# after processes), for a batch of KIND normal, stop or cancel
choose() {
  local kind=$1 p qd bs wp pat rs re wu rate len
  ENGINE=$(pick "${ENGINES[@]}")
  # the sync engine needs a worker per process: at most the free slots
  if [ "$ENGINE" = sync ]; then p=$((1 + RANDOM % SYNC_MAX)); qd=1; else p=$((1 + RANDOM % 8)); qd=$((1 + RANDOM % 8)); fi
  bs=$(pick 4096 8192 65536)
  wp=$(pick 0 10); [ "$bs" = 4096 ] && wp=0      # writes are whole pages
  pat=$(pick random sequential)
  rs=$(pick 0 0 10 25 50); re=$((rs + $(pick 10 25 50)))
  wu=$(pick 0 100ms)
  rate=$(pick NULL NULL 500)
  case $kind in
    normal) if [ "$rate" = NULL ] && [ $((RANDOM % 2)) = 0 ]; then
              len="$((50 + RANDOM % 251)), duration => NULL"
            else
              len="NULL, duration => '200ms'"
            fi ;;
    *) len="NULL, duration => '20s'" ;;
  esac
  ARGS="$p, $len, block_size => $bs, write_pct => $wp, queue_depth => $qd, pattern => '$pat',
        region_start => $rs, region_end => $re, warmup => '$wu', rate_iops => $rate"
}

# the plan: N kinds, about 10% stop and 10% cancel, in random order
KINDS=()
for i in $(seq 1 "$N"); do
  r=$((RANDOM % 10))
  if [ $r = 0 ]; then KINDS+=(stop); elif [ $r = 1 ]; then KINDS+=(cancel); else KINDS+=(normal); fi
done
n_stop=0; n_cancel=0; n_normal=0
: > "$WORK/soak.out"
: > "$WORK/script.sql"
flush() {
  [ -s "$WORK/script.sql" ] || return 0
  timeout 300 psql -qAtX -d "$DB" -f "$WORK/script.sql" >> "$WORK/soak.out" 2>&1
  : > "$WORK/script.sql"
}

t0=$(now_ms)
for kind in "${KINDS[@]}"; do
  choose "$kind"
  case $kind in
    normal)
      n_normal=$((n_normal + 1))
      echo "SET ranread.engine = $ENGINE; SELECT 'batch:' || status FROM ranread_run($ARGS);" >> "$WORK/script.sql" ;;
    cancel)
      n_cancel=$((n_cancel + 1))
      echo "SET ranread.engine = $ENGINE; SET statement_timeout = '$(pick 200 300 500)ms';
            SELECT 'batch:' || status FROM ranread_run($ARGS); RESET statement_timeout;" >> "$WORK/script.sql" ;;
    stop)
      n_stop=$((n_stop + 1))
      flush
      bg_psql rr_soak_stop "SET ranread.engine = $ENGINE" "SELECT 'batch:' || status FROM ranread_run($ARGS)"
      wait_running 15 || diag "the batch to stop did not start: $ARGS"
      q "SELECT ranread_stop()" >/dev/null
      wait_pid "$BG_PID" 10 || diag "the stopped batch's caller did not return"
      bg_output rr_soak_stop >> "$WORK/soak.out" ;;
  esac
  if [ ${#KINDS[@]} -le 200 ] && [ $(( $(now_ms) - t0 )) -gt 170000 ]; then
    diag "the soak takes too long: stopping early"; break
  fi
done
flush
t1=$(now_ms)
END_BATCH=$(latest_batch)
TOTAL=$((n_normal + n_cancel + n_stop))
diag "$TOTAL batches ($n_normal to complete, $n_cancel cancelled, $n_stop stopped) in $(secs "$t0" "$t1") s"

# --- every batch recorded, with the status it should have
errors=$(grep -E '^(psql:.*)?ERROR' "$WORK/soak.out" | grep -v 'statement timeout')
is "$errors" "" "no batch ended in an error other than the statement timeout"
if [ -n "$errors" ]; then
  echo "$errors" | sed 's/^psql:[^ ]* //' | sort | uniq -c | head -10 | sed 's/^/#   /'
  diag "what came before the first refusals:"
  grep -B3 -m2 'could be started' "$WORK/soak.out" | grep -v '^DETAIL' | sed 's/^psql:[^ ]* /#     /'
fi
is "$(q "SELECT count(*) FROM ranread_batches WHERE batch >= $START_BATCH")" "$TOTAL" "all $TOTAL batches are recorded"
is "$(q "SELECT count(*) FROM ranread_batches WHERE status = 'running'")" 0 "no batch is left 'running'"
# A batch of 200 ms whose storage or workers stalled through all of it
# measured nothing and says so ('failed', "no I/O was measured: none
# started ..."): the truth about a stall of this shared machine, not a
# fault of ranread; counted apart, and shown.
n_stalled=$(q "SELECT count(*) FROM ranread_batches WHERE batch >= $START_BATCH AND status = 'failed'
                 AND message LIKE 'no I/O was measured: none started %stalled%'")
[ "$n_stalled" -gt 0 ] && diag "$n_stalled batches measured nothing: the storage or the workers stalled through them"
n_done=$((n_normal - n_stalled))
got=$(q "SELECT coalesce(string_agg(status || ':' || n, ',' ORDER BY status), '') FROM
           (SELECT status, count(*) n FROM ranread_batches WHERE batch >= $START_BATCH GROUP BY status) s")
want=$( { [ $n_cancel -gt 0 ] && echo "cancelled:$n_cancel"; echo "completed:$n_done"; [ "$n_stalled" -gt 0 ] && echo "failed:$n_stalled"; [ $n_stop -gt 0 ] && echo "stopped:$n_stop"; } | paste -sd,)
is "$got" "$want" "statuses: $n_done completed, $n_cancel cancelled, $n_stop stopped (and $n_stalled stalled through)"
is "$(grep -c '^batch:completed' "$WORK/soak.out")" "$n_done" "... and each completed batch's caller got its row"
is "$(q "SELECT count(*) FROM ranread_batches b WHERE batch >= $START_BATCH AND status = 'completed'
           AND (reads + coalesce(writes, 0) = 0)")" 0 "every completed batch did I/O"
q "SELECT 'no I/O: ' || row_to_json(b) FROM ranread_batches b WHERE batch >= $START_BATCH AND status = 'completed'
     AND (reads + coalesce(writes, 0) = 0)" | sed 's/^/#   /'
is "$(q "SELECT count(*) FROM ranread_batches b WHERE batch >= $START_BATCH
           AND (SELECT count(*) FROM ranread_results r WHERE r.batch = b.batch) <> b.processes")" 0 \
  "every batch has one result row per process"
wait_workers_gone 5
ok $? "no ranread worker is left in pg_stat_activity"

# --- the next batch still runs
is "$(q "RESET ranread.engine; SELECT status || '|' || reads FROM ranread_run(2, 200)")" "completed|400" \
  "after the soak, a batch of 2 x 200 reads completes"
wait_workers_gone 5
sleep 0.5

# --- a batch refused for want of worker slots gives its slots back before
# it returns, as a finished batch does (the next batch must not find them taken)
out=$(psql -qAtX -d "$DB" -c "SET client_min_messages = error" -c "SET ranread.engine = sync" \
        -c "SELECT status FROM ranread_run($((SYNC_MAX + 1)), 50)" -c "SELECT 'next:' || status FROM ranread_run(1, 50)" 2>&1)
diag "$(echo "$out" | sed 's/^/  /')"
is "$(echo "$out" | grep -m1 -c 'ERROR: *only [0-9]* of the [0-9]* background workers')" 1 "a sync batch of $((SYNC_MAX + 1)) processes is refused for want of worker slots"
is "$(echo "$out" | grep '^next:')" "next:completed" "... and the next batch, right after, gets its worker"
wait_workers_gone 5

# --- nothing leaked in the postmaster
fds1=$(pm_fds); anon1=$(pm_kb RssAnon); rss1=$(pm_kb VmRSS); dsm1=$(dsm_segments); shm1=$(shm_files)
diag "after: postmaster $PM: $fds1 fds, RssAnon $anon1 kB, VmRSS $rss1 kB; DSM live/files: $dsm1; /dev/shm PostgreSQL.*: $shm1"
is "$(postmaster_pid)" "$PM" "the postmaster did not restart"
no_crash "$MARK" "... and nothing crashed (a crash restart keeps the postmaster: no PANIC, no process terminated by a signal in its log)"
is "$dsm1" "$dsm0" "no dynamic shared memory segment leaked (in use by this cluster, and their /dev/shm files: $dsm1)"
[ "$shm1" -gt "$shm0" ] && diag "note: /dev/shm holds $((shm1 - shm0)) more PostgreSQL.* files; other clusters on this machine share it"
cmp_ok "$fds1" '<=' "$((fds0 + 2))" "the postmaster's file descriptors did not grow ($fds0 -> $fds1)"
cmp_ok "$((anon1 - anon0))" '<' 4096 "the postmaster's private memory is stable (RssAnon $anon0 -> $anon1 kB)"
cmp_ok "$((rss1 - rss0))" '<' 16384 "the postmaster's RSS is roughly stable (VmRSS $rss0 -> $rss1 kB)"

done_testing
