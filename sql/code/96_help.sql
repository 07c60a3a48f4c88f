-- ranread_help(): first steps, then the entry points by task, each with an
-- example, as RanRead's Help() lists them, as lines of text that fit a
-- screen of 120 columns (README, "Reading the results"); the same as a
-- table: ranread_internal.ranread_help_table().  ranread_help(name): one function's
-- call, result and arguments with their defaults, units and what they
-- mean, as lines of text too (the table: ranread_help_table(name)).  The one-line
-- descriptions are the objects' COMMENTs (97_comments.sql), the workload
-- options' units, ranges and help are ranread_options()'s (src/workload/options.c's
-- option table), the defaults are the functions' own (pg_proc): nothing is
-- written twice.  test/tap/help.sql checks that every function a user calls is
-- listed and every listed one exists.  New in 1.1.

-- The entry points: task, order, name (a function or a view), example
CREATE OR REPLACE FUNCTION ranread_internal.ranread_help_entries()
RETURNS TABLE (task text, n integer, name text, example text)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT e.task, e.n::integer, e.name, e.example FROM (VALUES
        ('setup',         1, 'ranread_setup',        $x$SELECT * FROM ranread_setup('4GB', tablespace => 'pg_default');$x$),
        ('setup',         2, 'ranread_targets',      $x$SELECT * FROM ranread_targets;$x$),
        ('setup',         3, 'ranread_purge',        $x$SELECT ranread_purge('ranread');$x$),
        ('setup',         4, 'ranread_limits',       $x$SELECT * FROM ranread_limits();$x$),
        ('setup',         5, 'ranread_options',      $x$SELECT name, default_value, unit, allowed FROM ranread_options();$x$),
        ('run',           1, 'ranread_run',          $x$SELECT * FROM ranread_run(16, duration => '30s', queue_depth => 4);$x$),
        ('run',           2, 'ranread_mix',          $x$SELECT * FROM ranread_mix('[{"label": "oltp", "processes": 8}, {"label": "scan", "processes": 1, "block_size": 1048576, "pattern": "sequential"}]', duration => '30s');$x$),
        ('run',           3, 'ranread_sweep',        $x$SELECT * FROM ranread_sweep(start => 1, max_processes => 64, duration => '10s');$x$),
        ('run',           4, 'ranread_latency_target', $x$SELECT * FROM ranread_latency_target(2, percentile => 99);$x$),
        ('run',           5, 'ranread_latency_target_next', $x$SELECT * FROM ranread_latency_target_next(ARRAY[ROW(1, 1, 7, 5000, 99.5, 0.8, 'completed')]::ranread_latency_step[], 2, 99, 256);$x$),
        ('run',           6, 'ranread_stop',         $x$SELECT ranread_stop();$x$),
        ('run',           7, 'ranread_run_step',     $x$SELECT * FROM ranread_run_step('{"groups": [{"processes": 2}], "duration": "5s"}');$x$),
        ('run',           8, 'ranread_blocks',       $x$SELECT * FROM ranread_blocks(2, 5, distribution => 'zipf:1.2');$x$),
        ('run',           9, 'ranread_verify',       $x$SELECT * FROM ranread_verify('ranread');$x$),
        ('run',          10, 'ranread_verify_errors', $x$SELECT batch, block, kind, expected, found FROM ranread_verify_errors ORDER BY at DESC LIMIT 10;$x$),
        ('run',          11, 'ranread_paths',        $x$SELECT * FROM ranread_paths('{0,1,8,32}', duration => '10s');$x$),
        ('run',          12, 'ranread_progress',     $x$SELECT * FROM ranread_progress;$x$),
        ('run',          13, 'ranread_progress_full', $x$SELECT * FROM ranread_progress_full;$x$),
        ('report',       -1, 'ranread_brief',        $x$SELECT * FROM ranread_brief ORDER BY batch DESC LIMIT 10;$x$),
        ('report',        1, 'ranread_summary',      $x$SELECT * FROM ranread_summary ORDER BY batch DESC LIMIT 10;$x$),
        ('report',        0, 'ranread_seconds',     $x$SELECT * FROM ranread_seconds WHERE batch = (SELECT max(batch) FROM ranread_seconds);$x$),
        ('report',        2, 'ranread_summary_full', $x$SELECT * FROM ranread_summary_full WHERE batch = (SELECT max(batch) FROM ranread_summary_full);$x$),
        ('report',        3, 'ranread_process_summary', $x$SELECT * FROM ranread_process_summary WHERE batch = (SELECT max(batch) FROM ranread_process_summary);$x$),
        ('report',        4, 'ranread_group_summary', $x$SELECT batch, label, iops, avg_ms FROM ranread_group_summary ORDER BY batch DESC, grp;$x$),
        ('report',        5, 'ranread_sweep_verdict', $x$SELECT * FROM ranread_sweep_verdict ORDER BY sweep DESC LIMIT 1;$x$),
        ('report',        6, 'ranread_chart',        $x$SELECT ranread_chart();$x$),
        ('report',        7, 'ranread_timeline',     $x$SELECT ranread_timeline();$x$),
        ('report',        8, 'ranread_svg',          $x$SELECT ranread_svg('{"title": "IOPS by queue depth", "x": {"label": "queue depth"}, "y": {"label": "IOPS"}, "series": [{"label": "run 1", "x": [1, 4, 16], "y": [5000, 18000, 40000]}]}');$x$),
        ('report',        9, 'ranread_report',       $x$SELECT ranread_report();$x$),
        ('report',       10, 'ranread_server_info',  $x$SELECT * FROM ranread_server_info();$x$),
        ('report',       11, 'ranread_latency_target_verdict', $x$SELECT * FROM ranread_latency_target_verdict ORDER BY latency_target DESC LIMIT 1;$x$),
        ('report',       12, 'ranread_hist_percentile', $x$SELECT ranread_hist_percentile(ranread_hist_merge(histogram), 99.9) FROM ranread_results WHERE batch = 1;$x$),
        ('report',       13, 'ranread_hist_merge',   $x$SELECT ranread_hist_count(ranread_hist_merge(histogram)) FROM ranread_results WHERE batch = 1;$x$),
        ('report',       14, 'ranread_hist_count',   $x$SELECT ranread_hist_count(histogram) FROM ranread_batches WHERE batch = 1;$x$),
        ('report',       15, 'ranread_hist_buckets', $x$SELECT * FROM ranread_hist_buckets((SELECT histogram FROM ranread_batches WHERE batch = 1));$x$),
        ('report',       16, 'ranread_hist_within',  $x$SELECT ranread_hist_within(histogram, 1) FROM ranread_batches WHERE batch = 1;$x$),
        ('report',       17, 'ranread_steady_verdict', $x$SELECT * FROM ranread_steady_verdict(ARRAY[1000, 1010, 990, 1005, 995], round_seconds => 6);$x$),
        ('report',       20, 'ranread_flash_guidance', $x$SELECT * FROM ranread_flash_guidance(0.07, 23.4);$x$),
        ('report',       18, 'ranread_latency_heatmap', $x$SELECT ranread_latency_heatmap();$x$),
        ('report',       19, 'ranread_percentiles_over_time', $x$SELECT second, p50_ms, p99_ms FROM ranread_percentiles_over_time WHERE batch = 1 ORDER BY second;$x$),
        ('compare',       1, 'ranread_compare_chart', $x$SELECT ranread_compare_chart(studies => '{1,2}', sweeps => '{}');$x$),
        ('compare',       2, 'ranread_study_heat',   $x$SELECT ranread_study_heat(1, 'iops');$x$),
        ('compare',       3, 'ranread_compare',      $x$SELECT * FROM ranread_compare(1, 2);$x$),
        ('compare',       4, 'ranread_compare_sweeps', $x$SELECT * FROM ranread_compare_sweeps(1, 2);$x$),
        ('compare',       5, 'ranread_compare_studies', $x$SELECT * FROM ranread_compare_studies(1, 2);$x$),
        ('compare',       6, 'ranread_hist_compare', $x$SELECT * FROM ranread_hist_compare((SELECT histogram FROM ranread_batches WHERE batch = 1), (SELECT histogram FROM ranread_batches WHERE batch = 2));$x$),
        ('compare',       7, 'ranread_hist_threshold', $x$SELECT * FROM ranread_hist_threshold((SELECT histogram FROM ranread_batches WHERE batch = 1), 5);$x$),
        ('watch',         1, 'ranread_probe_setup',  $x$SELECT * FROM ranread_probe_setup('pg_default');$x$),
        ('watch',         2, 'ranread_probe',        $x$SELECT * FROM ranread_probe('pg_default', duration => '10s', rate_iops => 200);$x$),
        ('watch',         3, 'ranread_probe_schedule', $x$SELECT ranread_probe_schedule('pg_default', '*/5 * * * *');$x$),
        ('watch',         4, 'ranread_probe_schedules', $x$SELECT * FROM ranread_probe_schedules();$x$),
        ('watch',         5, 'ranread_probe_unschedule', $x$SELECT ranread_probe_unschedule('pg_default');$x$),
        ('watch',         6, 'ranread_probes',       $x$SELECT * FROM ranread_probes ORDER BY probed_at DESC LIMIT 10;$x$),
        ('watch',         7, 'ranread_probe_purge',  $x$SELECT ranread_probe_purge('pg_default');$x$),
        ('watch',        10, 'ranread_health',       $x$SELECT tablespace, last_probe_at, p99_ms, baseline_p99_ms, change, verdict, status FROM ranread_health;$x$),
        ('watch',        11, 'ranread_probe_verdicts', $x$SELECT batch, probed_at, p99_ms, verdict, factor, status FROM ranread_probe_verdicts ORDER BY probed_at DESC LIMIT 10;$x$),
        ('watch',        12, 'ranread_health_set',   $x$SELECT * FROM ranread_health_set('pg_default', p99_degraded_ms => 5, p99_critical_ms => 10);$x$),
        ('watch',        13, 'ranread_health_thresholds', $x$SELECT * FROM ranread_health_thresholds;$x$),
        ('watch',        14, 'ranread_baseline_set', $x$SELECT * FROM ranread_baseline_set('pg_default', '{12,13,14}');$x$),
        ('watch',        15, 'ranread_baseline_reset', $x$SELECT ranread_baseline_reset('pg_default');$x$),
        ('watch',        16, 'ranread_baselines',    $x$SELECT tablespace, batches, pinned, since FROM ranread_baselines;$x$),
        ('watch',        17, 'ranread_probe_chart',  $x$SELECT ranread_probe_chart('pg_default', since => '30 days');$x$),
        ('study',         1, 'ranread_study',        $x$SELECT * FROM ranread_study(queue_depth => '{1,4,16}', block_size => '{8192,65536}', duration => '10s');$x$),
        ('study',         2, 'ranread_study_grid',   $x$SELECT * FROM ranread_study_grid(1, 'iops');$x$),
        ('study',         3, 'ranread_study_summary', $x$SELECT * FROM ranread_study_summary(1);$x$),
        ('study',         4, 'ranread_study_chart',  $x$SELECT ranread_study_chart(1);$x$),
        ('study',         5, 'ranread_study_overview', $x$SELECT * FROM ranread_study_overview ORDER BY study DESC;$x$),
        ('study',         6, 'ranread_study_points', $x$SELECT n, row_label, column_label, iops, avg_ms FROM ranread_study_points WHERE study = 1 ORDER BY n;$x$),
        ('study',         7, 'ranread_profile',      $x$SELECT * FROM ranread_profile('crystaldiskmark', duration => '5s');$x$),
        ('study',         8, 'ranread_profile_report', $x$SELECT * FROM ranread_profile_report(1);$x$),
        ('study',         9, 'ranread_profile_chart', $x$SELECT ranread_profile_chart(1);$x$),
        ('study',        10, 'ranread_profile_postgres', $x$SELECT * FROM ranread_profile_postgres(duration => '30s');$x$),
        ('fleet',         1, 'ranread_nodes',        $x$INSERT INTO ranread_nodes (name, conninfo) VALUES ('db2', 'host=db2 dbname=postgres');$x$),
        ('fleet',         2, 'ranread_fleet',        $x$SELECT * FROM ranread_fleet(ARRAY['db2', 'db3'], 8, duration => '30s');$x$),
        ('fleet',         3, 'ranread_fleet_sweep',  $x$SELECT * FROM ranread_fleet_sweep(ARRAY['db2', 'db3'], max_processes => 64);$x$),
        ('fleet',         4, 'ranread_fleet_summary', $x$SELECT fleet, nodes, iops, avg_ms, outliers FROM ranread_fleet_summary ORDER BY fleet DESC;$x$),
        ('fleet',         5, 'ranread_fleet_rows',   $x$SELECT * FROM ranread_fleet_rows();$x$),
        ('fleet',         6, 'ranread_fleet_chart',  $x$SELECT ranread_fleet_chart();$x$),
        ('fleet',         7, 'ranread_fleet_timeline', $x$SELECT ranread_fleet_timeline();$x$),
        ('fleet',         8, 'ranread_fleet_series', $x$SELECT second, nodes, iops FROM ranread_fleet_series WHERE fleet = 1 ORDER BY second;$x$),
        ('commit path',   1, 'ranread_commit_test',  $x$SELECT test, method, ops_per_s, ops_low, ops_high, rounds, calls FROM ranread_commit_test(duration => '5s');$x$),
        ('commit path',   2, 'ranread_commit_summary', $x$SELECT test, method, ops_per_s, avg_ms, durable FROM ranread_commit_summary ORDER BY batch DESC;$x$),
        ('commit path',   3, 'ranread_durability_start', $x$CALL ranread_durability_start(tablespace => 'pg_default', method => 'fdatasync', duration => '5min');$x$),
        ('commit path',   4, 'ranread_durability_check', $x$SELECT * FROM ranread_durability_check();$x$),
        ('commit path',   5, 'ranread_durability_stop', $x$SELECT ranread_durability_stop();$x$),
        ('commit path',   6, 'ranread_durability_purge', $x$SELECT ranread_durability_purge();$x$),
        ('commit path',   7, 'ranread_durability',   $x$SELECT durability, method, acknowledged, lost, verdict FROM ranread_durability ORDER BY durability DESC;$x$),
        ('advice',        1, 'ranread_advise',       $x$SELECT setting, server_value, suggested, apply_sql FROM ranread_advise();$x$),
        ('advice',        2, 'ranread_advise_page_costs', $x$SELECT * FROM ranread_advise_page_costs(0.2, 0.01, 0.9);$x$),
        ('advice',        3, 'ranread_advise_io_concurrency', $x$SELECT * FROM ranread_advise_io_concurrency('{1,4,16}', '{5000,18000,40000}', '{0.2,0.22,0.4}', 10);$x$),
        ('advice',        4, 'ranread_advise_parallel_workers', $x$SELECT * FROM ranread_advise_parallel_workers(500, 2000);$x$),
        ('advice',        5, 'ranread_advise_wal_sync_method', $x$SELECT * FROM ranread_advise_wal_sync_method('{fdatasync,open_datasync}', '{900,1200}', 'fdatasync');$x$),
        ('export',        1, 'ranread_export',       $x$SELECT ranread_export('/tmp', 'csv');$x$),
        ('export',        2, 'ranread_export_study', $x$SELECT ranread_export_study('/tmp', 1);$x$),
        ('export',        3, 'ranread_export_sweep', $x$SELECT ranread_export_sweep('/tmp', 1);$x$),
        ('export',        4, 'ranread_fleet_export', $x$SELECT ranread_fleet_export('/tmp', 'json');$x$),
        ('housekeeping',  1, 'ranread_help',         $x$SELECT * FROM ranread_help('ranread_run');$x$),
        ('housekeeping',  2, 'ranread_grant',        $x$SELECT ranread_grant('alice', 'run');$x$),
        ('housekeeping',  3, 'ranread_revoke',       $x$SELECT ranread_revoke('alice', 'run');$x$),
        ('housekeeping',  4, 'ranread_reset',        $x$SELECT ranread_reset(now() - interval '90 days');$x$),
        ('housekeeping',  5, 'ranread_batches',      $x$SELECT batch, run_at, status, message FROM ranread_batches ORDER BY batch DESC LIMIT 5;$x$),
        ('housekeeping',  6, 'ranread_results',      $x$SELECT process, reads, iops, avg_ms FROM ranread_results WHERE batch = 1 ORDER BY process;$x$),
        ('housekeeping',  7, 'ranread_intervals',    $x$SELECT second, iops, avg_ms FROM ranread_intervals WHERE batch = 1 ORDER BY second;$x$),
        ('housekeeping',  8, 'ranread_groups',       $x$SELECT grp, label, iops FROM ranread_groups WHERE batch = 1;$x$),
        ('housekeeping',  9, 'ranread_sweeps',       $x$SELECT * FROM ranread_sweeps ORDER BY sweep DESC LIMIT 1;$x$),
        ('housekeeping', 10, 'ranread_studies',      $x$SELECT study, kind, call FROM ranread_studies ORDER BY study DESC;$x$),
        ('housekeeping', 11, 'ranread_fleets',       $x$SELECT fleet, status, iops FROM ranread_fleets ORDER BY fleet DESC;$x$),
        ('housekeeping', 12, 'ranread_fleet_nodes',  $x$SELECT fleet, node, name, iops FROM ranread_fleet_nodes WHERE fleet = 1;$x$),
        ('housekeeping', 13, 'ranread_fleet_seconds', $x$SELECT node, second, iops FROM ranread_fleet_seconds WHERE fleet = 1;$x$),
        ('housekeeping', 14, 'ranread_fleet_sweeps', $x$SELECT * FROM ranread_fleet_sweeps ORDER BY sweep DESC;$x$),
        ('housekeeping', 16, 'ranread_target_check', $x$SELECT * FROM ranread_target_check();$x$),
        ('housekeeping', 15, 'ranread_target_catalog', $x$SELECT target, tablespace, size_bytes FROM ranread_target_catalog;$x$)
    ) e(task, n, name, example)
