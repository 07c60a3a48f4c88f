#!/bin/bash
# The 1.1 library draws the charts of a database still at 1.0, as 1.0 did:
#  - ranread_chart and ranread_timeline (bound by the 1.0 script to the same
#    C symbols) draw from the 1.0 tables, verdict included, also for a
#    member of pg_monitor, which 1.0 grants the charts but not the verdict
#    rule (ranread_sweep_judge) the chart now asks
#  - ranread_export writes the chart as svg; ranread_limits answers
. "$(dirname "$0")/lib/lib.sh"

DB=rr_charts_10
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
q "CREATE EXTENSION ranread VERSION '1.0'" >/dev/null
is "$(q "SELECT extversion FROM pg_extension WHERE extname = 'ranread'")" 1.0 "the database is at 1.0"

# Loose batches (no sweep), one with per-second intervals
q "INSERT INTO ranread_batches (batch, run_at, target, processes, duration, block_size, queue_depth,
       write_pct, pattern, region_start, region_end, seed, workers, engine, reads, writes, seconds,
       iops, mbps, avg_ms, p99_ms, max_ms, status)
   SELECT 10 + i, timestamptz '2024-05-02 14:00:00+00' + i * interval '1 min', 'ranread', p, '30s',
          8192, 1, 0, 'random', 0, 100, 1, 2, 'io_uring', (iops * 30)::bigint, 0, 30, iops,
          iops * 8192 / 1e6, avg, avg * 1.5, avg * 2, 'completed'
     FROM (VALUES (0, 10, 4210.0, 1.5), (1, 20, 8120, 1.9), (2, 40, 9000, 12.0)) v(i, p, iops, avg);
   INSERT INTO ranread_intervals (batch, second, reads, writes, iops, avg_ms, max_ms)
   SELECT 12, s, 9000, 0, 9000, 12, 40 FROM generate_series(0, 4) s" >/dev/null

chart=$(q "SELECT ranread_chart()")
echo "$chart" | grep -q '8,120 IOPS at 20 processes: the most within the 10 ms average latency bound'
ok $? "ranread_chart on 1.0 states ranread_sweep_judge's verdict over the batches"
echo "$chart" | grep -q '>Meets the all-flash guidance'
ok $? "... with the all-flash guidance"
q "SELECT ranread_timeline(12)" | grep -q 'IOPS per second over 5 s: mean 9,000'
ok $? "ranread_timeline on 1.0 draws a batch's seconds"

psql -qX -d postgres -c "DROP ROLE IF EXISTS rr_charts_monitor" -c "CREATE ROLE rr_charts_monitor IN ROLE pg_monitor" >/dev/null
monitor_chart=$(psql -qAtX -d "$DB" -c "SET ROLE rr_charts_monitor" -c "SELECT ranread_chart()" 2>&1)
is "$monitor_chart" "$chart" "a member of pg_monitor draws the same chart, without EXECUTE on ranread_sweep_judge"
is "$(q "SELECT has_function_privilege('rr_charts_monitor', 'ranread_sweep_judge(ranread_sweep_step[], float8)', 'EXECUTE')")" f \
  "... which 1.0 does not grant it"

EXPDIR=$(pg_owned_dir charts10)
path=$(q "SELECT ranread_export('$EXPDIR', 'svg')")
[ -n "$path" ] && cmp -s "$path" <(echo "$chart")
ok $? "ranread_export writes that chart as svg on 1.0"
is "$(q "SELECT max_processes > 0 AND max_queue_depth > 0 FROM ranread_limits()")" t "ranread_limits answers on 1.0"

psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "DROP ROLE IF EXISTS rr_charts_monitor" >/dev/null 2>&1
done_testing
