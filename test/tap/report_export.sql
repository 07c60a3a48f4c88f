-- ranread_export writes the summary (or the chart) to a new server file:
-- readable as-is by CSV/TSV readers and JSON parsers, never overwriting,
-- and refusing bad directories, formats and callers with clear errors.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(46);

\ir lib/util.psql

-- A fresh directory for this test; removed at the end.
CREATE TEMP TABLE dir AS SELECT '/tmp/ranread_export_test_' || pg_backend_pid() AS d;
DO $$
BEGIN
    EXECUTE format('COPY (SELECT 1) TO PROGRAM %L',
                   format('rm -rf %1$s && mkdir %1$s', (SELECT d FROM pg_temp.dir)));
END
$$;

-- Known history: three batches, one with a message full of separators.
DELETE FROM ranread_intervals;
DELETE FROM ranread_results;
DELETE FROM ranread_batches;
INSERT INTO ranread_batches (batch, run_at, target, processes, iterations, block_size,
    queue_depth, write_pct, pattern, region_start, region_end, seed, workers, engine,
    reads, writes, seconds, iops, mbps, avg_ms, p99_ms, max_ms, status, message)
VALUES
    (1, '2024-05-02 14:00:00+00', 'ranread', 10, 10000, 8192, 1, 0, 'random', 0, 100, 1, 2,
     'io_uring', 100000, 0, 23.75, 4210.5, 34.5, 2.37, 6.1, 14.2, 'completed', NULL),
    (2, '2024-05-02 14:01:00+00', 'ranread', 20, 10000, 8192, 1, 0, 'random', 0, 100, 1, 2,
     'io_uring', 50000, 0, 10, 5000, 41, 3.5, NULL, 20, 'stopped',
     E'disk\tfull, "really"\nline2 \\ end'),
    (3, '2024-05-02 14:02:00+00', 'ranread', 40, 10000, 8192, 1, 0, 'random', 0, 100, 1, 2,
     'sync', 0, 0, 0, 'NaN', 0, NULL, NULL, NULL, 'failed', '');

-- The full summary's columns, in order (the export has every column of a
-- batch, its figures whole: ranread_summary_full rounds them for a person).
CREATE TEMP TABLE cols AS
SELECT array_agg(a.attname::text ORDER BY a.attnum) AS names
  FROM pg_attribute a
 WHERE a.attrelid = 'ranread_summary_full'::regclass AND a.attnum > 0 AND NOT a.attisdropped;

-- Exports under a session that prints dates its own way.
SET LOCAL DateStyle = 'SQL, DMY';
SET LOCAL extra_float_digits = -3;
CREATE TEMP TABLE out AS
SELECT f.format, f.path, pg_read_file(f.path) AS body
  FROM (SELECT fmt AS format, ranread_export((SELECT d FROM dir), fmt) AS path
          FROM unnest(ARRAY['tsv', 'csv', 'json', 'svg']) AS fmt) f;

-- File names
SELECT ok((SELECT bool_and(path ~ ('^' || (SELECT d FROM dir) || '/ranread_[0-9]{8}-[0-9]{6}(-[0-9]+)?\.' || format || '$')) FROM out),
    'files are named ranread_YYYYMMDD-HHMMSS.<format> in the directory, and the path is returned');
SELECT is((SELECT count(DISTINCT path) FROM out), 4::bigint, 'each export writes its own file');
SELECT is(current_setting('DateStyle'), 'SQL, DMY', 'the session''s DateStyle is left as it was');

-- TSV
CREATE TEMP TABLE tsv AS
SELECT string_to_array(rtrim((SELECT body FROM out WHERE format = 'tsv'), E'\n'), E'\n') AS lines;
SELECT is((SELECT lines[1] FROM tsv), (SELECT array_to_string(names, E'\t') FROM cols),
    'TSV: the first line names every column of ranread_summary_full, tab-separated');
SELECT is((SELECT array_length(lines, 1) FROM tsv), 4, 'TSV: then one line per batch, in batch order');
SELECT ok((SELECT bool_and(array_length(string_to_array(l, E'\t'), 1) = (SELECT array_length(names, 1) FROM cols))
             FROM tsv, unnest(lines) l),
    'TSV: every line has one field per column (tabs and newlines in values are escaped)');
