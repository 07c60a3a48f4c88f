-- What a mix, a run step and the history hold, whatever their groups say:
--  - a batch never has more workers than processes: a mix asking for more
--    is refused before anything starts (a worker without a stream used to
--    crash the server), and workers spread over groups each get a stream
--  - a label longer than a group's label may be is cut between characters,
--    with a NOTICE, so the history holds only valid text (pg_dump's COPY
--    refuses invalid UTF-8 on restore); so is a target name in JSON
--  - a label the history cannot keep (empty, not a string) is refused
--    before any I/O, so no batch ends failed for want of its label
BEGIN;
SET client_min_messages = error;
SELECT plan(22);

\ir lib/util.psql

SELECT ok((SELECT size_bytes = 16777216 FROM ranread_setup('16MB', target => 'tap_mixsafe')), 'a 16MB target');
CREATE TEMP TABLE before AS SELECT coalesce(max(batch), 0) AS batch FROM ranread_batches;

-- workers and streams
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_mix('[{"processes": 1}]', duration => '0.1s', workers => 2, target => 'tap_mixsafe')$$),
    '22023: workers of ranread_mix must be between 1 and 1, not 2',
    'a mix of 1 process with 2 workers is refused, naming workers and the limit');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step('{"groups": [{"processes": 2}], "iterations": 10, "workers": 3, "target": "tap_mixsafe"}')$$),
    '22023: workers of ranread_run_step must be between 1 and 2, not 3',
    'a run step with more workers than processes is refused');
SELECT is((SELECT count(*) FROM ranread_batches WHERE batch > (SELECT batch FROM before)), 0::bigint,
    'neither left a batch behind');
CREATE TEMP TABLE two AS
SELECT * FROM ranread_mix('[{"label": "a", "processes": 1}, {"label": "b", "processes": 1, "block_size": 16384}]',
                          iterations => 50, workers => 2, target => 'tap_mixsafe');
SELECT results_eq($$SELECT grp, reads, status FROM two ORDER BY grp$$,
    $$VALUES (0, 100::bigint, 'completed'::text), (1, 50::bigint, 'completed'::text), (2, 50::bigint, 'completed'::text)$$,
    'two groups of one process on two workers: each worker drives one, both complete');
SELECT is((SELECT workers FROM ranread_batches WHERE batch = (SELECT batch FROM two LIMIT 1)), 2,
    '... and the history says two workers ran');

-- labels cut between characters
CREATE TEMP TABLE long AS
SELECT * FROM ranread_mix(jsonb_build_array(jsonb_build_object('label', repeat('é', 40), 'processes', 1)),
                          iterations => 20, target => 'tap_mixsafe');
SELECT is((SELECT label FROM long WHERE grp = 1), repeat('é', 31),
    'a label of 40 two-byte characters is cut to the 31 that fit in 63 bytes');
SELECT is((SELECT label FROM ranread_groups WHERE batch = (SELECT batch FROM long LIMIT 1)), repeat('é', 31),
    'ranread_groups keeps the cut label, whole characters only');
SELECT is((SELECT mix -> 0 ->> 'label' FROM ranread_batches WHERE batch = (SELECT batch FROM long LIMIT 1)), repeat('é', 31),
    'ranread_batches.mix keeps the same label');
SELECT lives_ok($$SELECT convert_to(label, 'UTF8') FROM ranread_groups WHERE batch = (SELECT batch FROM long LIMIT 1)$$,
    'the stored label is valid text (a dump of it restores)');
SELECT lives_ok($$SELECT convert_to(mix::text, 'UTF8') FROM ranread_batches WHERE batch = (SELECT batch FROM long LIMIT 1)$$,
    'and so is the stored mix');
SELECT is((SELECT status FROM long WHERE grp = 0), 'completed', 'the batch with the cut label completed');

SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_mix(jsonb_build_array(jsonb_build_object('label', repeat('é', 40) || 'x', 'processes', 1),
                                                                                jsonb_build_object('label', repeat('é', 40) || 'y', 'processes', 1)),
                                                              iterations => 10, target => 'tap_mixsafe')$$),
    '^22023: groups 1 and 2 of ranread_mix are both labelled',
    'two labels that are the same once cut are refused as one label');
SELECT is(pg_temp.error_of(format($$SELECT * FROM ranread_mix('[{"processes": 1, "target": "%s"}]', iterations => 10)$$, repeat('é', 40))),
    format('42704: ranread target "%s" does not exist', repeat('é', 31)),
    'a target name of 80 bytes in a group is cut between characters, as the name type cuts it');

-- labels the history cannot keep, refused before any I/O
CREATE TEMP TABLE mark AS SELECT coalesce(max(batch), 0) AS batch FROM ranread_batches;
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_mix('[{"processes": 1, "label": ""}]', '1s', target => 'tap_mixsafe')$$),
    '22023: label of group 1 of ranread_mix must not be empty', 'an empty label is refused');
SELECT is(pg_temp.hint_of($$SELECT * FROM ranread_mix('[{"processes": 1, "label": ""}]', '1s', target => 'tap_mixsafe')$$),
    'A label names the group''s rows in the results and the history, such as "oltp"; leave it out for g1.',
    '... with a hint saying what a label is for');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_mix('[{"processes": 1}, {"processes": 1, "label": 7}]', '1s', target => 'tap_mixsafe')$$),
    '22023: label of group 2 of ranread_mix must be a string, not a number', 'a label that is not a string is refused, naming its group');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step('{"groups": [{"processes": 1, "label": ""}], "iterations": 10, "target": "tap_mixsafe"}')$$),
    '22023: label of group 1 of ranread_run_step must not be empty', 'ranread_run_step refuses an empty label too');
SELECT is((SELECT count(*) FROM ranread_batches WHERE batch > (SELECT batch FROM mark)), 0::bigint,
    'none of them ran or left a batch');
SELECT is((SELECT count(*) FROM ranread_summary WHERE batch > (SELECT batch FROM before) AND status <> 'completed'), 0::bigint,
    'no batch of this file ended failed');
SELECT is((SELECT label FROM ranread_mix('[{"processes": 1}, {"processes": 1}]', iterations => 10, target => 'tap_mixsafe') WHERE grp = 2),
    'g2', 'a group without a label is g1, g2 ...');

SELECT ok(ranread_purge('tap_mixsafe'), 'the target is dropped');
SELECT * FROM finish();
ROLLBACK;
