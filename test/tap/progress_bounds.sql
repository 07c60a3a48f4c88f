-- ranread_progress against a caller of ranread_progress_call in bad faith
-- (a role granted 'run' may call it for a call it registered): whatever
-- it says, every reader of the view still gets its rows, never an error
-- (docs/design.md, "Progress"):
--  - a time after this step past what an interval or a timestamp holds
--    (1e300 s, the largest float8): the time left is not known (NULL), as
--    is one past 100 years; 100 years less a day is still said
--  - a phase that ends at the end of time ('294276-12-01') plus a day
--    after it: not known
--  - NaN and -Infinity after, an until long gone: no time left is made up
--  - negative steps say no step; a long multibyte phase is cut whole
--  - a role granted 'report' reads the same rows
-- (A batch whose own time left is past any timestamp is
-- test/shell/74_progress_bounds.sh.)
BEGIN;
SET client_min_messages = error;
SELECT plan(12);

\ir lib/util.psql

DO $$ BEGIN
    IF to_regrole('tap_progress_run') IS NULL THEN CREATE ROLE tap_progress_run; END IF;
    IF to_regrole('tap_progress_report') IS NULL THEN CREATE ROLE tap_progress_report; END IF;
END $$;
SELECT count(*) FROM ranread_grant('tap_progress_run', 'run');
SELECT count(*) FROM ranread_grant('tap_progress_report', 'report');

SET ROLE tap_progress_run;
CREATE TEMP TABLE ids AS SELECT nextval('ranread_sweep_seq') AS sweep;
GRANT SELECT ON ids TO tap_progress_report;
SELECT ranread_internal.ranread_call_register('sweep', (SELECT sweep FROM ids));

-- the largest float8 as the time after this step
SELECT ranread_internal.ranread_progress_call('sweep', (SELECT sweep FROM ids), 'p', 1, 2, 1.7976931348623157e308);
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_progress$$), NULL,
    'a call that needs 1.8e308 s after its step: ranread_progress still reads');
SELECT is((SELECT format('%s|%s|%s|%s', step, steps, remaining IS NULL, eta IS NULL)
             FROM ranread_progress_full WHERE id = (SELECT sweep FROM ids)),
    '1|2|t|t', '... its row: step 1 of 2, the time left and eta not known');

SELECT ranread_internal.ranread_progress_call('sweep', (SELECT sweep FROM ids), 'p', 1, 2, 100 * 365.25 * 86400 + 1);
SELECT ok((SELECT remaining IS NULL FROM ranread_progress_full WHERE id = (SELECT sweep FROM ids)),
    'a time left past 100 years is not known');
SELECT ranread_internal.ranread_progress_call('sweep', (SELECT sweep FROM ids), 'p', 1, 2, 100 * 365.25 * 86400 - 86400);
SELECT is((SELECT remaining FROM ranread_progress_full WHERE id = (SELECT sweep FROM ids)),
    make_interval(secs => 100 * 365.25 * 86400 - 86400), '... one of 100 years less a day is said');

-- a phase that ends at the end of time, and a day after it
SELECT ranread_internal.ranread_progress_call('sweep', (SELECT sweep FROM ids), 'waiting', NULL, NULL, 86400,
                                              '294276-12-01 00:00:00+00');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_progress$$), NULL,
    'a phase that ends in 294276 with a day after it: ranread_progress still reads');
SELECT ok((SELECT remaining IS NULL AND eta IS NULL FROM ranread_progress_full WHERE id = (SELECT sweep FROM ids)),
    '... its time left not known');

-- no time made up
SELECT ranread_internal.ranread_progress_call('sweep', (SELECT sweep FROM ids), 'p', 1, 2, 'NaN');
SELECT ok((SELECT remaining IS NULL FROM ranread_progress_full WHERE id = (SELECT sweep FROM ids)),
    'NaN seconds after the step: not known');
SELECT ranread_internal.ranread_progress_call('sweep', (SELECT sweep FROM ids), 'p', 1, 2, '-Infinity',
                                              clock_timestamp() - interval '1 day');
SELECT ok((SELECT remaining IS NULL FROM ranread_progress_full WHERE id = (SELECT sweep FROM ids)),
    '-Infinity after a phase gone a day ago: not known');

-- steps and phases in bad faith
SELECT ranread_internal.ranread_progress_call('sweep', (SELECT sweep FROM ids), repeat('é', 1000), -5, -7, 0);
SELECT is((SELECT format('%s|%s|%s', step IS NULL, steps IS NULL, phase = repeat('é', 11))
             FROM ranread_progress_full WHERE id = (SELECT sweep FROM ids)),
    't|t|t', 'negative steps say no step; a phase of 1000 é is cut to whole characters (11)');
SELECT ranread_internal.ranread_progress_call('sweep', (SELECT sweep FROM ids), 'p', 2147483647, 2147483647, 1e300);

-- a role granted 'report' reads it as well
RESET ROLE;
SET ROLE tap_progress_report;
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_progress$$), NULL,
    'a role granted ''report'' reads ranread_progress while that call runs');
SELECT is((SELECT format('%s|%s|%s', step, steps, remaining IS NULL) FROM ranread_progress_full
            WHERE id = (SELECT sweep FROM ids)),
    '2147483647|2147483647|t', '... the call''s row as it said it, the time left not known');
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_progress_call('sweep', 1, 'x')$$),
    '42501: permission denied for function ranread_progress_call', '... and may not say a call''s progress');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
