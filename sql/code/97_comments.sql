-- What every object a user meets says of itself (\df+, \dv+, \d+, \dx+):
-- one line each, for a DBA, with the unit of what it returns.  Objects are
-- found by name in the extension's schema, every signature of a function
-- name alike, so that a changed argument list needs no edit here; a name
-- that no longer exists is an error, so that a stale line cannot stay.
-- Column comments are given once per column name and put on every table,
-- view and row type of the extension that has that column (a few tables
-- give theirs apart).  The steps behind the functions live in schema
-- ranread_internal, not on search_path, and carry no comment here (a
-- comment beginning "Internal:" would keep ranread_help() from listing a
-- function).  test/tap/comments.sql checks that every function, view,
-- table and type of the extension in this schema has a comment.

COMMENT ON EXTENSION ranread IS 'Storage benchmark from inside PostgreSQL: random and sequential I/O on the storage under a tablespace (IOPS, MiB/s, latency in ms); start with SELECT * FROM ranread_help()';
COMMENT ON SCHEMA ranread_internal IS 'ranread''s internal helpers: the steps behind its functions, not called by hand';

COMMENT ON EVENT TRIGGER ranread_target_grants IS 'Takes back any privilege granted on a ranread target (docs/reference.md, "Privileges")';

DO $comments$
DECLARE
    nsp oid := '@extschema@'::pg_catalog.regnamespace;
    r record;
    o record;
    n integer;
