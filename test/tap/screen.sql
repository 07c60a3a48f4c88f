-- Answers that fit a screen, numbers a DBA trusts at a glance (README,
-- "Reading the results"; "Privileges"): ranread_help() as lines of text
-- that start with first steps, its per-function form as lines of text too
-- (a line per argument, examples cut between JSON elements) and as a
-- table, the probe's caps as the probe enforces them; ranread_grant's
-- rows, one per kind; plurals; confidence rounded; the person's views
-- without bytea or arrays; the durability advice claims no more than the
-- check tested.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(33);
\ir lib/util.psql

-- ranread_help(): text, first steps first, every line within a screen
CREATE TEMP TABLE help AS SELECT h AS line, n FROM ranread_help() WITH ORDINALITY AS t(h, n);
SELECT is((SELECT format_type(atttypid, NULL) FROM pg_attribute WHERE attrelid = 'help'::regclass AND attname = 'line'),
          'text', 'ranread_help() returns lines of text');
SELECT is((SELECT line FROM help WHERE n = 1), 'first steps', 'its first line is "first steps"');
SELECT ok((SELECT bool_or(line ~ 'SELECT \* FROM ranread_setup\(') AND bool_or(line ~ 'SELECT \* FROM ranread_run\(')
                  AND bool_or(line ~ 'SELECT \* FROM ranread_brief')
             FROM help WHERE n < 20), '... which make a target, run a batch and read it back');
SELECT is((SELECT max(length(line)) <= 118 FROM help), true, 'every line is at most 118 characters (a screen of 120 in psql)');
SELECT is(ARRAY(SELECT name FROM ranread_internal.ranread_help_table()
                EXCEPT SELECT substring(line from '^  (ranread_[a-z_]+):') FROM help ORDER BY 1), '{}'::text[],
    'every entry point of the help table has its line');
SELECT ok((SELECT count(*) > 100 FROM help), '... with its example: more than 100 lines');

-- ranread_help(name): lines of text too, a line per fact, within a screen
CREATE TEMP TABLE run_lines AS SELECT l AS line, n FROM ranread_help('ranread_run') WITH ORDINALITY AS t(l, n);
SELECT is((SELECT format_type(atttypid, NULL) FROM pg_attribute WHERE attrelid = 'run_lines'::regclass AND attname = 'line'),
          'text', 'ranread_help(name) returns lines of text');
SELECT is((SELECT max(length(l)) FROM ranread_internal.ranread_help_table() h, LATERAL ranread_help(h.name) l
            WHERE EXISTS (SELECT FROM pg_proc p JOIN pg_extension x ON x.extname = 'ranread'
                           WHERE p.proname = h.name AND p.pronamespace = x.extnamespace)) <= 118, true,
    'every function''s ranread_help(name): every line at most 118 characters');
SELECT ok((SELECT line ~ '^ranread_run: Runs one batch' FROM run_lines WHERE n = 1)
          AND EXISTS (SELECT FROM run_lines WHERE line ~ '^  call: ranread_run\(processes integer, iterations bigint, target name,')
          AND EXISTS (SELECT FROM run_lines WHERE line ~ '^  returns: public\.ranread_run_result \(batch bigint, '),
    'ranread_help(''ranread_run''): what it does, its call, its result''s columns');
SELECT is(ARRAY(SELECT substring(line from '^  ([a-z_]+) ') FROM run_lines
                 WHERE n > (SELECT n FROM run_lines WHERE line = 'arguments:')
                   AND n < (SELECT n FROM run_lines WHERE line = 'example:') AND line !~ '^      ' ORDER BY n),
          ARRAY(SELECT argument FROM ranread_internal.ranread_help_table('ranread_run')),
    '... a line for each argument, in order (continued lines indented further)');
SELECT ok(EXISTS (SELECT FROM run_lines WHERE line LIKE '  rate_iops integer (I/Os per second), default NULL (no cap), allowed 1 to 100000000: %')
          AND EXISTS (SELECT FROM run_lines WHERE line LIKE '  processes integer (processes), required, allowed 1 to %'),
    '... each with its type, unit, default or required, and what is allowed');
