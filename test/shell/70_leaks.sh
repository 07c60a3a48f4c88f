#!/bin/bash
# 100 batches in a row (completed, cancelled by statement_timeout, stopped by
# ranread_stop) leak nothing: batch 101 runs like batch 1, no background
# worker slot is left taken (a run that needs every free slot still gets
# them all), no dynamic shared memory segment is left, the postmaster's file
# descriptors and memory stay put.  Then max_worker_processes exhausted by
# other work (parallel queries): a clear error when no slot is free, fewer
# workers and a NOTICE when some are, never a hang.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_leaks
setup_target 32MB
PM=$(postmaster_pid)
MAXW=$(q "SHOW max_worker_processes")

pm_fds() { ls "/proc/$PM/fd" | wc -l; }
pm_kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$PM/status"; }
shm_files() { local f n=0; for f in /dev/shm/PostgreSQL.*; do [ -e "$f" ] && n=$((n + 1)); done; echo "$n"; }

# --- batch 1, and a batch that takes every free worker slot
first=$(q "SELECT status || '|' || reads FROM ranread_run(2, 200)")
FIRST=$(latest_batch)
is "$first" "completed|400" "batch 1: 2 processes x 200 reads complete"
q "SELECT status FROM ranread_run($MAXW, 200, workers => $MAXW)" >/dev/null
FREE=$(q "SELECT workers FROM ranread_batches WHERE batch = $(latest_batch)")
diag "max_worker_processes $MAXW, a batch asking for $MAXW workers got ${FREE:-none}"
cmp_ok "${FREE:-0}" '>=' 2 "a batch asking for every worker slot gets the free ones"

fds0=$(pm_fds); anon0=$(pm_kb RssAnon); rss0=$(pm_kb VmRSS); dsm0=$(dsm_segments); shm0=$(shm_files)
diag "postmaster $PM: $fds0 fds, RssAnon $anon0 kB, VmRSS $rss0 kB; DSM live/files: $dsm0; /dev/shm PostgreSQL.*: $shm0"

# --- 100 batches: 10 rounds of 8 completed and 1 cancelled back to back in
# one session, then 1 stopped from another session
t0=$(now_ms)
START_BATCH=$(( $(latest_batch) + 1 ))
: > "$WORK/soak.out"
for round in $(seq 1 10); do
  {
    for i in $(seq 1 8); do
      echo "SELECT status FROM ranread_run(1 + ($i + $round) % 2, 200, seed => $round$i);"
    done
    echo "SET statement_timeout = '300ms';"
    echo "SELECT status FROM ranread_run(1, duration => '10s');"
    echo "RESET statement_timeout;"
  } | timeout 60 psql -qAtX -d "$DB" >> "$WORK/soak.out" 2>&1
  bg_psql rr_soak_stop "SELECT status FROM ranread_run(2, duration => '20s')"
  wait_running 15 || diag "round $round: the batch to stop did not start"
  q "SELECT ranread_stop()" >/dev/null
  wait_pid "$BG_PID" 10 || diag "round $round: the stopped batch's caller did not return"
  bg_output rr_soak_stop >> "$WORK/soak.out"
  [ $(( $(now_ms) - t0 )) -gt 150000 ] && { diag "soak takes too long, stopping after round $round"; break; }
done
diag "100 batches in $(secs "$t0" "$(now_ms)") s"
END_BATCH=$(latest_batch)
is "$(grep -c 'already running' "$WORK/soak.out")" 0 "no batch was refused as 'already running' right after the previous one returned"
grep -E '^ERROR' "$WORK/soak.out" | grep -v 'statement timeout' | sort | uniq -c | head -5 | sed 's/^/#   /'
is "$(q "SELECT string_agg(status || ':' || n, ',' ORDER BY status) FROM
           (SELECT status, count(*) n FROM ranread_batches WHERE batch >= $START_BATCH GROUP BY status) s")" \
  "cancelled:10,completed:80,stopped:10" "100 batches recorded: 80 completed, 10 cancelled, 10 stopped"
