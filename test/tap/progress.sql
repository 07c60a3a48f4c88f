-- ranread_progress in one session (the view read from another while
-- batches, sweeps, studies and fleets run is test/shell/28_progress.sh):
--  - nothing runs: no row
--  - ranread_progress_call only for a call this session runs, with errors
--    naming the kind, the id and what to do
--  - a call that said its step: its row (kind, id, phase, step of steps, no
--    batch), the time left what it needs after this step, plus the time to
--    the end of its phase where it gave one; eta is now + remaining
--  - the row goes once the call has returned (ranread_call_end), and a
--    batch leaves nothing behind once it returned
--  - the row a person reads (ranread_progress, 120 columns): what runs,
--    step 'i of n', eta as the time of day; every column in
--    ranread_progress_full
--  - the views are among the 'report' kind's objects
BEGIN;
SET client_min_messages = error;
SELECT plan(18);

\ir lib/util.psql

SELECT ok((SELECT size_bytes = 16777216 FROM ranread_setup('16MB', target => 'tap_progress')), 'a 16MB target');
SELECT is((SELECT count(*) FROM ranread_progress), 0::bigint, 'nothing runs: ranread_progress has no row');

-- saying a step
CREATE TEMP TABLE ids AS SELECT nextval('ranread_sweep_seq') AS sweep;
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_progress_call('sweep', (SELECT sweep FROM ids), 'starting step', 1, 3, 10)$$),
    format('55000: sweep %s of ranread_progress_call is not a call this session runs', (SELECT sweep FROM ids)),
    'a call says its progress only once registered by this session');
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_progress_call('party', 1, 'x')$$),
    '22023: unknown kind "party" of call', 'an unknown kind is refused');
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_progress_call('sweep', 1, NULL)$$),
    '22004: kind, id and phase of ranread_progress_call must not be null', 'a null phase is refused');
SELECT ranread_internal.ranread_call_register('sweep', (SELECT sweep FROM ids));
SELECT is((SELECT format('%s|%s|%s|%s|%s|%s', kind, phase, step, steps, batch IS NULL, remaining)
             FROM ranread_progress_full WHERE id = (SELECT sweep FROM ids)),
    'sweep||||t|', 'a registered call that said nothing yet has its row: kind, no phase, no step');
SELECT lives_ok($$SELECT ranread_internal.ranread_progress_call('sweep', (SELECT sweep FROM ids), 'starting step', 2, 5, 30)$$,
    'the call says it starts step 2 of 5, and needs 30 s after it');
SELECT is((SELECT format('%s|%s|%s|%s|%s|%s|%s', pid = pg_backend_pid(), role = current_user, kind, phase, step, steps, batch IS NULL)
             FROM ranread_progress_full WHERE id = (SELECT sweep FROM ids)),
    't|t|sweep|starting step|2|5|t', 'ranread_progress shows its row: this session, kind, phase, step 2 of 5, no batch');
SELECT is((SELECT remaining FROM ranread_progress_full WHERE id = (SELECT sweep FROM ids)), interval '30 s',
    '... the time left: what it needs after this step');
SELECT ok((SELECT abs(extract(epoch FROM eta - clock_timestamp()) - 30) <= 1.5 FROM ranread_progress_full WHERE id = (SELECT sweep FROM ids)),
    '... eta is now + remaining');
-- the row a person reads (fits 120 columns): what runs, its step as 'i of n'
SELECT is((SELECT format('%s|%s|%s|%s|%s', running, batch, phase, step, eta = to_char(clock_timestamp() + interval '30 s', 'HH24:MI:SS')
                                          OR eta = to_char(clock_timestamp() + interval '29 s', 'HH24:MI:SS')
                                          OR eta ~ '^[0-9]{2} [A-Z][a-z]{2} [0-9]{2}:[0-9]{2}$')
             FROM ranread_progress WHERE running = 'sweep ' || (SELECT sweep FROM ids)),
    format('sweep %s||starting step|2 of 5|t', (SELECT sweep FROM ids)),
    'ranread_progress: what runs (''sweep N''), no batch, its phase, step ''2 of 5'', eta the time of day');
SELECT is(ARRAY(SELECT attname::text FROM pg_attribute WHERE attrelid = 'ranread_progress'::regclass AND attnum > 0 ORDER BY attnum),
          ARRAY['running', 'batch', 'phase', 'step', 'ios', 'seconds', 'iops', 'p99_ms', 'eta'],
    '... its columns: running, batch, phase, step, ios, seconds, iops, p99_ms, eta (every column: ranread_progress_full)');
SELECT ranread_internal.ranread_progress_call('sweep', (SELECT sweep FROM ids), 'waiting', NULL, NULL, 10,
                                              clock_timestamp() + interval '20 s');
SELECT ok((SELECT step IS NULL AND phase = 'waiting' AND remaining BETWEEN interval '29 s' AND interval '30 s'
             FROM ranread_progress_full WHERE id = (SELECT sweep FROM ids)),
    'a phase with an end (no batch of its own): the time to its end, plus what the call needs after it');

-- the end
SELECT is((SELECT status FROM ranread_run(1, 50, target => 'tap_progress')), 'completed', 'a batch runs in this session');
SELECT is((SELECT count(*) FROM ranread_progress_full WHERE batch IS NOT NULL OR kind = 'run'), 0::bigint,
    'a batch that returned leaves no row');
SELECT ranread_internal.ranread_call_end('sweep', (SELECT sweep FROM ids));
SELECT is((SELECT count(*) FROM ranread_progress), 0::bigint, 'a call that returned has no row');

SELECT ok(EXISTS (SELECT FROM ranread_internal.ranread_report_objects() WHERE name = 'ranread_progress' AND privilege = 'SELECT'),
    'ranread_progress is one of the ''report'' kind''s objects');
SELECT ok(EXISTS (SELECT FROM ranread_internal.ranread_report_objects() WHERE name = 'ranread_progress_full' AND privilege = 'SELECT'),
    '... and ranread_progress_full');

SELECT * FROM finish();
ROLLBACK;
