#!/bin/bash
# Processes are independent streams, each timed as its own process would be
# (docs/design.md, "Processes, streams, workers, engines"; src/run/placement.c),
# on this machine's own disk, with the README's mix: 16 x 8 KiB random reads
# beside one 1 MiB sequential scan at QD4.
#  - a worker drives the processes of one group only, and each process's
#    worker is in the history (ranread_results.worker, ranread_groups.workers)
#  - the oltp processes come out alike whichever worker drives them: their
#    IOPS within 1.5x of each other.  On 1.1 the 8 sharing the scan's worker
#    each did exactly a quarter of the scan's reads (a convoy: one worker
#    reaped them with the scan's), the other 8 about twice as many
#  - no oltp process has the scan's histogram: each one's median is below
#    the scan's, and none has the scan's p50, p95 and p99.  On 1.1 those 8
#    had the scan's percentiles to the microsecond
#  - the start NOTICE says how the processes were divided; a mix told to
#    share one worker says so, in the NOTICE and the batch's notes, and a
#    plain batch on fewer workers than processes says how many each drives
. "$(dirname "$0")/lib/lib.sh"

setup_db rr_streams
trap 'psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_streams" >/dev/null 2>&1' EXIT
q "SELECT target FROM ranread_setup('512MB')" >/dev/null

MIX='[{"label": "oltp", "processes": 16}, {"label": "scan", "processes": 1, "block_size": 1048576, "pattern": "sequential", "queue_depth": 4}]'
# msgs SQL: the messages of SQL at client_min_messages = notice
msgs() { psql -qAtX -d rr_streams -c "SET client_min_messages = notice" -c "$1" 2>&1 >/dev/null; }

out=$(msgs "SELECT * FROM ranread_mix('$MIX', duration => '6s')")
B=$(q "SELECT max(batch) FROM ranread_batches")
diag "$(q "SELECT format('%s workers; %s', b.workers, string_agg(format('%s: %s workers, %s IOPS, p50 %s ms, p99 %s ms', g.label, g.workers,
               round(g.iops), round(g.p50_ms::numeric, 3), round(g.p99_ms::numeric, 3)), '; ' ORDER BY g.grp))
             FROM ranread_batches b JOIN ranread_groups g USING (batch) WHERE batch = $B GROUP BY b.workers")"
diag "oltp reads per process (worker): $(q "SELECT string_agg(format('%s (%s)', reads, worker), ' ' ORDER BY process) FROM ranread_results WHERE batch = $B AND grp = 1")"
is "$(q "SELECT status FROM ranread_batches WHERE batch = $B")" completed "the README's mix completes"

is "$(q "SELECT count(*) FROM (SELECT worker FROM ranread_results WHERE batch = $B GROUP BY worker HAVING count(DISTINCT grp) > 1) x")" 0 \
  "no worker drives processes of both groups"
is "$(q "SELECT count(*) FILTER (WHERE worker IS NULL) || ' ' ||
                ((SELECT sum(workers) FROM ranread_groups WHERE batch = $B) = (SELECT workers FROM ranread_batches WHERE batch = $B))
         FROM ranread_results WHERE batch = $B")" "0 true" \
  "every process's worker is recorded, and the groups' workers add up to the batch's"
is "$(q "SELECT bool_and(workers = (SELECT count(DISTINCT worker) FROM ranread_results r WHERE r.batch = g.batch AND r.grp = g.grp))
         FROM ranread_groups g WHERE batch = $B")" t "each group's count of workers is the workers its processes name"

spread=$(q "SELECT round(max(reads)::numeric / greatest(min(reads), 1), 3) FROM ranread_results WHERE batch = $B AND grp = 1")
cmp_ok "$spread" '<=' 1.5 "the oltp processes' IOPS are within 1.5x of each other, whichever worker drives them ($spread)"
is "$(q "SELECT count(*) FROM ranread_results o, ranread_results s
          WHERE o.batch = $B AND s.batch = $B AND o.grp = 1 AND s.grp = 2 AND o.p50_ms >= s.p50_ms")" 0 \
  "every oltp process's median latency is below the scan's"
is "$(q "SELECT count(*) FROM ranread_results o, ranread_results s
          WHERE o.batch = $B AND s.batch = $B AND o.grp = 1 AND s.grp = 2
            AND (o.p50_ms, o.p95_ms, o.p99_ms) = (s.p50_ms, s.p95_ms, s.p99_ms)")" 0 \
  "no oltp process has the scan's p50, p95 and p99"
echo "$out" | grep -qE "^DETAIL:  (Each process has a worker of its own|Each group has workers of its own: oltp [0-9]+ \([0-9a-z ]+ each\), scan 1 \(one process each\))\."
ok $? "the start NOTICE says how the processes were divided"
echo "$out" | grep -q "groups share workers"
ok $((! $?)) "... and no WARNING that groups share workers"

# told to share: one worker for both groups
out=$(msgs "SELECT * FROM ranread_mix('$MIX', duration => '1s', workers => 1)")
B=$(q "SELECT max(batch) FROM ranread_batches")
is "$(q "SELECT workers || ' ' || (SELECT string_agg(workers::text, ' ' ORDER BY grp) FROM ranread_groups g WHERE g.batch = b.batch)
         FROM ranread_batches b WHERE batch = $B")" "1 1 1" "workers => 1: one worker, which both groups name"
echo "$out" | grep -q "^DETAIL:  The groups share workers, 17 processes each: a group's latency may include the waits of another's I/O\."
ok $? "... the NOTICE says the groups share it"
like_notes=$(q "SELECT notes ~ 'groups shared workers' FROM ranread_batches WHERE batch = $B")
is "$like_notes" t "... and so do the batch's notes"
echo "$out" | grep "^WARNING:" | grep -qv "the part of the target read .* is less than twice the server's RAM"
ok $((! $?)) "... without a WARNING but the cache's (the target is small): it was asked for"

# a plain batch on fewer workers than processes
out=$(msgs "SELECT * FROM ranread_run(4, 100, workers => 2)")
echo "$out" | grep -q "^DETAIL:  The processes share the workers, 2 processes each\."
ok $? "a plain batch of 4 processes on 2 workers says 2 processes each"
B=$(q "SELECT max(batch) FROM ranread_batches")
is "$(q "SELECT string_agg(worker::text, ' ' ORDER BY process) FROM ranread_results WHERE batch = $B")" "1 1 2 2" \
  "... and records each process's worker"

done_testing
