-- What a node answers for its batch is checked before the fleet keeps it
-- (ranread_internal.ranread_fleet_answer): a node is another server, and a
-- fake or broken one cannot make the coordinator write rows for another
-- fleet or node, rename itself, or fail the whole fleet's recording with
-- a value that does not read; what it sent is dropped with a reason of one
-- short line, and a node's real answer is kept as it came.
BEGIN;
SET client_min_messages = error;
SELECT plan(28);

SELECT ok((SELECT size_bytes > 0 FROM ranread_setup('16MB', target => 'tap_fleet_answer')), 'a small target');
SELECT is((SELECT status FROM ranread_run(1, 50, target => 'tap_fleet_answer')), 'completed', 'a batch to answer with');

-- the answer a real node gives: ranread_fleet_batch_sql's query, on this server
CREATE TEMP TABLE real_answer AS
SELECT pg_catalog.json_build_object(
           'batch', b.batch, 'status', s.status, 'message', s.message,
           'reads', b.reads, 'writes', b.writes, 'seconds', b.seconds, 'iops', b.iops,
           'mbps', b.mbps, 'avg_ms', b.avg_ms, 'p50_ms', b.p50_ms, 'p95_ms', b.p95_ms,
           'p99_ms', b.p99_ms, 'p999_ms', b.p999_ms, 'max_ms', b.max_ms,
           'histogram', b.histogram, 'first_io_at', b.first_io_at,
           'intervals', (SELECT pg_catalog.json_agg(i ORDER BY i.second) FROM (
               SELECT v.second, sum(v.reads) AS reads, sum(v.writes) AS writes, sum(v.iops) AS iops,
                      sum(v.avg_ms * (v.reads + v.writes)) / NULLIF(sum(v.reads + v.writes), 0) AS avg_ms,
                      max(v.max_ms) AS max_ms
                 FROM ranread_intervals v WHERE v.batch = b.batch GROUP BY v.second) i))::text AS a
  FROM ranread_batches b, ranread_summary_full s
 WHERE s.batch = b.batch ORDER BY b.batch DESC LIMIT 1;

SELECT is((SELECT (x.batch, x.error)::text FROM real_answer, ranread_internal.ranread_fleet_answer(a) x),
          (SELECT (a::jsonb, NULL::text)::text FROM real_answer),
          'a real node''s answer is kept whole, with no reason');
SELECT is((SELECT x.error FROM real_answer, ranread_internal.ranread_fleet_answer(a) x), NULL,
          '... and no reason');
SELECT is((SELECT row(x.batch, x.error)::text FROM ranread_internal.ranread_fleet_answer(NULL) x), '(,)',
          'no answer (no batch found there) is no batch and no reason');

-- keys a node must not set
SELECT is((SELECT x.batch ?| ARRAY['fleet', 'node', 'name', 'conninfo', 'offset_ms', 'rtt_ms', 'late_ms', 'outlier']
             FROM real_answer,
                  ranread_internal.ranread_fleet_answer((a::jsonb || '{"fleet": 999, "node": 7, "name": "other", "conninfo": "host=x", "offset_ms": 0, "rtt_ms": 0, "late_ms": 0, "outlier": false}')::text) x),
          false, 'keys naming the fleet, the node, its name, connection, clock or outlier mark are dropped');
SELECT is((SELECT x.batch FROM real_answer,
                  ranread_internal.ranread_fleet_answer((a::jsonb || '{"fleet": 999, "node": 7}')::text) x),
          (SELECT a::jsonb FROM real_answer), '... and the rest is kept as it came');

-- answers that are not a batch: dropped, with a reason
SELECT is((SELECT row(x.batch IS NULL, x.error)::text FROM ranread_internal.ranread_fleet_answer('not json at all') x),
          '(t,"it answered what is not a batch of ranread: invalid input syntax for type json")',
          'an answer that is not JSON is dropped, and the reason says so');
SELECT is((SELECT x.error FROM ranread_internal.ranread_fleet_answer('[1, 2]') x),
          'it answered what is not a batch of ranread: it is a JSON array, not an object', 'a JSON array');
SELECT is((SELECT x.error FROM real_answer, ranread_internal.ranread_fleet_answer((a::jsonb || '{"status": "owned"}')::text) x),
          'it answered what is not a batch of ranread: its status is ''owned'', not one a batch has', 'a status no batch has');
SELECT is((SELECT x.error FROM real_answer, ranread_internal.ranread_fleet_answer((a::jsonb - 'status')::text) x),
          'it answered what is not a batch of ranread: its status is missing, not one a batch has', 'no status');
SELECT alike((SELECT x.error FROM real_answer, ranread_internal.ranread_fleet_answer((a::jsonb || '{"reads": "many"}')::text) x),
          'it answered what is not a batch of ranread: invalid input syntax for type bigint%', 'a count that is not a number');
SELECT alike((SELECT x.error FROM real_answer, ranread_internal.ranread_fleet_answer((a::jsonb || '{"first_io_at": "yesterday-ish"}')::text) x),
          'it answered what is not a batch of ranread: %timestamp%', 'a start that is not a time');
SELECT isnt((SELECT x.error FROM real_answer, ranread_internal.ranread_fleet_answer((a::jsonb || '{"histogram": "\\x00ff"}')::text) x),
          NULL, 'a histogram ranread cannot read');
