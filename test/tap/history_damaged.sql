-- ranread_brief, ranread_summary and ranread_seconds over a damaged history
-- (rows a superuser wrote by hand): no row breaks them for everyone
-- (docs/design.md, "What any role may call"); a figure that is not a
-- number, or does not fit its column, is NULL, the rest of the row stays:
--  - a batch with NaN, Infinity and -Infinity figures, counts at the
--    bigint's end, run ten years from now (a clock gone backwards)
--  - a batch with figures of 1e20 and -1e20 (past numeric(15,3) and a
--    bigint), negative processes and block size, zero groups
--  - a batch with no figures at all (NULL) and no results
--  - seconds of a batch whose counts add up past a bigint, with averages
--    and slowest I/Os of 1e300 and NaN, a negative second, a second at the
--    integer's end; and one sane second beside them, read as it was
--  - all of it read whole (every column computed) by a role granted
--    'report'
BEGIN;
SET client_min_messages = error;
SELECT plan(12);

\ir lib/util.psql

DO $$ BEGIN
    IF to_regrole('tap_damaged_report') IS NULL THEN CREATE ROLE tap_damaged_report; END IF;
END $$;
SELECT count(*) FROM ranread_grant('tap_damaged_report', 'report');

INSERT INTO ranread_batches (batch, run_at, target, tablespace, processes, duration, block_size,
  queue_depth, write_pct, pattern, region_start, region_end, seed, workers, engine, reads, writes,
  seconds, iops, mbps, avg_ms, p99_ms, max_ms, status, groups, distribution)
VALUES (990101, now() + interval '10 years', 'f', 'pg_default', 1, '1s', 8192, 1, 0, 'random', 0, 100, 1, 1, 'io_uring',
        9223372036854775807, 9223372036854775807, 'NaN', 'Infinity', '-Infinity', 1e300, -1, 'NaN', 'completed', 1, 'uniform'),
       (990102, now() - interval '10 years', 'f', 'pg_default', -5, '-1s', -8192, -1, -50, 'random', 100, 0, 1, 1, 'io_uring',
        -1, -1, -1, -1e20, 1e20, -1, 1e15, 1e16, 'completed', 0, 'uniform'),
       (990103, now(), 'f', 'pg_default', 1, NULL, 8192, 1, 0, 'random', 0, 100, 1, 1, 'io_uring',
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'completed', NULL, NULL);
INSERT INTO ranread_intervals (batch, second, reads, writes, iops, avg_ms, max_ms, grp, histogram) VALUES
  (990101, 1, 9223372036854775807, 9223372036854775807, 'Infinity', 'NaN', 'Infinity', 1, NULL),
  (990101, 1, 9223372036854775807, 0, 1e300, 1e300, 1e300, 2, NULL),
  (990101, 2, 1, 0, 1.7e308, 1e300, 1e20, 1, NULL),
  (990101, 2, 1, 0, 1.7e308, -1e300, -1e20, 2, NULL),
  (990102, -1, -5, -5, -1e20, -1, 1e20, 1, NULL),
  (990102, 2147483647, 1, 1, 'NaN', 'NaN', 'NaN', 1, NULL),
  (990103, 1, 100, 50, 150, 0.25, 1.5, 1, NULL),
  (990103, 1, 100, 0, 100, 0.5, 2.5, 2, NULL);

SET ROLE tap_damaged_report;
SELECT is(pg_temp.error_of($$SELECT sum(length(t::text)) FROM ranread_brief t$$), NULL,
    'ranread_brief reads whole over the damaged rows');
SELECT is(pg_temp.error_of($$SELECT sum(length(t::text)) FROM ranread_summary t$$), NULL,
    'ranread_summary too');
SELECT is(pg_temp.error_of($$SELECT sum(length(t::text)) FROM ranread_summary_full t$$), NULL,
    'ranread_summary_full too');
SELECT is(pg_temp.error_of($$SELECT sum(length(t::text)) FROM ranread_seconds t$$), NULL,
    'ranread_seconds reads whole over the damaged seconds');

SELECT is((SELECT format('%s|%s|%s|%s|%s', iops, mbps, avg_ms, p99_ms, seconds) FROM ranread_brief WHERE batch = 990101),
    '|||-1.000|', 'NaN, infinite and 1e300 figures are NULL; a p99 of -1 ms as written');
SELECT is((SELECT format('%s|%s|%s|%s', iops, mbps, avg_ms, p99_ms) FROM ranread_brief WHERE batch = 990102),
    '||-1.000|', '... as are IOPS of -1e20, MiB/s of 1e20 and a p99 of 1e15 ms (past their columns); an average of -1 ms as written');
SELECT is((SELECT format('%s|%s', max_ms, processes) FROM ranread_summary WHERE batch = 990102),
    '|-5', 'ranread_summary: a slowest I/O of 1e16 ms is NULL, the processes as written');
SELECT is((SELECT count(*) FROM ranread_brief WHERE batch = 990103 AND iops IS NULL AND avg_ms IS NULL), 1::bigint,
    'a batch with no figures has its row, its figures NULL');

SELECT is((SELECT format('%s|%s|%s|%s|%s', reads, writes, iops, avg_ms, max_ms) FROM ranread_seconds WHERE batch = 990101 AND second = 1),
    '|9223372036854775807|||', 'a second whose reads add up past a bigint: NULL, its writes (the last bigint) kept, NaN and infinite figures NULL');
SELECT is((SELECT format('%s|%s|%s|%s', reads, iops, avg_ms, max_ms) FROM ranread_seconds WHERE batch = 990101 AND second = 2),
    '2||0.000|', 'IOPS of 3.4e308 in all and a slowest I/O of 1e20 ms: NULL; averages of 1e300 and -1e300 weigh to 0');
SELECT is((SELECT format('%s|%s', count(*), max(reads)) FROM ranread_seconds WHERE batch = 990102),
    '2|1', 'a negative second and the integer''s last: both rows there');
SELECT is((SELECT format('%s|%s|%s|%s|%s', reads, writes, iops, avg_ms, max_ms) FROM ranread_seconds WHERE batch = 990103),
    '200|50|250|0.350|2.500', 'a sane second beside them reads as it was: IOPS added, the average weighted by the I/Os');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
