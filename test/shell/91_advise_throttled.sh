#!/bin/bash
# Advice on a disk whose figures are known: cgroup v1 blkio throttling caps
# the server's reads at 250 IOPS and 20 MiB/s (as 90_throttled_sweep.sh
# does), ranread_advise(measure => true) measures it, and every suggestion
# must follow from those caps: a QD1 random read takes 1/250 s = 4 ms, a
# sequential page 8 kB at 20 MiB/s = 0.39 ms, so random_page_cost with
# nothing cached is about 4 / 0.39 = 10.2; the IOPS do not grow with
# concurrency, so the I/O concurrency stays low; one process reads as fast
# as several, so no parallel workers.  The caps are far below what this
# shared machine's disk does even when others load it (QD1 8 KiB reads of
# 1.6 ms, one process's 1 MiB reads at 33 MiB/s seen), so the caps, not the
# neighbours, set the figures.
. "$(dirname "$0")/lib/lib.sh"

. "$(dirname "$0")/lib/throttle.bash"
throttle_skip_unless_available

IOPS=250
MIBPS=20

setup_db ranread_advise_throttle
q "SELECT ranread_setup('512MB')" >/dev/null
throttle_server ranread_advise_test "$IOPS" $((MIBPS * 1048576))
diag "device $THROTTLE_DEV ($THROTTLE_MAJMIN) capped at $IOPS read IOPS and $MIBPS MiB/s"

# measure => true: a random sweep, a sequential sweep, a commit test
out=$(psql -qAtX -d "$DB" -v ON_ERROR_STOP=1 -F '|' \
  -c "CREATE TABLE advice AS SELECT * FROM ranread_advise(measure => true, duration => '1s', cache_hit_ratio => 0)" 2>&1)
ok $? "ranread_advise(measure => true) measures the throttled disk"
echo "$out" | grep -q "ranread_advise measures random sweep: SELECT \* FROM ranread_sweep(start => 1"
ok $? "... and says what it runs, as SQL"
q "SELECT setting, suggested, figures FROM advice" | while IFS= read -r line; do diag "$line"; done

is "$(q "SELECT count(*) FROM advice WHERE suggested IS NOT NULL AND to_measure IS NULL")" 7 \
  "every setting gets a suggestion from what it measured (full_page_writes from the storage's facts)"

# The figures: what the caps allow.  blk-throttle lets each one-second
# batch start with a burst of up to a slice's worth, hence 125% above.
qd1=$(q "SELECT b.avg_ms FROM advice a JOIN ranread_batches b ON b.batch = a.batches[1] WHERE a.setting = 'random_page_cost'")
cmp_ok "$qd1" ">=" "$(awk -v i=$IOPS 'BEGIN { print 800 / i }')" "a QD1 random read waits for the IOPS cap: about 1/$IOPS s ($qd1 ms)"
peak=$(q "SELECT round(max(b.iops)) FROM advice a JOIN ranread_batches b ON b.batch = ANY (a.batches) WHERE a.setting = 'effective_io_concurrency'")
cmp_ok "$peak" "<=" $((IOPS * 125 / 100)) "random reads do not pass the IOPS cap at any concurrency ($peak IOPS)"
cmp_ok "$peak" ">=" $((IOPS * 80 / 100)) "... and reach it ($peak IOPS)"
seq=$(q "SELECT round(b.mbps) FROM advice a JOIN ranread_batches b ON b.batch = a.batches[1] WHERE a.setting = 'max_parallel_workers_per_gather'")
cmp_ok "$seq" "<=" $((MIBPS * 125 / 100)) "one process's sequential reads do not pass the bandwidth cap ($seq MiB/s)"
cmp_ok "$seq" ">=" $((MIBPS * 80 / 100)) "... and reach it ($seq MiB/s)"

# The advice follows from them
eic=$(q "SELECT suggested FROM advice WHERE setting = 'effective_io_concurrency'")
cmp_ok "$eic" "<=" 2 "a device capped at $IOPS IOPS gets no high effective_io_concurrency ($eic)"
is "$(q "SELECT suggested FROM advice WHERE setting = 'maintenance_io_concurrency'")" "$eic" \
  "maintenance_io_concurrency follows the same curve"
rpc=$(q "SELECT suggested FROM advice WHERE setting = 'random_page_cost'")
expect=$(awk -v i=$IOPS -v m=$MIBPS 'BEGIN { printf "%.1f", (1000 / i) / (8192 / (m * 1048576) * 1000) }')
cmp_ok "$rpc" ">=" "$(awk -v e=$expect 'BEGIN { print e / 2 }')" "random_page_cost with nothing cached is about (1/$IOPS s) / (8 kB at $MIBPS MiB/s) = $expect ($rpc)"
cmp_ok "$rpc" "<=" "$(awk -v e=$expect 'BEGIN { print e * 2 }')" "... within a factor of two ($rpc)"
is "$(q "SELECT a.suggested = (ranread_advise_page_costs(r.avg_ms, 8192.0 / (s.mbps * 1048576) * 1000, 0)).random_page_cost::text
          FROM advice a JOIN ranread_batches r ON r.batch = a.batches[1] JOIN ranread_batches s ON s.batch = a.batches[2]
         WHERE a.setting = 'random_page_cost'")" t "random_page_cost is the formula applied to the batches it names"
is "$(q "SELECT suggested FROM advice WHERE setting = 'max_parallel_workers_per_gather'")" 0 \
  "one process already reads the whole $MIBPS MiB/s: no parallel workers"
is "$(q "SELECT suggested FROM advice WHERE setting = 'seq_page_cost'")" 1.00 \
  "the default tablespace's sequential page is the unit"
is "$(q "SELECT count(*) FROM ranread_sweeps")" 2 "the two sweeps it ran are recorded as sweeps"

# Nothing applied: the tablespace has no options, the server its defaults
is "$(q "SELECT coalesce(array_to_string(spcoptions, ','), '') FROM pg_tablespace WHERE spcname = 'pg_default'")" "" \
  "nothing was applied to the tablespace"
is "$(q "SELECT count(*) FROM pg_file_settings WHERE sourcefile LIKE '%postgresql.auto.conf'")" 0 \
  "nothing was written with ALTER SYSTEM"

# The same advice from the history, for a role of pg_monitor
q "CREATE ROLE rr_advise_monitor IN ROLE pg_monitor" >/dev/null
is "$(q "SET ROLE rr_advise_monitor; SELECT string_agg(suggested, ',' ORDER BY setting) FROM ranread_advise(cache_hit_ratio => 0)")" \
   "$(q "SELECT string_agg(suggested, ',' ORDER BY setting) FROM advice")" \
   "a member of pg_monitor gets the same advice from the history"
q "DROP ROLE rr_advise_monitor" >/dev/null

done_testing
