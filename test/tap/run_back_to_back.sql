-- Batches run one after another: as soon as ranread_run returns, the next
-- batch may start (as ranread_sweep and any script of runs do).  One batch
-- runs at a time in the cluster, so a batch that has returned must not
-- still hold the cluster while its workers wind down.
BEGIN;
SET client_min_messages = error;
SELECT plan(5);

-- Run n batches back to back in one statement; the first error, or NULL
CREATE FUNCTION pg_temp.back_to_back(n int, arguments text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    FOR i IN 1..n LOOP
        BEGIN
            EXECUTE format('SELECT * FROM ranread_run(%s)', arguments) INTO r;
            IF r.status <> 'completed' THEN
                RETURN format('batch %s of %s ended %s', i, n, r.status);
            END IF;
        EXCEPTION WHEN OTHERS THEN
            RETURN format('batch %s of %s: %s: %s', i, n, SQLSTATE, SQLERRM);
        END;
    END LOOP;
    RETURN NULL;
END
$$;

SELECT ok((SELECT size_bytes = 16777216 FROM ranread_setup('16MB', target => 'tap_run_back_to_back')),
    'a 16MB target');
SELECT is(pg_temp.back_to_back(20, $$2, 50, target => 'tap_run_back_to_back'$$), NULL,
    'twenty batches run back to back, each starting as the one before returns');
SELECT is(pg_temp.back_to_back(20, $$20, 10, target => 'tap_run_back_to_back'$$), NULL,
    'so do twenty batches of twenty processes');
SET ranread.engine = sync;
SELECT is(pg_temp.back_to_back(100, $$4, 10, target => 'tap_run_back_to_back'$$), NULL,
    'and a hundred batches on the synchronous engine, four workers each: a batch''s worker slots are free when it returns');
RESET ranread.engine;
SELECT is(pg_temp.back_to_back(10, $$1, 20, target => 'tap_run_back_to_back', duration => '0.1s'$$), NULL,
    'and ten short timed batches');

SELECT * FROM finish();
ROLLBACK;