$$;

-- What the arguments that are not workload options mean, by name: unit
-- and description
CREATE OR REPLACE FUNCTION ranread_internal.ranread_help_arguments()
RETURNS TABLE (name text, unit text, description text)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM (VALUES
        ('size', 'bytes', 'size of the target, such as ''1GB'' or ''512MB'' (PostgreSQL''s size units)'),
        ('tablespace', NULL, 'the tablespace; NULL: the database''s default (ranread_setup: pg_default)'),
        ('before', NULL, 'delete batches started before this time; NULL: all of them'),
        ('directory', NULL, 'a directory on the database server, written by the server''s operating-system user'),
        ('format', NULL, 'the file''s format: tsv, csv, json, svg or html, as the function lists them'),
        ('start', 'processes', 'processes of the first step; each next step doubles them'),
        ('max_processes', 'processes', 'the last step''s processes at most'),
        ('max_avg_ms', 'ms', 'the latency bound: average latency of one I/O'),
        ('sweep', NULL, 'a sweep''s id (ranread_sweeps); NULL: the latest'),
        ('batch', NULL, 'a batch''s id (ranread_summary); NULL: the latest'),
        ('study', NULL, 'a study''s id (ranread_study_overview); NULL: the latest'),
        ('fleet', NULL, 'a fleet''s id (ranread_fleet_summary); NULL: the latest'),
        ('studies', NULL, 'the ids of studies, a curve per row of each'),
        ('sweeps', NULL, 'the ids of sweeps, a curve each'),
        ('labels', NULL, 'a label per curve, in order'),
        ('title', NULL, 'the chart''s title'),
        ('latency', NULL, 'which latency: avg, p50, p95, p99, p999 or max'),
        ('metric', NULL, 'the figure in the cells: iops, mbps, lat, p50_ms ... max_ms'),
        ('columns', NULL, 'the dimension of the columns; NULL: the last one that varies'),
        ('spec', NULL, 'a JSON document; see docs/charts-and-reports.md, "Charts from SQL" (ranread_svg) or ranread_options (ranread_run_step)'),
        ('histogram', NULL, 'a latency histogram as ranread stores it (histogram columns)'),
        ('percentile', 'percent', 'the percentile, such as 99 or 99.9'),
        ('limit_ms', 'ms', 'the latency bound'),
        ('target_ms', 'ms', 'the latency the percentile of I/Os must stay within'),
        ('dimension', NULL, 'what the search raises: queue_depth or processes'),
        ('max_load', NULL, 'the highest queue depth or processes the search tries'),
        ('n', 'I/Os', 'how many I/Os of each process to show'),
        ('rounds', 'IOPS', 'five rounds'' IOPS, oldest first'),
        ('round_seconds', 's', 'how long each round ran: rounds under 2 s or 100 I/Os are too short to judge; NULL: not checked'),
        ('max_ms', 'ms', 'the slowest I/O'),
        ('bound_ms', 'ms', 'the latency the percentile is judged against'),
        ('methods', NULL, 'the wal_sync_method values to test; NULL: every one this system has'),
        ('mode', NULL, '''server'': open_datasync and open_sync opened as this server opens its WAL (O_DIRECT only at wal_level minimal); ''pg_test_fsync'': with O_DIRECT, as pg_test_fsync'),
        ('max_duration', NULL, 'the most each method''s one 8 kB write is timed, in rounds, until the intervals tell; NULL: 3 x duration'),
        ('hold_probes', 'probes', 'how many probes in a row must show a status before the tablespace takes it (2 to 100)'),
        ('measure', NULL, 'true: run the short batches the advice needs first; false: the history only'),
        ('cache_hit_ratio', 'fraction', 'the share of random reads served from cache, 0 to 1'),
        ('name', NULL, 'the profile: crystaldiskmark, crystaldiskmark-nvme, crystaldiskmark-real, orion-oltp, orion-dss, orion-normal or snia-latency'),
        ('passes', NULL, 'how many times each test runs; the best pass counts'),
        ('num_disks', 'devices', 'ORION''s num_disks: the devices behind the target'),
        ('writes', NULL, 'false: leave out the tests that write'),
        ('nodes', NULL, 'the nodes: names of ranread_nodes or connection strings'),
        ('start_delay', NULL, 'how long after the clocks are checked the I/O starts on every node'),
        ('skip_unavailable', NULL, 'true: run without nodes that cannot be reached'),
        ('on_node_failure', NULL, 'continue or abort the fleet when a node fails'),
        ('max_offset_ms', 'ms', 'the clock offset allowed between the coordinator and a node'),
        ('on_clock_skew', NULL, 'error or warn when a node''s clock is further off than max_offset_ms'),
        ('loopback', NULL, 'the connection string this server is reached with, when a node is this server'),
        ('matrix', NULL, 'ORION''s matrix: basic, detailed, row, col, point or max'),
        ('small', NULL, 'a dimension: small I/Os in flight, ORION''s num_small'),
        ('large', NULL, 'a dimension: large I/Os in flight, ORION''s num_large'),
        ('num_small', NULL, 'ORION''s num_small for the matrices that fix it'),
        ('num_large', NULL, 'ORION''s num_large for the matrices that fix it'),
        ('small_size', 'bytes', 'size of a small I/O'),
        ('large_size', 'bytes', 'size of a large I/O'),
        ('large_pattern', NULL, 'random or sequential large I/Os'),
        ('region', NULL, 'a dimension: regions of the target as ''START-END'' percent'),
        ('early_end', NULL, 'true: a row ends once its average latency exceeds max_avg_ms twice'),
        ('role', NULL, 'the role to grant to or revoke from'),
        ('what', NULL, '''run'', ''report'', ''probe'' or ''export'' (docs/reference.md, "Privileges")'),
        ('random_ms', 'ms', 'a random 8 KiB read''s average latency at queue depth 1'),
        ('seq_page_ms', 'ms', 'time per 8 KiB page of one process''s large sequential reads'),
        ('reference_seq_page_ms', 'ms', 'the default tablespace''s seq_page_ms; NULL: this one is the reference'),
        ('concurrency', NULL, 'the queue depths measured'),
        ('iops', 'IOPS', 'the IOPS at each queue depth'),
        ('avg_ms', 'ms', 'the average latency (at each point of a curve)'),
        ('share', 'fraction', 'the share of the peak IOPS the setting must reach'),
        ('one_process_mbps', 'MiB/s', 'one process''s large sequential read rate'),
        ('all_mbps', 'MiB/s', 'the rate of many processes together'),
        ('ops_per_s', 'ops/s', 'a method''s commits per second, one element per round'),
        ('current', NULL, 'the server''s wal_sync_method'),
        ('batch_a', NULL, 'the batch compared with (ranread_summary lists them)'),
        ('batch_b', NULL, 'the batch compared: is it slower or faster than batch_a'),
        ('sweep_a', NULL, 'the sweep compared with (ranread_sweeps lists them)'),
        ('sweep_b', NULL, 'the sweep compared, step by step'),
        ('study_a', NULL, 'the study compared with (ranread_study_overview lists them)'),
        ('study_b', NULL, 'the study compared, point by point'),
        ('histogram_a', NULL, 'the latency histogram compared with, as ranread stores it'),
        ('histogram_b', NULL, 'the latency histogram compared'),
        ('min_factor', 'ratio', 'the change of p50 or p99 that counts, besides significance: 1.25 is 25% slower'),
        ('alpha', 'p', 'the significance level of the comparison''s tests'),
        ('p99_degraded_ms', 'ms', 'a probe''s p99 above this: the status is degraded'),
        ('p99_critical_ms', 'ms', 'a probe''s p99 above this (above p99_degraded_ms): the status is critical'),
        ('slower_factor', 'ratio', 'the change against the baseline that counts as slower (min_factor of the comparison)'),
        ('baseline_probes', 'probes', 'how many first probes make the baseline when none is pinned'),
        ('batches', NULL, 'the batches whose merged latency histogram is the baseline'),
        ('since', NULL, 'how far back, such as ''30 days'''),
        ('schedule', NULL, 'pg_cron''s schedule: five cron fields such as ''*/5 * * * *'', or @hourly, @daily'),
        ('job', NULL, 'the pg_cron job that runs the probe, kept in ranread_probes.job; ranread_probe_schedule sets it')
    ) a(name, unit, description)
$$;

-- Every entry point by task, what it does, an example: the help as a
-- table, for programs and tests (ranread_help() prints it as text)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_help_table()
RETURNS TABLE (task text, name text, example text, description text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT e.task, e.name, e.example,
           coalesce((SELECT pg_catalog.obj_description(p.oid, 'pg_proc') FROM pg_catalog.pg_proc p
                      WHERE p.pronamespace OPERATOR(pg_catalog.=) x.extnamespace
                        AND p.proname OPERATOR(pg_catalog.=) e.name
                      ORDER BY p.pronargs LIMIT 1),
                    (SELECT pg_catalog.obj_description(c.oid, 'pg_class') FROM pg_catalog.pg_class c
                      WHERE c.relnamespace OPERATOR(pg_catalog.=) x.extnamespace
                        AND c.relname OPERATOR(pg_catalog.=) e.name))
      FROM ranread_internal.ranread_help_entries() e,
           pg_catalog.pg_extension x
     WHERE x.extname OPERATOR(pg_catalog.=) 'ranread'
     ORDER BY pg_catalog.array_position(ARRAY['setup', 'run', 'report', 'compare', 'study', 'fleet', 'watch',
                                              'commit path', 'advice', 'export', 'housekeeping'], e.task), e.n
$$;

-- Words put in lines of at most width characters, a space between two
-- (a word longer than a line stands alone), the first line after first,
-- the others after rest
CREATE OR REPLACE FUNCTION ranread_internal.ranread_wrap_words(words text[], width integer, first text, rest text)
RETURNS SETOF text
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    line text := first;
    empty boolean := true;
    word text;
BEGIN
    FOREACH word IN ARRAY coalesce(words, '{}') LOOP
        IF NOT empty AND length(line) + 1 + length(word) > width THEN
            RETURN NEXT line;
            line := rest;
            empty := true;
        END IF;
        line := line || CASE WHEN empty THEN '' ELSE ' ' END || word;
        empty := false;
    END LOOP;
    RETURN NEXT line;
END
$$;

-- A text cut into lines of at most width characters at spaces (a word
-- longer than a line stands alone), the first line after first, the
-- others after rest: its words, as ranread_wrap_words puts them
CREATE OR REPLACE FUNCTION ranread_internal.ranread_wrap(t text, width integer, first text, rest text)
RETURNS SETOF text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM ranread_internal.ranread_wrap_words(
        pg_catalog.regexp_split_to_array(pg_catalog.btrim(coalesce(t, '')), '\s+'), width, first, rest)
$$;

-- An SQL statement cut into lines as ranread_wrap does, at spaces outside
-- quotes only: a literal or a quoted name stays whole ('30 days'), but a
-- JSON or array literal ('{...}', '[...]') is cut between its elements,
-- never inside one of its strings ("IOPS by queue depth") nor between a
-- key and its value
CREATE OR REPLACE FUNCTION ranread_internal.ranread_wrap_sql(t text, width integer, first text, rest text)
RETURNS SETOF text
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    words text[] := '{}';
    word text := '';
    c text;
    single boolean := false;     -- inside '...'
    structured boolean := false; -- ... which holds JSON or an array
    dbl boolean := false;        -- inside "..."
BEGIN
    FOREACH c IN ARRAY regexp_split_to_array(btrim(coalesce(t, '')), '') LOOP
        -- a JSON key stays with its value: "processes": 8
        IF c ~ '^\s$' AND NOT dbl AND (NOT single OR (structured AND right(word, 1) <> ':')) THEN
            IF word <> '' THEN
                words := words || word;
            END IF;
            word := '';
            CONTINUE;
        END IF;
        IF c = '''' AND NOT dbl THEN
            single := NOT single;
            structured := false;
        ELSIF c = '"' THEN
            dbl := NOT dbl;
        ELSIF single AND right(word, 1) = '''' AND c IN ('{', '[') THEN
            structured := true;
        END IF;
        word := word || c;
    END LOOP;
    IF word <> '' THEN
        words := words || word;
    END IF;
    RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap_words(words, width, first, rest);
END
$$;

-- ranread_help(): what to type first, then every entry point by task, what
-- it does and an example, as lines of text of at most 118 characters (a
-- screen of 120 columns in psql's default format)
CREATE OR REPLACE FUNCTION @extschema@.ranread_help()
RETURNS SETOF text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    e record;
    task text;
BEGIN
    RETURN QUERY SELECT l FROM unnest(ARRAY[
        'first steps',
        '  1. a target, at least twice the server''s RAM for figures from the disks:',
        '       SELECT * FROM ranread_setup(''4GB'');',
        '  2. one batch: 20 processes x 10000 random 8 KiB reads (IOPS, MiB/s, latency in ms):',
        '       SELECT * FROM ranread_run(20, 10000);',
        '  3. every batch so far, one line each; one batch''s seconds; one batch''s every column:',
        '       SELECT * FROM ranread_brief;',
        '       SELECT * FROM ranread_seconds WHERE batch = 1;',
        '       SELECT * FROM ranread_summary_full WHERE batch = 1 \gx',
        '  4. raise the processes until the latency or the IOPS say stop, and read the verdict:',
        '       SELECT * FROM ranread_sweep(start => 1, max_processes => 64, duration => ''10s'');',
        '  5. one function''s arguments: defaults, units and the ranges it allows:',
        '       SELECT * FROM ranread_help(''ranread_run'');',
        '  The views and functions below are the ones to read; \dx+ ranread lists ranread_internal''s',
        '  helpers besides, which are not called by hand.  Every page: docs/ in the source tree.']) l;
    FOR e IN SELECT * FROM ranread_internal.ranread_help_table() LOOP
        IF task IS DISTINCT FROM e.task THEN
            RETURN NEXT '';
            RETURN NEXT e.task;
            task := e.task;
        END IF;
        RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap(e.name || ': ' || e.description, 118, '  ', '    ');
        RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap_sql(e.example, 118, '      ', '        ');
    END LOOP;
END
$$;

-- The names of the help closest to a name that is none of them: most
-- pairs of letters, then letters, in common (Dice's coefficient of each),
-- "ranread_" aside
CREATE OR REPLACE FUNCTION ranread_internal.ranread_help_closest(wanted text)
RETURNS text[]
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH w AS (
        -- a name is at most 63 bytes: more says nothing more, and costs
        SELECT pg_catalog.regexp_replace(pg_catalog.lower(pg_catalog.left(wanted, 64)), '^ranread_', '') AS s
    ), scored AS (
        SELECT e.name,
               (SELECT pg_catalog.count(*) FROM (
                    SELECT pg_catalog.substr(t.s, i, 2) FROM pg_catalog.generate_series(1, pg_catalog.length(t.s) - 1) i
                    INTERSECT
                    SELECT pg_catalog.substr(w.s, j, 2) FROM pg_catalog.generate_series(1, pg_catalog.length(w.s) - 1) j) g)::float8
               / GREATEST(pg_catalog.length(t.s) + pg_catalog.length(w.s) - 2, 1)
               + (SELECT pg_catalog.count(*) FROM (
                    SELECT pg_catalog.regexp_split_to_table(t.s, '')
                    INTERSECT
                    SELECT pg_catalog.regexp_split_to_table(w.s, '')) l)::float8
               / GREATEST(pg_catalog.length(t.s) + pg_catalog.length(w.s), 1) AS score,
               pg_catalog.abs(pg_catalog.length(t.s) - pg_catalog.length(w.s)) AS apart
          FROM ranread_internal.ranread_help_entries() e, w,
               LATERAL (SELECT pg_catalog.substr(e.name, 9) AS s) t
    )
    SELECT ARRAY(SELECT name FROM scored ORDER BY score DESC, apart, name LIMIT 3)
$$;

-- A name as a person may write it, as the help lists it: any case, spaces
-- around, double quotes, its schema, its argument types
-- ('public.RANREAD_RUN(integer)' is ranread_run)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_help_name(name text)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.btrim(pg_catalog.regexp_replace(pg_catalog.regexp_replace(
               pg_catalog.lower(pg_catalog.btrim(name)), '\s*\(.*\)$', ''), '^.*\.', ''), '" ')
$$;

-- The arguments of one function of the help, in order, as a table (for
-- programs and tests; ranread_help(name) prints them as text): type,
-- default (as the signature has it; NULL's meaning for an option), unit,
-- what is allowed, what it is.  name: as ranread_help(name) takes it
CREATE OR REPLACE FUNCTION ranread_internal.ranread_help_table(name text)
RETURNS TABLE (argument text, type text, default_value text, unit text, allowed text, description text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    wanted text := ranread_internal.ranread_help_name(name);
    nsp oid := (SELECT x.extnamespace FROM pg_catalog.pg_extension x WHERE x.extname OPERATOR(pg_catalog.=) 'ranread');
    fn oid;
BEGIN
    IF wanted IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
            MESSAGE = 'name of ranread_help must not be null',
            HINT = 'SELECT * FROM ranread_help() lists the functions; ranread_help(''ranread_run'') shows one.';
    END IF;
    IF NOT EXISTS (SELECT FROM ranread_internal.ranread_help_entries() e WHERE e.name OPERATOR(pg_catalog.=) wanted)
       AND EXISTS (SELECT FROM ranread_internal.ranread_help_entries() e WHERE e.name OPERATOR(pg_catalog.=) ('ranread_' || wanted)) THEN
        wanted := 'ranread_' || wanted;
    END IF;
    IF NOT EXISTS (SELECT FROM ranread_internal.ranread_help_entries() e WHERE e.name OPERATOR(pg_catalog.=) wanted) THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_function',
            MESSAGE = format('invalid name for ranread_help: %s',
                             CASE WHEN pg_catalog.length(name) > 100
                                  THEN pg_catalog.quote_literal(pg_catalog.left(name, 100)) || format('... (%s characters)', pg_catalog.length(name))
                                  ELSE pg_catalog.quote_literal(name) END),
            DETAIL = 'It is none of the functions and views ranread_help() lists.',
            HINT = format('The closest are %s.', array_to_string(ranread_internal.ranread_help_closest(name), ', '));
    END IF;
    SELECT p.oid INTO fn FROM pg_catalog.pg_proc p
     WHERE p.pronamespace OPERATOR(pg_catalog.=) nsp AND p.proname OPERATOR(pg_catalog.=) wanted
     ORDER BY p.pronargs DESC LIMIT 1;
    IF fn IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'wrong_object_type',
            MESSAGE = format('%s is a table or view, not a function: ranread_help shows a function''s arguments', wanted),
            HINT = format('\d+ %s shows its columns, each with its comment.', wanted);
    END IF;
    RETURN QUERY
    SELECT a.argname::text, pg_catalog.format_type(a.argtype, NULL),
           CASE WHEN NOT a.has_default THEN '(required)'
                WHEN a.d ~ '^NULL(::.*)?$' THEN 'NULL' || coalesce(': ' || o.null_means, '')
                ELSE pg_catalog.regexp_replace(a.d, '^''(.*)''::[a-z ]+(\[\])?$', '\1') END,
           coalesce(o.unit, h.unit),
           coalesce(c.allowed, o.allowed),
           coalesce(CASE WHEN o.type::pg_catalog.oid OPERATOR(pg_catalog.=) a.argtype THEN o.help
                         WHEN o.name IS NOT NULL THEN 'a dimension of the study, an array of values: ' || o.help END,
                    h.description)
      FROM (SELECT u.argname, u.argtype, u.k, u.argmode,
                   u.k > p.pronargs - p.pronargdefaults AS has_default,
                   pg_catalog.pg_get_function_arg_default(p.oid, u.k::integer) AS d
              FROM pg_catalog.pg_proc p,
                   LATERAL unnest(p.proargnames, coalesce(p.proallargtypes, p.proargtypes::oid[]), p.proargmodes)
                           WITH ORDINALITY u(argname, argtype, argmode, k)
             WHERE p.oid OPERATOR(pg_catalog.=) fn) a
      LEFT JOIN @extschema@.ranread_options() o
             ON o.name OPERATOR(pg_catalog.=) a.argname AND NOT o.internal
            AND (o.type::pg_catalog.oid OPERATOR(pg_catalog.=) a.argtype
                 OR (SELECT t.typarray FROM pg_catalog.pg_type t WHERE t.oid OPERATOR(pg_catalog.=) o.type) OPERATOR(pg_catalog.=) a.argtype)
      LEFT JOIN ranread_internal.ranread_help_arguments() h ON h.name OPERATOR(pg_catalog.=) a.argname
      -- a probe's caps are its own, narrower than a batch's (src/probe.c)
      LEFT JOIN ranread_internal.ranread_probe_caps() c
             ON c.argument OPERATOR(pg_catalog.=) a.argname
            AND wanted OPERATOR(pg_catalog.=) ANY (ARRAY['ranread_probe', 'ranread_probe_schedule'])
     WHERE a.argmode IS NULL OR a.argmode OPERATOR(pg_catalog.=) ANY (ARRAY['i', 'b', 'v']::"char"[])
     ORDER BY a.k;
END
$$;

-- ranread_help(name): one function of the help as lines of text of at most
-- 118 characters (a screen of 120 columns in psql's default format), a
-- line per fact: what it does, its call (argument names and types), what
-- it returns, each argument with its type, unit, default (or required),
-- what is allowed and what it is, then the example; the same as a table:
-- ranread_internal.ranread_help_table(name)
CREATE OR REPLACE FUNCTION @extschema@.ranread_help(name text)
RETURNS SETOF text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    wanted text := ranread_internal.ranread_help_name(name);
    a record;
    e record;
    fn oid;
BEGIN
    -- the errors (a null, an unknown name, a view's) are the table's, naming
    -- the value as given
    PERFORM FROM ranread_internal.ranread_help_table(name) LIMIT 1;
    SELECT h.* INTO e FROM ranread_internal.ranread_help_table() h
     WHERE h.name OPERATOR(pg_catalog.=) ANY (ARRAY[wanted, 'ranread_' || wanted])
     ORDER BY h.name OPERATOR(pg_catalog.=) wanted DESC LIMIT 1;
    SELECT p.oid INTO fn FROM pg_catalog.pg_proc p, pg_catalog.pg_extension x
     WHERE x.extname OPERATOR(pg_catalog.=) 'ranread' AND p.pronamespace OPERATOR(pg_catalog.=) x.extnamespace
       AND p.proname OPERATOR(pg_catalog.=) e.name
     ORDER BY p.pronargs DESC LIMIT 1;
    RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap(e.name || ': ' || e.description, 118, '', '  ');
    -- the call and the result, cut between two arguments (or columns) only
    RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap_words(
        regexp_split_to_array('call: ' || e.name || '(' || pg_catalog.pg_get_function_identity_arguments(fn) || ')',
                              '(?<=,) '), 118, '  ', '      ');
    RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap_words(
        regexp_split_to_array('returns: ' || pg_catalog.pg_get_function_result(fn)
                              -- a composite type: its columns
                              || coalesce((SELECT ' (' || string_agg(t.attname || ' ' || pg_catalog.format_type(t.atttypid, t.atttypmod), ', '
                                                                     ORDER BY t.attnum) || ')'
                                             FROM pg_catalog.pg_proc p
                                             JOIN pg_catalog.pg_type y ON y.oid OPERATOR(pg_catalog.=) p.prorettype
                                             JOIN pg_catalog.pg_attribute t ON t.attrelid OPERATOR(pg_catalog.=) y.typrelid
                                            WHERE p.oid OPERATOR(pg_catalog.=) fn AND p.proallargtypes IS NULL
                                              AND t.attnum OPERATOR(pg_catalog.>) 0 AND NOT t.attisdropped), ''),
                              '(?<=,) '), 118, '  ', '      ');
    RETURN NEXT 'arguments:';
    FOR a IN SELECT * FROM ranread_internal.ranread_help_table(wanted) LOOP
        RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap(
            a.argument || ' ' || a.type || coalesce(' (' || a.unit || ')', '') || ', '
            || CASE WHEN a.default_value OPERATOR(pg_catalog.=) '(required)' THEN 'required'
                    ELSE 'default ' || regexp_replace(a.default_value, '^NULL: (.*)$', 'NULL (\1)') END
            || coalesce(', allowed ' || nullif(a.allowed, ''), '')
            || coalesce(': ' || nullif(a.description, ''), ''),
            118, '  ', '      ');
    END LOOP;
    RETURN NEXT 'example:';
    RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap_sql(e.example, 118, '  ', '    ');
END
$$;