SELECT ok(strpos((SELECT body FROM out WHERE format = 'tsv'), E'disk\\tfull, "really"\\nline2 \\\\ end') > 0,
    'TSV: tab, newline and backslash in text are written as \t, \n and \\');
SELECT is((SELECT split_part(lines[3], E'\t', array_position(names, 'p99_ms')) FROM tsv, cols), '',
    'TSV: NULL is an empty field');
SELECT is((SELECT split_part(lines[2], E'\t', array_position(names, 'run_at')) FROM tsv, cols),
    '2024-05-02 14:00:00+00', 'TSV: timestamps are ISO 8601 whatever the session''s DateStyle');
SELECT is((SELECT split_part(lines[2], E'\t', array_position(names, 'iops')) FROM tsv, cols),
    '4210.5', 'TSV: numbers are exact, whatever the session''s extra_float_digits');
SELECT is((SELECT split_part(lines[2], E'\t', 1) FROM tsv), '1', 'TSV: the first batch comes first');
SELECT ok((SELECT body FROM out WHERE format = 'tsv') NOT LIKE E'%\r%', 'TSV: lines end in LF');

-- CSV (RFC 4180)
CREATE TEMP TABLE csv AS SELECT (SELECT body FROM out WHERE format = 'csv') AS body;
SELECT is((SELECT split_part(body, E'\r\n', 1) FROM csv), (SELECT array_to_string(names, ',') FROM cols),
    'CSV: the header names every column of ranread_summary_full');
SELECT ok((SELECT body LIKE E'%\r\n' AND body NOT LIKE E'%[^\r]\n%' FROM csv),
    'CSV: records end in CRLF');
SELECT ok(strpos((SELECT body FROM csv), E',"disk\tfull, ""really""\nline2 \\ end",') > 0,
    'CSV: a field with a comma, quote or line break is quoted, and its quotes doubled');
SELECT ok((SELECT body FROM csv) LIKE E'%,failed,%,"",,%\r\n',
    'CSV: an empty string is "" while NULL is an empty field');
SELECT ok((SELECT body FROM csv) LIKE E'%,stopped,%',
    'CSV: plain fields are not quoted');
SELECT is((SELECT count(*) FROM regexp_matches((SELECT body FROM csv), E'\r\n', 'g')), 4::bigint,
    'CSV: a header and one record per batch');

-- JSON
CREATE TEMP TABLE js AS SELECT (SELECT body FROM out WHERE format = 'json')::json AS j;
SELECT is((SELECT json_typeof(j) FROM js), 'array', 'JSON: a JSON array');
SELECT is((SELECT json_array_length(j) FROM js), 3, 'JSON: one object per batch');
SELECT is((SELECT array_agg(k) FROM js, json_object_keys(j -> 0) k), (SELECT names FROM cols),
    'JSON: each object has every column of ranread_summary_full, in order');
SELECT is((SELECT json_typeof(j -> 0 -> 'iops') FROM js), 'number', 'JSON: figures are numbers');
SELECT is((SELECT (j -> 0 ->> 'iops')::float8 FROM js), 4210.5::float8, 'JSON: with their exact value');
SELECT is((SELECT json_typeof(j -> 0 -> 'batch') FROM js), 'number', 'JSON: ids are numbers');
SELECT is((SELECT json_typeof(j -> 1 -> 'p99_ms') FROM js), 'null', 'JSON: NULL is null');
SELECT is((SELECT json_typeof(j -> 2 -> 'iops') FROM js), 'null', 'JSON: NaN, which JSON cannot hold, is null');
SELECT is((SELECT j -> 1 ->> 'message' FROM js), E'disk\tfull, "really"\nline2 \\ end',
    'JSON: text comes back exactly');
SELECT is((SELECT j -> 0 ->> 'run_at' FROM js), '2024-05-02 14:00:00+00', 'JSON: timestamps are ISO 8601 strings');
SELECT is((SELECT j -> 0 ->> 'status' FROM js), 'completed', 'JSON: status is a string');

-- SVG
SELECT ok(xml_is_well_formed_document((SELECT body FROM out WHERE format = 'svg')),
    'SVG: a well-formed XML document');
SELECT is((SELECT body FROM out WHERE format = 'svg'), ranread_chart(),
    'SVG: the chart of ranread_chart(NULL)');