-- an example is cut between JSON elements, never inside a string, nor
-- between a key and its value: its lines put together are the example
CREATE TEMP TABLE svg_lines AS SELECT l AS line, n FROM ranread_help('ranread_svg') WITH ORDINALITY AS t(l, n);
SELECT is((SELECT string_agg(btrim(line), ' ' ORDER BY n) FROM svg_lines WHERE n > (SELECT n FROM svg_lines WHERE line = 'example:')),
          (SELECT example FROM ranread_internal.ranread_help_table() WHERE name = 'ranread_svg'),
    'ranread_help(''ranread_svg''): the example''s lines put together are the example');
SELECT is((SELECT count(*)::integer FROM svg_lines WHERE n > (SELECT n FROM svg_lines WHERE line = 'example:')
             AND ((length(line) - length(replace(line, '"', ''))) % 2 = 1 OR line ~ ':$')), 0,
    '... cut over more than one line, none inside a JSON string or after a key');
SELECT cmp_ok((SELECT count(*)::integer FROM svg_lines WHERE n > (SELECT n FROM svg_lines WHERE line = 'example:')), '>', 1,
    '... (it is cut: more than one line)');

-- the per-function table (ranread_internal.ranread_help_table(name))
SELECT is((SELECT argument FROM ranread_internal.ranread_help_table('ranread_run') LIMIT 1), 'processes',
    'ranread_help_table(''ranread_run'') lists its arguments, processes first');
SELECT is((SELECT allowed FROM ranread_internal.ranread_help_table('ranread_run') WHERE argument = 'rate_iops'), '1 to 100000000',
    '... with the workload option''s range');

-- the probe's ranges are the ones its check enforces, as set now
SELECT is((SELECT allowed FROM ranread_internal.ranread_help_table('ranread_probe') WHERE argument = 'rate_iops'),
          format('1 to %s (ranread.probe_max_iops)', current_setting('ranread.probe_max_iops')),
    'ranread_help(''ranread_probe''): rate_iops up to the probe''s cap, not the batch''s range');
SELECT is((SELECT allowed FROM ranread_internal.ranread_help_table('ranread_probe') WHERE argument = 'duration'),
          format('10 ms to %s s (ranread.probe_max_seconds)', (SELECT setting FROM pg_settings WHERE name = 'ranread.probe_max_seconds')),
    '... duration up to ranread.probe_max_seconds');
SET LOCAL ranread.probe_max_iops = 300;
SELECT is((SELECT allowed FROM ranread_internal.ranread_help_table('ranread_probe_schedule') WHERE argument = 'rate_iops'),
          '1 to 300 (ranread.probe_max_iops)', 'the help follows the setting (ranread_probe_schedule too)');
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_probe_check('ranread_probe', 300, '10s')$$), NULL,
    '... and the check allows the top of that range');
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_probe_check('ranread_probe', 301, '10s')$$),
    '22023: rate_iops of ranread_probe must be between 1 and 300 (ranread.probe_max_iops), not 301',
    '... and refuses one more');
RESET ranread.probe_max_iops;

-- ranread_grant: one row per kind; verbose: the statements
CREATE ROLE tap_screen_runner;
CREATE TEMP TABLE kinds AS SELECT r, n FROM ranread_grant('tap_screen_runner', 'run') WITH ORDINALITY AS t(r, n);
SELECT is(ARRAY(SELECT substring(r from '^([a-z]+):') FROM kinds ORDER BY n), ARRAY['report', 'probe', 'run'],
    'ranread_grant(role, ''run'') returns a row per kind it gives: report, probe, run');
SELECT is((SELECT count(*)::integer FROM kinds WHERE r !~ '^[a-z]+: [0-9]+ GRANT statements? to tap_screen_runner$'), 0,
    '... each "kind: N GRANT statements to role"');