SELECT is((SELECT x.error FROM real_answer, ranread_internal.ranread_fleet_answer((a::jsonb || '{"intervals": [{"second": null, "reads": 1, "writes": 0}]}')::text) x),
          'it answered what is not a batch of ranread: a second of its intervals has no number, no counts or figures out of range', 'a second without its number');
SELECT is((SELECT x.batch ? 'intervals' FROM real_answer, ranread_internal.ranread_fleet_answer((a::jsonb || '{"intervals": null}')::text) x),
          false, 'seconds sent as null are no seconds (the coordinator reads the key as an array)');
SELECT cmp_ok((SELECT length(x.error) FROM ranread_internal.ranread_fleet_answer('{"status": "' || repeat('x', 100000) || E'\n\nforged line"}') x),
          '<=', 300, 'a reason stays one short line, whatever the node sent');

-- figures past what any batch reaches are refused, so that the fleet's sums
-- cannot overflow (two nodes at 9e18 reads each failed the recording)
SELECT alike((SELECT x.error FROM real_answer, ranread_internal.ranread_fleet_answer((a::jsonb || '{"reads": 9000000000000000000}')::text) x),
          'it answered what is not a batch of ranread: its reads 9000000000000000000 and writes % are not counts between 0 and 2^40', 'reads past 2^40');
SELECT alike((SELECT x.error FROM real_answer, ranread_internal.ranread_fleet_answer((a::jsonb || '{"iops": 1e300}')::text) x),
          'it answered what is not a batch of ranread: a figure of it is negative, NaN or past its bound%', 'IOPS of 1e300');
SELECT alike((SELECT x.error FROM real_answer, ranread_internal.ranread_fleet_answer((a::jsonb || '{"seconds": 1e308}')::text) x),
          'it answered what is not a batch of ranread: a figure of it is negative, NaN or past its bound%', 'seconds of 1e308');
SELECT alike((SELECT x.error FROM real_answer, ranread_internal.ranread_fleet_answer((a::jsonb || '{"intervals": [{"second": 0, "reads": 1, "writes": 0, "iops": 1e308}]}')::text) x),
          'it answered what is not a batch of ranread: a second of its intervals %', 'a second of 1e308 IOPS');
SELECT alike((SELECT x.error FROM real_answer, ranread_internal.ranread_fleet_answer((a::jsonb || '{"intervals": [{"second": 2147483000, "reads": 1, "writes": 0, "iops": 1}]}')::text) x),
          'it answered what is not a batch of ranread: a second of its intervals %', 'a second numbered past 10^7');
SELECT is((SELECT t.reads FROM real_answer,
                  LATERAL (SELECT array_agg(x.batch) AS b FROM ranread_internal.ranread_fleet_answer((a::jsonb || '{"reads": 1099511627776, "writes": 0}')::text) x,
                           generate_series(1, 2)) k,
                  ranread_internal.ranread_fleet_totals(to_jsonb(k.b), '[]', 8192) t),
          2199023255552::bigint, 'two nodes at the bound (2^40 reads each) add up in the fleet''s totals');
-- a node still recording when the fleet collected it: lost, never a row left running
SELECT is((SELECT nr.rows->0->>'status' || ': ' || (nr.rows->0->>'message')
             FROM real_answer,
                  ranread_internal.ranread_fleet_answer((a::jsonb || '{"status": "running"}')::text) x,
                  ranread_internal.ranread_fleet_node_rows(7, NULL::ranread_fleet_options, now(),
                      ARRAY[ROW(1, 'n', 'host=n', 'c', 'public', NULL, 'done', NULL, NULL, NULL, 0, 0, now(),
                                x.batch, NULL, NULL)::ranread_internal.ranread_fleet_node_state]) nr),
          'lost: its batch was still running when the fleet collected it: its end is in its own history (ranread_batches.fleet = 7 there)',
          'a node whose batch was still running when collected is recorded lost, saying where its end is');
SELECT is((SELECT nr.rows->0->>'status'
             FROM real_answer, ranread_internal.ranread_fleet_answer(a) x,
                  ranread_internal.ranread_fleet_node_rows(7, NULL::ranread_fleet_options, now(),
                      ARRAY[ROW(1, 'n', 'host=n', 'c', 'public', NULL, 'done', NULL, NULL, NULL, 0, 0, now(),
                                x.batch, NULL, NULL)::ranread_internal.ranread_fleet_node_state]) nr),
          'completed', '... and a node whose batch completed, completed');

SELECT is((SELECT length(x.batch->>'message') FROM real_answer, ranread_internal.ranread_fleet_answer((a::jsonb || jsonb_build_object('message', repeat('m', 60000000)))::text) x),
          2003, 'a node''s message is kept to 2000 characters (and an ellipsis), whatever it sent');
SELECT alike((SELECT x.error FROM real_answer, ranread_internal.ranread_fleet_answer((a::jsonb || jsonb_build_object('intervals',
                 (SELECT jsonb_agg(jsonb_build_object('second', g, 'reads', 1, 'writes', 0, 'iops', 1)) FROM generate_series(0, 172800) g)))::text) x),
          'it answered what is not a batch of ranread: it has 172801 seconds, more than two days of them', 'more seconds than two days is refused');

SELECT alike((SELECT x.error FROM real_answer, ranread_internal.ranread_fleet_answer((a::jsonb || '{"first_io_at": "epoch"}')::text) x),
          'it answered what is not a batch of ranread: its first I/O is at %, more than 7 days from now', 'a first I/O in 1970 (its lateness would overflow the rows)');

SELECT * FROM finish();
ROLLBACK;
