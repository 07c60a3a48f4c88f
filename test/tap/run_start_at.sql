-- start_at: the workers get ready, then the I/O begins at that instant (a
-- fleet starts its nodes together with it).  The batch records the instant
-- asked for and its first I/O, which never comes before it and follows it
-- closely; a mix starts every group at it.
BEGIN;
SET client_min_messages = error;
SELECT plan(9);

\ir lib/runs.psql

SELECT ok((SELECT size_bytes = 16777216 FROM ranread_setup('16MB', target => 'tap_start_at')),
    'a 16MB target');

-- start_at 1.5 s ahead of the call: the call waits for it
CREATE TEMP TABLE asked AS SELECT clock_timestamp() + interval '1.5 s' AS at;
-- a batch with start_at runs
SELECT pg_temp.setup_run('at', format($$2, duration => '0.5 s', target => 'tap_start_at', start_at => %L$$,
                                   (SELECT at FROM asked)));
SELECT ok((SELECT elapsed FROM runs WHERE label = 'at') >= 1.5,
    'the call lasts until start_at and the run after it');
SELECT is((SELECT start_at FROM pg_temp.summary('at')), (SELECT at FROM asked),
    'ranread_summary records the start_at asked for');
SELECT ok((SELECT first_io_at >= start_at FROM pg_temp.summary('at')),
    'the first I/O starts at start_at, never before');
SELECT cmp_ok((SELECT extract(epoch FROM first_io_at - start_at) FROM pg_temp.summary('at'))::float8,
    '<', 0.25::float8, 'the first I/O follows start_at within a quarter of a second');

-- a mix: every group starts at start_at
CREATE TEMP TABLE mix AS
SELECT * FROM ranread_mix('[{"label": "a", "processes": 1}, {"label": "b", "processes": 1, "block_size": 65536}]',
                          duration => '0.5 s', target => 'tap_start_at',
                          start_at => clock_timestamp() + interval '1 s');
SELECT is((SELECT count(*) FROM ranread_group_summary g JOIN ranread_summary_full s USING (batch)
            WHERE g.batch = (SELECT max(batch) FROM mix) AND g.first_io_at >= s.start_at), 2::bigint,
    'a mix with start_at: no group starts before it');
SELECT cmp_ok((SELECT extract(epoch FROM max(g.first_io_at) - min(g.first_io_at))
                 FROM ranread_group_summary g WHERE g.batch = (SELECT max(batch) FROM mix))::float8,
    '<', 0.05::float8, '... and its groups start within 50 ms of each other');

-- a spec's start_at (or duration) that its type does not accept: the error
-- says which key it came from
CREATE FUNCTION pg_temp.context_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE c text;
BEGIN
    EXECUTE q;
    RETURN NULL;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS c = PG_EXCEPTION_CONTEXT;
    RETURN c;
END
$$;
SELECT matches(pg_temp.context_of($$SELECT ranread_run_step('{"groups": [{"processes": 1}], "start_at": "soon"}')$$),
    '^start_at of ranread_run_step',
    'a spec whose start_at is no timestamp: the error names the key');
SELECT matches(pg_temp.context_of($$SELECT ranread_run_step('{"groups": [{"processes": 1}], "duration": "a while"}')$$),
    '^duration of ranread_run_step',
    'a spec whose duration is no interval: the error names the key');

SELECT pg_temp.run_log();
SELECT ranread_purge('tap_start_at');

SELECT * FROM finish();
ROLLBACK;