is "$(q "SELECT count(*) FROM ranread_results WHERE batch >= $START_BATCH")" \
  "$(q "SELECT sum(processes) FROM ranread_batches WHERE batch >= $START_BATCH")" "... each with one result row per process"
wait_workers_gone 5
ok $? "no ranread worker is left after 100 batches"

# back to back inside one statement, as ranread_sweep runs its steps
out=$(timeout 120 psql -qAtX -d "$DB" -c "SET client_min_messages = warning" -c "DO \$\$
  DECLARE refused int := 0; s text;
  BEGIN
    FOR i IN 1..30 LOOP
      BEGIN
        SELECT status INTO s FROM ranread_run(1 + i % 2, 50);
      EXCEPTION WHEN object_in_use THEN refused := refused + 1;
      END;
    END LOOP;
    RAISE WARNING 'refused: %', refused;
  END \$\$" 2>&1)
is "$(echo "$out" | sed -n 's/^WARNING: *refused: //p')" 0 \
  "30 batches back to back in one statement (as ranread_sweep runs its steps): none is refused as already running"

# right after a batch returns, its worker slots are free again
out=$(timeout 120 psql -qAtX -d "$DB" -c "SET client_min_messages = warning" -c "DO \$\$
  DECLARE short int := 0; b bigint; w int;
  BEGIN
    FOR i IN 1..10 LOOP
      PERFORM ranread_run(2, 50, workers => 2);
      SELECT batch INTO b FROM ranread_run($MAXW, 50, workers => $MAXW);
      SELECT workers INTO w FROM ranread_batches WHERE batch = b;
      IF w < $FREE THEN short := short + 1; END IF;
    END LOOP;
    RAISE WARNING 'short-handed: %', short;
  END \$\$" 2>&1)
is "$(echo "$out" | sed -n 's/^WARNING: *short-handed: //p')" 0 \
  "a batch needing every free worker slot, started the moment another batch returns, gets all $FREE (10 tries)"
echo "$out" | grep -E '^ERROR' | sed 's/^/#   /'

# --- the next batch runs like batch 1
is "$(q "SELECT status || '|' || reads FROM ranread_run(2, 200)")" "completed|400" "after them, the next batch completes like batch 1"
is "$(q "SELECT workers FROM ranread_batches WHERE batch = $(latest_batch)")" \
  "$(q "SELECT workers FROM ranread_batches WHERE batch = $FIRST")" "... with as many workers as batch 1"
q "SELECT status FROM ranread_run($MAXW, 200, workers => $MAXW)" >/dev/null
is "$(q "SELECT status || '|' || workers FROM ranread_batches WHERE batch = $(latest_batch)")" "completed|$FREE" \
  "a batch asking for every worker slot still gets all $FREE free ones: no slot leaked"
wait_workers_gone 5
sleep 0.5

fds1=$(pm_fds); anon1=$(pm_kb RssAnon); rss1=$(pm_kb VmRSS); dsm1=$(dsm_segments); shm1=$(shm_files)
diag "postmaster $PM: $fds1 fds, RssAnon $anon1 kB, VmRSS $rss1 kB; DSM live/files: $dsm1; /dev/shm PostgreSQL.*: $shm1"
is "$dsm1" "$dsm0" "no dynamic shared memory segment leaked (segments in use and their /dev/shm files: $dsm1)"
[ "$shm1" -gt "$shm0" ] && diag "note: /dev/shm holds $((shm1 - shm0)) more PostgreSQL.* files; other clusters on this machine share it"
cmp_ok "$fds1" '<=' "$((fds0 + 2))" "the postmaster's file descriptors did not grow ($fds0 -> $fds1)"
cmp_ok "$((anon1 - anon0))" '<' 4096 "the postmaster's private memory is stable (RssAnon $anon0 -> $anon1 kB)"
cmp_ok "$((rss1 - rss0))" '<' 16384 "the postmaster's RSS is roughly stable (VmRSS $rss0 -> $rss1 kB)"

# --- worker slots taken by other work: parallel queries hold them
q "CREATE TABLE rr_hold (i int) WITH (fillfactor = 10, autovacuum_enabled = off);
   INSERT INTO rr_hold SELECT generate_series(1, 20000); ANALYZE rr_hold" >/dev/null

# hold N: a parallel query whose N workers sleep a little on every row;
# HELD gets how many parallel workers run
hold() {
  q "ALTER TABLE rr_hold SET (parallel_workers = $1)" >/dev/null
  bg_psql rr_holder "SET max_parallel_workers_per_gather = $1" "SET max_parallel_workers = $MAXW" \
    "SET parallel_setup_cost = 0" "SET parallel_tuple_cost = 0" "SET min_parallel_table_scan_size = 0" \
    "SET statement_timeout = '90s'" "SELECT count(*) FROM rr_hold WHERE pg_sleep(0.005) IS NOT NULL"
  HOLDER=$BG_PID
  local deadline=$(( $(now_ms) + 20000 ))
  until [ "$(psql -qAtX -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'parallel worker'")" -ge "$1" ] ||
        [ "$(now_ms)" -ge "$deadline" ]; do sleep 0.1; done
  HELD=$(psql -qAtX -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'parallel worker'")
}
release() {
  psql -qAtX -d postgres -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'rr_holder' AND backend_type = 'client backend'" >/dev/null
  wait_pid "$HOLDER" 15
  local deadline=$(( $(now_ms) + 10000 ))
  until [ "$(psql -qAtX -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'parallel worker'")" = 0 ] ||
        [ "$(now_ms)" -ge "$deadline" ]; do sleep 0.1; done
}

hold "$FREE"
is "$HELD" "$FREE" "a parallel query holds all $FREE free worker slots"
t0=$(now_ms)
msg=$(timeout 60 psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SELECT status FROM ranread_run(1, 200)" 2>&1)
t1=$(now_ms)
cmp_ok "$(secs "$t0" "$t1")" '<' 10 "with no worker slot free, ranread_run returns at once ($(secs "$t0" "$t1") s), no hang"
echo "$msg" | grep -Eq '^ERROR: +53[0-9A-Z]{3}: '
ok $? "... with an error of class 53 (insufficient resources)"
echo "$msg" | grep -E '^(ERROR|DETAIL|HINT)' | sed 's/^/#   /'
echo "$msg" | grep -q 'max_worker_processes'
ok $? "... that names max_worker_processes"
is "$(ranread_workers)|$(q "SELECT count(*) FROM ranread_batches WHERE status = 'running'")" "0|0" "... and leaves no worker and no running batch"
release

if [ "$FREE" -ge 3 ]; then
  hold $((FREE - 2))
  is "$HELD" "$((FREE - 2))" "a parallel query holds all but 2 free worker slots"
  msg=$(timeout 60 psql -qAtX -d "$DB" -c "SELECT status || '|' || reads FROM ranread_run(4, 200, workers => 4)" 2>&1)
  echo "$msg" | grep -Eq '^NOTICE: .*only 2 of 4'
  ok $? "with 2 slots free, a batch asking for 4 workers says so in a NOTICE"
  echo "$msg" | grep -Ei 'only|free' | sed 's/^/#   /'
  echo "$msg" | grep -Eq '^completed\|800$'
  ok $? "... and completes all 4 x 200 reads with the 2 workers it got"
  is "$(q "SELECT workers FROM ranread_batches WHERE batch = $(latest_batch)")" 2 "... recording 2 workers"
  release
else
  ok 0 "# SKIP only $FREE worker slots free"; ok 0 "# SKIP"; ok 0 "# SKIP"; ok 0 "# SKIP"
fi
is "$(q "SELECT status FROM ranread_run(2, 200)")" completed "once the parallel queries end, batches run again"
q "SELECT status FROM ranread_run($MAXW, 200, workers => $MAXW)" >/dev/null
is "$(q "SELECT workers FROM ranread_batches WHERE batch = $(latest_batch)")" "$FREE" "... and get every free slot again"
wait_workers_gone 5
ok $? "no ranread worker is left at the end"
sleep 0.5
is "$(dsm_segments)" "$dsm0" "no dynamic shared memory segment leaked by the refused and the short-handed batches either"
cmp_ok "$(pm_fds)" '<=' "$((fds0 + 2))" "nor a postmaster file descriptor"
done_testing