RESET DateStyle;
RESET extra_float_digits;

-- Never overwrite: exports in the same second get their own names.
CREATE TEMP TABLE again AS
SELECT ranread_export((SELECT d FROM dir) || '/', 'csv') AS path FROM generate_series(1, 3);
SELECT is((SELECT count(DISTINCT path) FROM again), 3::bigint,
    'three exports in a row write three files; none overwrites another');
SELECT ok((SELECT bool_and(path ~ '/ranread_[0-9]{8}-[0-9]{6}(-[2-9])?\.csv$' AND path NOT LIKE '%//%') FROM again),
    'a name taken in the same second gets -2, -3 ... before the extension');
SELECT ok((SELECT bool_and(pg_read_file(path) = (SELECT body FROM csv)) FROM again),
    'every file has the whole summary');

-- Bad arguments
SELECT throws_ok($$SELECT ranread_export('tmp/reports')$$, '22023',
    'directory "tmp/reports" for ranread_export is not an absolute path',
    'a relative directory is refused');
SELECT throws_ok($$SELECT ranread_export('/nonexistent/ranread')$$, '58P01',
    'directory "/nonexistent/ranread" for ranread_export does not exist',
    'a missing directory is refused, not created');
SELECT throws_ok(format('SELECT ranread_export(%L)', (SELECT path FROM out WHERE format = 'tsv')), '22023',
    format('"%s" for ranread_export is not a directory', (SELECT path FROM out WHERE format = 'tsv')),
    'a file is not a directory');
SELECT throws_ok(format('SELECT ranread_export(%L, %L)', (SELECT d FROM dir), 'xml'), '22023',
    'invalid format "xml" for ranread_export', 'an unknown format is refused');
SELECT throws_ok(format('SELECT ranread_export(%L)', (SELECT d FROM dir) || '/' || repeat('x', 300)), '42622', NULL,
    'a directory whose name is too long for the filesystem is refused as too long, not as an internal error');
SELECT throws_ok(format('SELECT * FROM ranread_export_study(%L, 1)', '/tmp/' || repeat('é', 200)), '42622', NULL,
    '... by ranread_export_study too');
SELECT throws_ok($$SELECT ranread_export(NULL)$$, '22004',
    'directory for ranread_export must not be null', 'a NULL directory is refused');
SELECT throws_ok(format('SELECT ranread_export(%L, NULL)', (SELECT d FROM dir)), '22004',
    'format for ranread_export must not be null', 'a NULL format is refused');
SELECT matches(ranread_export((SELECT d FROM dir), 'JSON'), '\.json$', 'formats are case-insensitive');

SELECT is(pg_temp.hint_of(format('SELECT ranread_export(%L, %L)', (SELECT d FROM dir), 'xml')),
    'Allowed formats are tsv, csv, json, svg and html.', 'the hint lists the formats');

-- Who may write server files
CREATE ROLE ranread_test_reader IN ROLE pg_monitor;
GRANT SELECT ON pg_temp.dir TO ranread_test_reader;
DO $$
BEGIN
    EXECUTE format('GRANT USAGE ON SCHEMA %s TO ranread_test_reader',
                   (SELECT extnamespace::regnamespace FROM pg_extension WHERE extname = 'ranread'));
END
$$;
GRANT EXECUTE ON FUNCTION ranread_export(text, text) TO ranread_test_reader;
SET LOCAL ROLE ranread_test_reader;
SELECT throws_ok(format('SELECT ranread_export(%L)', (SELECT d FROM pg_temp.dir)), '42501',
    'permission denied to write ranread_export files',
    'EXECUTE alone is not enough: writing server files needs pg_write_server_files');
RESET ROLE;
GRANT pg_write_server_files TO ranread_test_reader;
SET LOCAL ROLE ranread_test_reader;
SELECT matches(ranread_export((SELECT d FROM pg_temp.dir), 'tsv'), '\.tsv$',
    'members of pg_write_server_files (with EXECUTE and pg_monitor) may export');
RESET ROLE;

DO $$
BEGIN
    EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', format('rm -rf %s', (SELECT d FROM pg_temp.dir)));
END
$$;

SELECT * FROM finish();
ROLLBACK;
