-- Stored latency histograms (ranread_results.histogram, any bytea a caller
-- hands the ranread_hist_* functions; pg_monitor may call them):
--  - a real one reads back
--  - one whose counts were crafted to wrap around 2^64 is refused, as are
--    buckets out of order or given twice
--  - a merge that would hold more values than any history can is refused
BEGIN;
SET client_min_messages = error;
SELECT plan(6);

\ir lib/util.psql

-- little-endian 8 bytes
CREATE FUNCTION pg_temp.u64(v numeric) RETURNS bytea LANGUAGE sql AS $$
    SELECT string_agg(set_byte('\x00'::bytea, 0, (floor(v / 256 ^ i)::numeric % 256)::int), '' ORDER BY i)
      FROM generate_series(0, 7) i
$$;
-- a stored histogram: version 1, count, sum, min, max, then (bucket, count) pairs
CREATE FUNCTION pg_temp.hist(count numeric, buckets int[], counts numeric[]) RETURNS bytea LANGUAGE sql AS $$
    SELECT '\x01'::bytea || pg_temp.u64(count) || pg_temp.u64(count * 1000) || pg_temp.u64(1000) || pg_temp.u64(1000)
           || coalesce((SELECT string_agg(set_byte(set_byte('\x0000'::bytea, 0, b % 256), 1, b / 256) || pg_temp.u64(c), '' ORDER BY o)
                          FROM unnest(buckets, counts) WITH ORDINALITY AS x(b, c, o)), '')
$$;

SELECT is(ranread_hist_count(pg_temp.hist(10, '{100,101}', '{4,6}')), 10::bigint, 'a well-formed stored histogram reads back');
SELECT is(left(pg_temp.error_of($$SELECT ranread_hist_count(pg_temp.hist(2, '{100,101}', '{18446744073709551615,3}'))$$), 5), '22P03',
    'counts that wrap around 2^64 to match the header are refused');
SELECT is(left(pg_temp.error_of($$SELECT ranread_hist_count(pg_temp.hist(10, '{101,100}', '{4,6}'))$$), 5), '22P03',
    'buckets out of order are refused');
SELECT is(left(pg_temp.error_of($$SELECT ranread_hist_count(pg_temp.hist(10, '{100,100}', '{4,6}'))$$), 5), '22P03',
    'a bucket given twice is refused');
SELECT is(left(pg_temp.error_of($$SELECT ranread_hist_count(ranread_hist_merge(h)) FROM (SELECT pg_temp.hist((2^48)::numeric, '{100}', ARRAY[(2^48)::numeric]) h FROM generate_series(1, 2)) s$$), 5), '22003',
    'a merge beyond 2^48 values is refused, not wrapped');
SELECT is(ranread_hist_count(ranread_hist_merge(h)), (2 * 2^47)::bigint, '... while one up to it merges')
  FROM (SELECT pg_temp.hist((2^47)::numeric, '{100}', ARRAY[(2^47)::numeric]) h FROM generate_series(1, 2)) s;

SELECT * FROM finish();
ROLLBACK;
