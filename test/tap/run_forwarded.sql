-- Every function that takes a workload hands each option it takes on to
-- its batches (src/workload/options.tsv, @options): a sweep's steps, a
-- latency-target search's windows, a study's points and a mix run with the
-- I/O priority and verify they were given, as ranread_run does.
SET client_min_messages = error;
SELECT plan(8);
SELECT ranread_setup('16MB', target => 'tap_fwd');

-- the batches a call made: those after the latest batch before it
CREATE TEMP TABLE mark (batch bigint);
CREATE FUNCTION pg_temp.since_mark() RETURNS SETOF ranread_batches LANGUAGE sql AS $$
    SELECT * FROM ranread_batches WHERE batch > (SELECT coalesce(max(batch), 0) FROM mark)
$$;
CREATE FUNCTION pg_temp.mark() RETURNS void LANGUAGE sql AS $$
    DELETE FROM mark; INSERT INTO mark SELECT max(batch) FROM ranread_batches
$$;

SELECT pg_temp.mark();
SELECT count(*) FROM ranread_sweep(start => 1, max_processes => 2, duration => '0.2s', target => 'tap_fwd',
                                   io_priority => 'best-effort:3', verify => true, write_pct => 10);
SELECT is((SELECT string_agg(DISTINCT io_priority, ',') FROM pg_temp.since_mark()), 'best-effort:3',
    'every step of a sweep runs at the I/O priority it was given');
SELECT is((SELECT bool_and(verify_checked IS NOT NULL) FROM pg_temp.since_mark()), true,
    '... and verifies, when asked');

SELECT pg_temp.mark();
SELECT count(*) FROM ranread_latency_target(target_ms => 1000, max_load => 2, duration => '0.2s', target => 'tap_fwd',
                                            io_priority => 'best-effort:1', verify => true);
SELECT is((SELECT string_agg(DISTINCT io_priority, ',') FROM pg_temp.since_mark()), 'best-effort:1',
    'every window of a latency-target search runs at the I/O priority it was given');
SELECT is((SELECT bool_and(verify_checked IS NOT NULL) FROM pg_temp.since_mark()), true,
    '... and verifies, when asked');

SELECT pg_temp.mark();
SELECT count(*) FROM ranread_study(processes => ARRAY[1, 2], duration => '0.2s', target => 'tap_fwd',
                                   io_priority => 'best-effort:2', verify => true);
SELECT is((SELECT string_agg(DISTINCT io_priority, ',') FROM pg_temp.since_mark()), 'best-effort:2',
    'every point of a study runs at the I/O priority it was given');
SELECT is((SELECT bool_and(verify_checked IS NOT NULL) AND count(*) = 2 FROM pg_temp.since_mark()), true,
    '... and verifies, when asked (a group''s option the study shares with every point)');

SELECT pg_temp.mark();
SELECT count(*) FROM ranread_mix('[{"processes": 1, "target": "tap_fwd"}]', duration => '0.2s', io_priority => 'idle');
SELECT is((SELECT string_agg(io_priority, ',') FROM pg_temp.since_mark()), 'idle',
    'a mix runs at the I/O priority it was given');
SELECT ok((SELECT ranread_purge('tap_fwd')), 'cleaned up');
SELECT * FROM finish();