CREATE TEMP TABLE stmts AS SELECT s FROM ranread_revoke('tap_screen_runner', 'run', verbose => true) s;
SELECT is((SELECT sum(substring(r from ': ([0-9]+) ')::integer)::integer FROM kinds), (SELECT count(*)::integer FROM stmts),
    '... whose counts add up to the statements ranread_revoke(verbose => true) takes back');
SELECT ok((SELECT count(*) > 100 FROM stmts) AND (SELECT bool_and(s ~ '^REVOKE ') FROM stmts),
    'verbose => true returns every statement, one a row');
SELECT is(ARRAY(SELECT r FROM ranread_grant('tap_screen_runner', 'export') r WHERE r !~ ' GRANT statements? to '), '{}'::text[],
    'ranread_grant(role, ''export'') in rows per kind too');
SELECT is(ARRAY(SELECT substring(r from '^([a-z]+):') FROM ranread_revoke('tap_screen_runner', 'export') r), ARRAY['report', 'export'],
    'ranread_revoke returns a row per kind: report, export');

-- plurals
SELECT is(ranread_internal.ranread_count_words(1, 'process') || ', ' || ranread_internal.ranread_count_words(2, 'process')
          || ', ' || ranread_internal.ranread_count_words(1, 'node') || ', ' || ranread_internal.ranread_count_words(3, 'node'),
          '1 process, 2 processes, 1 node, 3 nodes', 'a count and its noun: singular for one, plural otherwise');
CREATE FUNCTION pg_temp.st(step integer, processes integer, iops float8, avg_ms float8)
RETURNS ranread_sweep_step LANGUAGE sql AS $$
    SELECT ROW(step, processes, 100 + step, iops, avg_ms, avg_ms * 3, avg_ms * 5, 'completed')::ranread_sweep_step
$$;
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 1, 800, 1)], 1, 1, 10)).stop_reason,
          'max_processes: the step at 1 process reached max_processes 1', 'a sweep of one process says "1 process"');

-- confidence as a person reads it: to 0.0001
CREATE FUNCTION pg_temp.hist(n integer, ms float8) RETURNS bytea LANGUAGE sql AS $$
    SELECT ranread_internal.ranread_hist_make(array_agg(ms * (1 + i / 1000.0)), array_agg(1::bigint))
      FROM generate_series(1, n) i
$$;
SELECT is((SELECT confidence = round(confidence::numeric, 4)::float8 FROM ranread_hist_compare(pg_temp.hist(500, 1), pg_temp.hist(500, 3))),
          true, 'a comparison''s confidence is rounded to 0.0001 (never 0.9999999999999989)');

-- the person's views hold no bytea or array
SELECT is(ARRAY(SELECT c.relname || '.' || a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                 WHERE c.relname IN ('ranread_brief', 'ranread_seconds', 'ranread_progress') AND a.attnum > 0
                   AND (a.atttypid = 'bytea'::regtype OR EXISTS (SELECT FROM pg_type t WHERE t.oid = a.atttypid AND t.typcategory = 'A'))
                 ORDER BY 1), '{}'::text[],
    'ranread_brief, ranread_seconds and ranread_progress hold no bytea and no array');
SELECT is(ARRAY(SELECT attname::text FROM pg_attribute WHERE attrelid = 'ranread_brief'::regclass AND attnum > 0 ORDER BY attnum),
          ARRAY['batch', 'processes', 'workload', 'seconds', 'iops', 'mbps', 'avg_ms', 'p99_ms', 'status'],
    'ranread_brief: what ran, IOPS, MiB/s, avg, p99, status');

-- the durability advice cites counts, not a claim the check did not test
SELECT is((ranread_internal.ranread_advise_durability(9001, 'rig', 'fdatasync', '2026-11-30 10:15', 120, 120, 0, 'fdatasync')).citation
          ~ 'honoured', false, 'the advisor''s citation of a check that lost nothing does not say "flushes honoured"');

SELECT * FROM finish();
ROLLBACK;
