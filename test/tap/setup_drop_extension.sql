-- DROP EXTENSION ranread removes every target and all history
-- (docs/reference.md, "Reference").  Rolled back at the end, so the other
-- files keep the extension; that the files leave the disk is checked in
-- test/shell/10_target_files.sh.
BEGIN;
SET client_min_messages = error;
SELECT plan(8);

SELECT ok((SELECT size_bytes = 8388608 FROM ranread_setup('8MB', target => 'tap_drop_a')),
    'a first target');
SELECT ok((SELECT size_bytes = 4194304 FROM ranread_setup('4MB', target => 'tap_drop_b')),
    'a second target');
CREATE TEMP TABLE target_relations AS
SELECT relid FROM ranread_target_catalog WHERE target IN ('tap_drop_a', 'tap_drop_b');
SELECT ok((SELECT status = 'completed' FROM ranread_run(1, 10, target => 'tap_drop_a')),
    'a batch in the history');

DROP EXTENSION ranread;

SELECT is((SELECT count(*) FROM pg_class WHERE oid IN (SELECT relid FROM target_relations)), 0::bigint,
    'DROP EXTENSION drops the relation of every target');
SELECT hasnt_relation('ranread_results', 'the per-process history is gone');
SELECT hasnt_relation('ranread_summary', 'the summary is gone');
SELECT hasnt_relation('ranread_intervals', 'the per-second history is gone');
SELECT is((SELECT count(*) FROM pg_class
            WHERE relname LIKE 'ranread%'
              AND relnamespace NOT IN (SELECT oid FROM pg_namespace WHERE nspname LIKE 'pg\_temp\_%')),
    0::bigint, 'no relation of ranread is left');

SELECT * FROM finish();
ROLLBACK;