BEGIN
    FOR r IN SELECT * FROM (VALUES
        -- setup
        ('f', 'ranread_setup', 'Creates or re-creates a target of SIZE in a tablespace, every block written with O_DIRECT; returns its size (bytes), the seconds it took and MiB/s'),
        ('f', 'ranread_purge', 'Drops a target and frees its space; true when there was one'),
        ('f', 'ranread_limits', 'The limits ranread_run checks: processes, queue depth, I/Os in flight, buffer bytes in flight'),
        ('f', 'ranread_options', 'The workload options of ranread_run and the functions built on it: type, default, range, unit, what NULL means, help'),
        ('f', 'ranread_target_check', 'Relations of the ranread_target access method that are not sound targets, with what is wrong and what to do; empty when all is well'),
        -- run
        ('f', 'ranread_verify', 'Reads a whole target once (O_DIRECT) and checks every block''s stamp and checksum: blocks, bad blocks (corrupt, wrong_block, missing), the newest batch and sequence found'),
        ('r', 'ranread_verify_errors', 'The first bad blocks (up to 100) each verifying batch or ranread_verify call found: block, kind, expected, found'),
        ('f', 'ranread_run', 'Runs one batch of PROCESSES parallel I/O streams on a target and waits; returns IOPS, MiB/s and latency (avg, p50 ... max) in ms'),
        ('f', 'ranread_mix', 'Runs several groups of processes with their own options as one batch; one row per group and a total row (IOPS, MiB/s, latency in ms)'),
        ('f', 'ranread_run_step', 'Runs one batch described as JSON (the spec ranread_options lists), as the sweeps and studies do; returns what ranread_mix does'),
        ('f', 'ranread_stop', 'Stops the running batch from any session, as pg_cancel_backend is allowed; returns the processes stopped'),
        ('f', 'ranread_blocks', 'Where each process''s first N I/Os go (byte offsets in the target) for these options; does no I/O'),
        ('f', 'ranread_sweep', 'Batches at START, 2x, 4x ... processes until a rule stops them (status: a step did not complete; latency: average above MAX_AVG_MS ms on two steps in a row; scaling: a step gained less than 10% of linear scaling; max_processes); one row per step (IOPS, latency in ms), stop_reason on the last'),
        ('f', 'ranread_profile_postgres', 'A busy server''s I/O in three phases: backends'' random 8 kB reads alone, with the WAL writer''s durable commits, and with a checkpoint''s writes; per group its figures (ms), and how the read tail grows'),
        ('f', 'ranread_paths', 'The same reads on the device path (O_DIRECT) and the server path (shared buffers, page cache), alternated, at each effective_io_concurrency: both figures (IOPS, latency in ms) and what PostgreSQL gets in % of the device'),
        ('f', 'ranread_latency_target', 'Finds the highest load (queue depth or processes) at which PERCENTILE % of I/Os take at most TARGET_MS ms, as fio''s latency_target; one row per window'),
        ('f', 'ranread_latency_target_next', 'The latency-target search''s rule, pure: the next load, whether it confirms, the load found and why it stops'),
        -- report
        ('f', 'ranread_chart', 'SVG chart of a sweep: IOPS against processes with average and p99 latency (ms) and the latency bound; the latest sweep by default'),
        ('f', 'ranread_timeline', 'SVG chart of one batch per second: IOPS and latency (ms), and its latency heatmap under it; the latest batch by default'),
        ('f', 'ranread_svg', 'SVG of a line, bar or heat chart described by a jsonb spec (docs/charts-and-reports.md, "Charts from SQL"); pure'),
        ('f', 'ranread_report', 'The HTML report of the server, the history and a study or sweep; the latest by default'),
        ('f', 'ranread_server_info', 'What the report says of the server: kernel, CPUs, RAM, filesystems and devices, PostgreSQL settings'),
        ('f', 'ranread_hist_merge', 'Aggregate: merges stored latency histograms into one'),
        ('f', 'ranread_hist_percentile', 'The latency (ms) at a percentile (0 to 100) of a stored histogram'),
        ('f', 'ranread_hist_count', 'The number of I/Os a stored histogram counts'),
        ('f', 'ranread_hist_buckets', 'The buckets of a stored histogram: latency range (ms) and I/Os in each'),
        ('f', 'ranread_hist_within', 'The percentage of a stored histogram''s I/Os that took at most LIMIT_MS ms'),
        ('f', 'ranread_steady_verdict', 'SNIA''s steady-state rule on five rounds'' IOPS (range at most 20% of their mean, trend within 10%; rounds of 2 s and 100 I/Os at least when ROUND_SECONDS is given): steady, excursion and slope (fractions of the mean), and the verdict in words'),
        ('f', 'ranread_flash_guidance', 'The all-flash guidance (average at most 2 ms, no I/O above 5 ms) on an average and a maximum latency (ms): met, and the verdict in words naming the part that failed'),
        -- study, compare
        ('f', 'ranread_study', 'Runs a grid of batches (every combination of the dimensions given, or an ORION matrix) in one call; one row per point (IOPS, MiB/s, latency in ms)'),
        ('f', 'ranread_study_grid', 'A study as ORION''s pivot: one metric (iops, mbps, latency in ms) as rows by columns'),
        ('f', 'ranread_study_summary', 'A study''s maxima and where they were reached (IOPS, MiB/s, latency in ms), as ORION''s summary'),
        ('f', 'ranread_study_chart', 'SVG chart of a study: latency (ms) against IOPS, a curve per row, with the bound and the IOPS at it'),
        ('f', 'ranread_study_heat', 'SVG heat table of a study''s grid for one metric'),
        ('f', 'ranread_compare_chart', 'SVG chart comparing studies and sweeps: latency (ms) against IOPS, a curve each, with the IOPS at the bound and the gain over the first'),
        ('f', 'ranread_profile', 'Runs a CrystalDiskMark, ORION or SNIA profile as a study and reports it as the tool does (MB/s, IOPS, latency in us)'),
        ('f', 'ranread_profile_report', 'A profile''s rows again, as ranread_profile returned them (MB/s, IOPS, latency in us)'),
        ('f', 'ranread_profile_chart', 'SVG chart of a profile, as the tool draws it'),
        -- fleet
        ('f', 'ranread_fleet', 'Runs one batch on many PostgreSQL servers at once through ranread''s own connections; one row per node and the fleet''s total (IOPS, MiB/s, latency in ms)'),
        ('f', 'ranread_fleet_sweep', 'The sweep across a fleet: processes per node START, 2x, 4x ... until the fleet''s average latency passes MAX_AVG_MS (ms); one row per step'),
        ('f', 'ranread_fleet_rows', 'A fleet''s rows again, as ranread_fleet returned them; the latest fleet by default'),
        ('f', 'ranread_fleet_chart', 'SVG bar chart of a fleet''s IOPS per node and in total'),
        ('f', 'ranread_fleet_timeline', 'SVG chart of a fleet''s IOPS per second, a line per node and the total'),
        -- commit path, advice
        ('f', 'ranread_commit_test', 'The commit path as pg_test_fsync measures it, on the filesystem of pg_wal or a tablespace: one row per test (ops/s, latency in ms, durable)'),
        ('f', 'ranread_advise', 'Suggests random_page_cost, seq_page_cost, the io_concurrency settings, parallel workers and wal_sync_method from the history, with figures, formula and SQL; applies nothing'),
        ('f', 'ranread_advise_page_costs', 'The advisor''s formula for seq_page_cost and random_page_cost from times per page (ms); pure'),
        ('f', 'ranread_advise_io_concurrency', 'The advisor''s formula for effective_io_concurrency from IOPS and latency (ms) by queue depth; pure'),
        ('f', 'ranread_advise_parallel_workers', 'The advisor''s formula for max_parallel_workers_per_gather from one and many processes'' MiB/s; pure'),
        ('f', 'ranread_advise_wal_sync_method', 'The advisor''s choice of wal_sync_method from each method''s commits per second; pure'),
        -- export, housekeeping
        ('f', 'ranread_export', 'Writes the summary (tsv, csv, json, full precision), the chart (svg) or the report (html) to a new file in a server directory; returns its path'),
        ('f', 'ranread_export_study', 'Writes a study''s files (html, ORION''s csv grids and summary, json) to a server directory; returns their paths'),
        ('f', 'ranread_export_sweep', 'Writes a sweep''s report (html) to a server directory; returns its path'),
        ('f', 'ranread_fleet_export', 'Writes a fleet''s rows (tsv, csv), everything (json) or its chart (svg) to a new file in a server directory; returns its path'),
        ('f', 'ranread_reset', 'Deletes history: all of it, or the batches started before a time (sweeps, studies and fleets whole); returns the batches removed'),
        ('f', 'ranread_help', 'Help: the entry points by task with an example each; with a name, that function''s arguments with defaults and units'),
        ('f', 'ranread_grant', 'Grants a role what ''run'', ''report'', ''probe'' or ''export'' needs (docs/reference.md, "Privileges"); returns a row per kind of use, or with verbose => true every statement it ran'),
        ('f', 'ranread_revoke', 'Takes back from a role what ranread_grant gave for ''run'', ''report'', ''probe'' or ''export''; returns a row per kind of use, or with verbose => true every statement it ran'),
        -- keeping watch: the probe and its schedule
        ('f', 'ranread_probe', 'A probe: a small paced read-only batch (queue depth 1, 8 KiB random reads at RATE_IOPS for DURATION, low I/O priority) on a tablespace''s probe target, within ranread.probe_max_iops and ranread.probe_max_seconds; kept in ranread_probes; returns IOPS and latency (ms)'),
        ('f', 'ranread_probe_setup', 'Creates or re-creates the small target (256 MB by default) that a tablespace''s probes read; returns what ranread_setup does'),
        ('f', 'ranread_probe_purge', 'Drops a tablespace''s probe target, whose probes then fail until ranread_probe_setup makes it again; true when there was one'),
        ('f', 'ranread_probe_schedule', 'Schedules probes of a tablespace with pg_cron (one job, named ''ranread probe TABLESPACE''), refusing when pg_cron could not run it on this server; returns the job''s id'),
        ('f', 'ranread_probe_schedules', 'The scheduled probes (pg_cron jobs) this role sees: tablespace, schedule, the last run, its error when it failed, and the last probe'),
        ('f', 'ranread_probe_unschedule', 'Removes the pg_cron job of a tablespace''s probes; true when there was one'),
        -- internal steps still in this schema
        -- durability
        ('f', 'ranread_durability_start', 'Procedure (CALL, outside a transaction): writes stamped blocks made durable by METHOD and logs each acknowledged one where a power cut of the tested storage cannot take it; cut the power during it'),
        ('f', 'ranread_durability_check', 'After the restart: reads the durability file back against the log; acknowledged writes lost, blocks torn, and the verdict'),
        ('f', 'ranread_durability_stop', 'Stops a running durability start from another session; true when one was running'),
        ('f', 'ranread_durability_purge', 'Drops the durability file of a test that will not be checked; the history row stays'),
        -- tables
        ('r', 'ranread_batches', 'History: one row per batch, with every option, the figures (IOPS, MiB/s, latency in ms) and both merged histograms'),
        ('r', 'ranread_results', 'History: one row per process of each batch (IOPS, latency in ms, histograms)'),
        ('r', 'ranread_intervals', 'History: one row per batch, group and second (IOPS, latency in ms)'),
        ('r', 'ranread_groups', 'History: one row per group of each batch (a plain batch has one, labelled main)'),
        ('r', 'ranread_sweeps', 'History: one row per sweep: its settings, why it stopped, the IOPS within the bound'),
        ('r', 'ranread_studies', 'History: one row per study that returned: kind, call, definition, points planned and completed'),
        ('r', 'ranread_target_catalog', 'The targets ranread_setup made: relation, tablespace, size (bytes); read ranread_targets instead'),
        ('r', 'ranread_nodes', 'Named fleet nodes: name and connection string (no password: use ~/.pgpass or a service file)'),
        ('r', 'ranread_fleets', 'History: one row per fleet: its definition, clocks, window and totals (IOPS, MiB/s, latency in ms)'),
        ('r', 'ranread_fleet_nodes', 'History: one row per node of each fleet: its batch there, figures, clock offset and round trip (ms)'),
        ('r', 'ranread_fleet_seconds', 'History: one row per node of each fleet and second (IOPS, latency in ms)'),
        ('r', 'ranread_fleet_sweeps', 'History: one row per fleet sweep: its settings, why it stopped, the IOPS within the bound'),
        ('r', 'ranread_durability', 'History: one row per durability test: method, tablespace, where the log was, acknowledged writes, and its check (lost, torn, verdict)'),
        -- views
        ('v', 'ranread_summary', 'One row per batch: when, where, what ran, the load, IOPS, MiB/s, latency (ms, rounded) and status (1.1''s columns); ranread_brief fits 120 columns, ranread_summary_full has every column'),
        ('v', 'ranread_brief', 'One line per batch in 120 columns: processes, what ran, seconds, IOPS, MiB/s, average and p99 latency (ms), status'),
        ('v', 'ranread_progress', 'What runs now and how far it is, for any session, a row that fits a screen: a row per sweep, study, search or fleet and per run, probe, commit test, setup or verify: what runs, its batch, phase, step of steps, I/Os, seconds, IOPS and p99 (ms) of the last 5 s, eta; every column: ranread_progress_full'),
        ('v', 'ranread_progress_full', 'What runs now, every column (read it with \gx): pid, role, kind, id, target, batch, phase, step, steps, processes, I/Os, seconds, IOPS and p99 (ms) of the last 5 s, bytes done of a setup or verify, started_at, time left, eta'),
        ('v', 'ranread_summary_full', 'One row per batch with every column: options, figures (IOPS, MiB/s, latency in ms, rounded), CPU, device, steadiness, notes, what it ran on'),
        ('v', 'ranread_process_summary', 'One row per process of every batch: its figures (IOPS, MiB/s, latency in ms, rounded), without the histogram bytes of ranread_results'),
        ('v', 'ranread_group_summary', 'One row per group of every batch: its options and figures (IOPS, MiB/s, latency in ms)'),
        ('v', 'ranread_targets', 'The targets: tablespace, size (bytes), state and what to do about it'),
        ('v', 'ranread_sweep_verdict', 'One row per sweep: the highest IOPS within the latency bound, the latency there (ms), whether it meets the flash guidance'),
        ('v', 'ranread_commit_summary', 'Every commit test''s rows: method, ops/s, latency (ms), durable'),
        ('v', 'ranread_latency_target_verdict', 'One row per latency-target search: the load found with its IOPS and latency (ms), or why none'),
        ('v', 'ranread_study_overview', 'One row per study in the history, cancelled ones too: kind, status, points, the best IOPS, MiB/s and latency (ms)'),
        ('v', 'ranread_study_points', 'One row per point of every study: its row, column and figures (IOPS, MiB/s, latency in ms)'),
        ('v', 'ranread_fleet_summary', 'One row per fleet: nodes, status, IOPS, MiB/s, latency (ms), clock spreads (ms), outliers'),
        ('v', 'ranread_fleet_series', 'A fleet''s IOPS and latency (ms) per second, all nodes together'),
        -- types
        ('t', 'ranread_run_result', 'The row ranread_run returns: one batch''s IOPS, MiB/s and latency (ms)'),
        ('t', 'ranread_setup_result', 'The row ranread_setup returns: the target, its size (bytes), seconds and MiB/s'),
        ('t', 'ranread_group_result', 'A row of ranread_mix: one group''s or the total''s IOPS, MiB/s and latency (ms)'),
        ('t', 'ranread_study_result', 'A row of ranread_study: one point''s IOPS, MiB/s and latency (ms)'),
        ('t', 'ranread_sweep_step', 'One step of a sweep, as its rule reads it: processes, IOPS, latency (ms)'),
        ('t', 'ranread_latency_step', 'One window of a latency-target search, as its rule reads it: load, IOPS, latency (ms)'),
        ('t', 'ranread_fleet_result', 'A row of ranread_fleet: one node''s or the fleet''s IOPS, MiB/s, latency (ms), clock offset (ms)'),
        ('t', 'ranread_fleet_options', 'A fleet''s options, as its steps pass them on'),
        -- sequences
        ('S', 'ranread_durability_seq', 'Numbers the durability tests'),
        ('S', 'ranread_batch_seq', 'Batch ids'),
        ('S', 'ranread_sweep_seq', 'Sweep ids'),
        ('S', 'ranread_study_seq', 'Study ids'),
        ('S', 'ranread_fleet_seq', 'Fleet ids'),
        ('S', 'ranread_latency_target_seq', 'Latency-target search ids'),
        ('S', 'ranread_commit_test_seq', 'Commit test ids')
    ) c(kind, name, description)
    LOOP
        n := 0;
        IF r.kind = 'f' THEN
            FOR o IN SELECT p.oid::pg_catalog.regprocedure AS sig, p.prokind FROM pg_catalog.pg_proc p
                      WHERE p.pronamespace OPERATOR(pg_catalog.=) nsp AND p.proname OPERATOR(pg_catalog.=) r.name
            LOOP
                EXECUTE pg_catalog.format('COMMENT ON %s %s IS %L',
                    CASE o.prokind WHEN 'a' THEN 'AGGREGATE' WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END,
                    o.sig, r.description);
                n := n + 1;
            END LOOP;
        ELSIF r.kind = 't' THEN
            FOR o IN SELECT t.oid::pg_catalog.regtype AS t FROM pg_catalog.pg_type t
                      WHERE t.typnamespace OPERATOR(pg_catalog.=) nsp AND t.typname OPERATOR(pg_catalog.=) r.name
            LOOP
                EXECUTE pg_catalog.format('COMMENT ON TYPE %s IS %L', o.t, r.description);
                n := n + 1;
            END LOOP;
        ELSE
            FOR o IN SELECT c.oid::pg_catalog.regclass AS rel FROM pg_catalog.pg_class c
                      WHERE c.relnamespace OPERATOR(pg_catalog.=) nsp AND c.relname OPERATOR(pg_catalog.=) r.name
                        AND c.relkind OPERATOR(pg_catalog.=) r.kind::"char"
            LOOP
                EXECUTE pg_catalog.format('COMMENT ON %s %s IS %L',
                    CASE r.kind WHEN 'r' THEN 'TABLE' WHEN 'v' THEN 'VIEW' ELSE 'SEQUENCE' END, o.rel, r.description);
                n := n + 1;
            END LOOP;
        END IF;
        IF n = 0 THEN
            RAISE EXCEPTION 'sql/code/97_comments.sql comments % %, which does not exist', r.kind, r.name;
        END IF;
    END LOOP;

    -- Columns: by name, on every relation and row type that has one of that
    -- name, unless the relation is named (then on that one only, first)
    FOR r IN SELECT * FROM (VALUES
        (NULL, 'batch', 'The batch''s id'),
        (NULL, 'grp', 'The group''s number in its batch: 1, 2 ... (0: the total row of a mix)'),
        (NULL, 'label', 'The group''s label (main for a plain batch; total for a mix''s total)'),
        (NULL, 'run_at', 'When the batch started'),
        (NULL, 'finished_at', 'When it ended'),
        (NULL, 'processes', 'Parallel I/O streams (processes of the batch or group)'),
        (NULL, 'iterations', 'I/Os each process was asked to do; NULL: it ran for its duration'),
        (NULL, 'duration', 'How long it was asked to run; NULL: until its iterations were done'),
        (NULL, 'block_size', 'Bytes per I/O'),
        (NULL, 'queue_depth', 'I/Os each process keeps in flight'),
        (NULL, 'write_pct', 'Share of I/Os that write, percent'),
        (NULL, 'region_start', 'Where the part of the target the I/O goes to starts, percent of the target'),
        (NULL, 'region_end', 'Where that part ends, percent of the target'),
        (NULL, 'warmup', 'Time run before measuring'),
        (NULL, 'rate_iops', 'The cap on the whole batch''s I/Os per second; NULL: none'),
        (NULL, 'seed', 'The seed that chose the blocks: the same seed reads the same blocks'),
        (NULL, 'workers', 'Background workers that shared the processes'),
        (NULL, 'engine', 'The I/O engine every worker ran: io_uring or sync'),
        (NULL, 'reads', 'Reads done in the measured time'),
        (NULL, 'writes', 'Writes done in the measured time'),
        (NULL, 'seconds', 'Measured time, seconds'),
        (NULL, 'iops', 'I/O operations per second'),
        (NULL, 'mbps', 'MiB per second (2^20 bytes)'),
        (NULL, 'avg_ms', 'Average latency of one I/O, ms'),
        (NULL, 'min_ms', 'Lowest latency of one I/O, ms'),
        (NULL, 'p50_ms', 'Median latency, ms'),
        (NULL, 'p95_ms', '95th percentile latency, ms'),
        (NULL, 'p99_ms', '99th percentile latency, ms'),
        (NULL, 'p999_ms', '99.9th percentile latency, ms'),
        (NULL, 'max_ms', 'Highest latency of one I/O, ms'),
        (NULL, 'read_avg_ms', 'Average latency of the reads alone, ms'),
        (NULL, 'read_p99_ms', '99th percentile latency of the reads alone, ms'),
        (NULL, 'read_max_ms', 'Highest latency of the reads alone, ms'),
        (NULL, 'write_avg_ms', 'Average latency of the writes alone, ms'),
        (NULL, 'write_p99_ms', '99th percentile latency of the writes alone, ms'),
        (NULL, 'write_max_ms', 'Highest latency of the writes alone, ms'),
        (NULL, 'histogram', 'Latency histogram of every I/O (reads and writes): read it with ranread_hist_percentile, ranread_hist_buckets'),
        (NULL, 'write_histogram', 'Latency histogram of the writes alone'),
        (NULL, 'status', 'completed, stopped (ranread_stop), cancelled or failed (the message says why)'),
        (NULL, 'message', 'What went wrong, or what the reader should know'),
        (NULL, 'started_by', 'The role that started it'),
        (NULL, 'buffer_pages', 'What the I/O buffers got: huge (2 MB pages), small (4 kB) or mixed'),
        (NULL, 'filesystem', 'The filesystem the target''s files were on'),
        (NULL, 'timing', 'Whether every I/O was timed (ranread.timing); false: latency columns are empty'),
        (NULL, 'busy', 'Little''s law check, a fraction: the I/Os'' latencies summed over seconds x queue depth; 1 when no latency went missing, below 0.98 a WARNING (latency lost, or workers starved of CPU)'),
        (NULL, 'notes', 'Notes for the reader of the figures (cache, throttling, small target ...)'),
        (NULL, 'groups', 'Groups of a mix; NULL for a plain batch'),
        (NULL, 'mix', 'A mix''s groups and their options, as given'),
        (NULL, 'distribution', 'How blocks were chosen: uniform, zipf:THETA, pareto:H or hotset:PCT_IO/PCT_DATA'),
        (NULL, 'first_io_at', 'When the first I/O was issued'),
        (NULL, 'steady_state', 'The steady-state rule asked for, as PCT%/WINDOW; NULL: none'),
        (NULL, 'ended_steady', 'Whether the steady_state rule ended the run early (the IOPS of its last window stayed within PCT of their mean); not the SNIA verdict, which is steady'),
        (NULL, 'steady', 'SNIA''s steady-state verdict on five rounds of the measured time: the rounds'' IOPS range over at most 0.2 of their mean (steady_excursion) and their trend is within +-0.1 of it (steady_slope); NULL when too short to judge (rounds under 2 s or 100 I/Os)'),
        (NULL, 'steady_excursion', 'SNIA''s excursion: (max - min) / mean of the rounds'' IOPS, a fraction; steady needs at most 0.2'),
        (NULL, 'steady_slope', 'SNIA''s trend: least-squares slope x 4 / mean of the rounds'' IOPS, a fraction, negative when IOPS fell; steady needs it within +-0.1'),
        (NULL, 'sync', 'How writes were made durable: none, fdatasync, fsync, open_datasync or open_sync'),
        (NULL, 'start_at', 'When the I/O was asked to start'),
        (NULL, 'sweep', 'The sweep it is a step of'),
        (NULL, 'study', 'The study it is a point of'),
        (NULL, 'point', 'Its point in the study (or its window of a latency-target search), as JSON'),
        (NULL, 'fleet', 'The fleet it is part of'),
        (NULL, 'commit_test', 'The commit test it is part of'),
        (NULL, 'writes_per_op', 'Writes per commit of a commit test'),
        (NULL, 'direct', 'open_datasync and open_sync: whether the commit test opened its file with O_DIRECT (as pg_test_fsync does, and the server only at wal_level minimal); NULL for the other methods'),
        (NULL, 'tablespace', 'The tablespace the target''s files are in'),
        (NULL, 'target', 'The target the I/O went to'),
        (NULL, 'second', 'Second since the start of the measured time'),
        (NULL, 'size_bytes', 'Size of the target, bytes'),
        (NULL, 'max_avg_ms', 'The latency bound: average latency of one I/O, ms'),
        (NULL, 'stop_reason', 'Why it stopped: the rule''s name and a colon, then the figures that broke it (a sweep''s rules: status, latency, scaling, max_processes, as ranread_sweep states them)'),
        (NULL, 'max_iops', 'The highest IOPS within the latency bound'),
        (NULL, 'actual_latency_ms', 'The average latency at max_iops, ms'),
        (NULL, 'meets_flash_guidance', 'Whether the step of max_iops meets the all-flash guidance: an average of at most 2 ms and no I/O above 5 ms (ranread_flash_guidance)'),
        (NULL, 'flash_guidance', 'The all-flash guidance at the step of max_iops in words: met or not, each part''s figure, and which failed (ranread_flash_guidance)'),
        (NULL, 'offset_ms', 'The node''s clock minus the coordinator''s, ms'),
        (NULL, 'rtt_ms', 'Round trip to the node, ms'),
        (NULL, 'outlier', 'Whether the node''s IOPS lie far from the other nodes'''),
        (NULL, 'late_ms', 'How late the node''s first I/O was after the fleet''s start, ms'),
        (NULL, 'verify', 'Whether every page written was stamped and checksummed and every page read checked (the verify option)'),
        (NULL, 'verify_checked', 'verify: pages read and checked (warm-up included); NULL: not verified'),
        (NULL, 'verify_skipped', 'verify: pages read while a write of theirs was in flight, not checked'),
        (NULL, 'verify_errors', 'verify: bad blocks found, each once however often it was read (corrupt + wrong_block + lost); not 0: the batch failed'),
        (NULL, 'verify_corrupt', 'verify: blocks read without a ranread stamp or whose checksum did not match (torn or corrupt), each once'),
        (NULL, 'verify_wrong_block', 'verify: blocks read holding a whole page of another block or target (misdirected writes), each once'),
        (NULL, 'verify_lost', 'verify: blocks read older than a write the batch had acknowledged before the read (lost writes), each once'),
        ('ranread_batches', 'buffers_registered', 'Whether every worker''s I/O buffers were registered with its engine (io_uring fixed buffers); buffer_pages says their pages'),
        ('ranread_batches', 'start_late_ms', 'How long after the batch''s start the latest worker began its I/O, ms (a busy server); each worker measures its whole duration from its own start'),
        ('ranread_results', 'worker', 'The background worker that drove the process (1, 2, ...); a worker drives processes of one group'),
        ('ranread_groups', 'workers', 'How many background workers drove the group''s processes'),
        ('ranread_batches', 'io_priority', 'The workers'' I/O priority (the io_priority option: idle, best-effort:N, realtime:N); NULL: the server''s own'),
        (NULL, 'path', 'Which way the reads went: device (O_DIRECT, what the storage gives) or server (through shared buffers and the page cache, what PostgreSQL gets); NULL: a mix of both, or a batch of 1.1 (device)'),
        (NULL, 'effective_io_concurrency', 'The server path''s prefetch distance: blocks each process prefetched ahead of its read; NULL on the device path'),
        (NULL, 'shared_hits', 'The server path: measured reads whose block was in shared buffers'),
        (NULL, 'page_cache_hits', 'The server path: measured reads whose block was in the page cache before it was asked for'),
        (NULL, 'cache_pct', 'The server path: shared_hits + page_cache_hits in % of its reads; from 50 the figures are memory''s, not the device''s'),
        ('ranread_batches', 'server_settings', 'The server path: the settings in force (shared_buffers, the ring, data_checksums, effective_io_concurrency, ... io_method where the server has it), as JSON'),
        ('ranread_verify_errors', 'block', 'The bad block: its number in the target (8 kB blocks, across segment files)'),
        ('ranread_verify_errors', 'kind', 'corrupt, wrong_block, lost or missing'),
        ('ranread_verify_errors', 'expected', 'What the block should have held'),
        ('ranread_verify_errors', 'found', 'What it held'),
        ('ranread_verify_errors', 'at', 'When it was found (a ranread_verify call: when the call started)'),
        ('ranread_targets', 'state', 'ready, empty (after crash recovery), damaged, missing, or unavailable on a standby'),
        ('ranread_targets', 'protected', 'Made with the ranread_target access method, which maintenance leaves alone'),
        ('ranread_targets', 'note', 'What happened to the target and what to do'),
        ('ranread_nodes', 'conninfo', 'libpq connection string, without a password'),
        ('ranread_commit_summary', 'test', 'The pg_test_fsync test the row is'),
        ('ranread_commit_summary', 'method', 'The wal_sync_method measured'),
        ('ranread_commit_summary', 'writes', 'Writes per commit'),
        ('ranread_commit_summary', 'write_kb', 'KiB written per commit'),
        ('ranread_commit_summary', 'ops_per_s', 'Commits per second'),
        ('ranread_commit_summary', 'durable', 'Whether the method makes a commit durable')
    ) c(rel, col, description)
    LOOP
        n := 0;
        FOR o IN SELECT c.oid::pg_catalog.regclass AS rel
                   FROM pg_catalog.pg_class c
                   JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.oid
                  WHERE c.relnamespace OPERATOR(pg_catalog.=) nsp
                    AND c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'v', 'c']::"char"[])
                    AND c.relname OPERATOR(pg_catalog.~) '^ranread_'
                    AND a.attname OPERATOR(pg_catalog.=) r.col AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
                    AND (r.rel IS NULL OR c.relname OPERATOR(pg_catalog.=) r.rel)
                    AND (r.rel IS NOT NULL OR pg_catalog.col_description(c.oid, a.attnum) IS NULL)
        LOOP
            EXECUTE pg_catalog.format('COMMENT ON COLUMN %s.%I IS %L', o.rel, r.col, r.description);
            n := n + 1;
        END LOOP;
        IF n = 0 AND r.rel IS NOT NULL THEN
            RAISE EXCEPTION 'sql/code/97_comments.sql comments column %.%, which does not exist', r.rel, r.col;
        END IF;
    END LOOP;
END
$comments$;
