-- ranread_fleet and ranread_fleet_sweep refuse bad arguments before they
-- contact any node, with the argument, the value and what is allowed; a
-- NULL gets the usual clear error (or the default), never a syntax error.
BEGIN;
SELECT plan(62);

SELECT throws_ok($$SELECT * FROM ranread_fleet(NULL, 1)$$, '22004',
    'nodes of ranread_fleet must not be null, nor hold a null', 'nodes NULL');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a', NULL], 1)$$, '22004',
    'nodes of ranread_fleet must not be null, nor hold a null', 'a NULL node');
SELECT throws_ok($$SELECT * FROM ranread_fleet('{}', 1)$$, '22023',
    'nodes of ranread_fleet must name at least one node', 'no node');
SELECT throws_ok($$SELECT * FROM ranread_fleet(array_fill('host=a'::text, ARRAY[257]), 1)$$, '22023',
    'nodes of ranread_fleet must name at most 256 nodes, not 257', 'too many nodes');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], NULL)$$, '22004',
    'processes of ranread_fleet must not be null', 'processes NULL');
SELECT throws_like($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 0)$$,
    'processes of ranread_fleet must be between 1 and % not 0', 'processes 0');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, start_delay => '10 ms')$$, '22023',
    'start_delay of ranread_fleet must be between 100 ms and 30 minutes, not 00:00:00.01', 'start_delay too short');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, on_node_failure => 'panic')$$, '22023',
    'on_node_failure of ranread_fleet must be continue or stop, not ''panic''', 'on_node_failure');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, on_clock_skew => NULL)$$, '22004',
    'on_clock_skew of ranread_fleet must be error or warn, not NULL', 'on_clock_skew NULL');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, max_offset_ms => -1)$$, '22023',
    'max_offset_ms of ranread_fleet must be a finite number of at least 0, not -1', 'max_offset_ms');
SELECT throws_ok($$SELECT * FROM ranread_fleet_sweep(ARRAY['host=a'], start => 0)$$, '22023',
    'invalid start 0 for ranread_fleet_sweep', 'fleet sweep start 0');
SELECT throws_ok($$SELECT * FROM ranread_fleet_sweep(ARRAY['host=a'], start => 4, max_processes => 2)$$, '22023',
    'invalid max_processes 2 for ranread_fleet_sweep', 'fleet sweep max_processes below start');

-- every argument NULL: the usual error naming it, never a syntax error
SELECT throws_ok(format($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, %s => NULL)$$, a), '22004',
    format('%s of ranread_fleet must not be null', a), format('%s NULL: named as null', a))
  FROM unnest(ARRAY['block_size', 'write_pct', 'queue_depth', 'pattern', 'region_start', 'region_end', 'distribution']) a;
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, target => NULL)$$, '22004',
    'target of ranread_fleet must not be null', 'target NULL');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, start_delay => NULL)$$, '22004',
    'start_delay of ranread_fleet must be between 100 ms and 30 minutes, not NULL', 'start_delay NULL');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, skip_unavailable => NULL)$$, '22004',
    'skip_unavailable of ranread_fleet must not be null', 'skip_unavailable NULL');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, on_node_failure => NULL)$$, '22004',
    'on_node_failure of ranread_fleet must be continue or stop, not NULL', 'on_node_failure NULL');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, max_offset_ms => NULL)$$, '22004',
    'max_offset_ms of ranread_fleet must be a finite number of at least 0, not NULL', 'max_offset_ms NULL');
-- the arguments whose NULL means their default get as far as the node
SELECT throws_like(format($$SELECT * FROM ranread_fleet(ARRAY['host=/nonexistent/dir port=1'], 1, %s => NULL)$$, a),
    'node "/nonexistent/dir:1" of ranread_fleet is unavailable: it cannot be reached%',
    format('%s NULL: its default, and on to the node', a))
  FROM unnest(ARRAY['iterations', 'duration', 'warmup', 'rate_iops', 'seed', 'workers', 'steady_state', 'sync', 'loopback']) a;
SELECT throws_ok(format($$SELECT * FROM ranread_fleet_sweep(ARRAY['host=a'], %s => NULL)$$, a), '22004',
    format('%s of ranread_fleet_sweep must not be null', a), format('fleet sweep %s NULL: named as null', a))
  FROM unnest(ARRAY['block_size', 'write_pct', 'queue_depth', 'pattern', 'region_start', 'region_end', 'distribution']) a;
SELECT throws_ok(format($$SELECT * FROM ranread_fleet_sweep(ARRAY['host=a'], %s => NULL)$$, a), '22004',
    format('invalid %s NULL for ranread_fleet_sweep', a), format('fleet sweep %s NULL', a))
  FROM unnest(ARRAY['start', 'max_processes', 'max_avg_ms']) a;
SELECT throws_ok($$SELECT * FROM ranread_fleet_sweep(ARRAY['host=a'], iterations => NULL, duration => NULL)$$, '22023',
    'ranread_fleet_sweep needs iterations or duration', 'fleet sweep without iterations and duration');

-- the nodes: names or connection strings libpq reads; nothing of an unreadable one is quoted
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['db7'], 1)$$, '22023',
    'unknown node "db7" of ranread_fleet', 'a word that is neither a node name nor a connection string');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a password=''x'], 1)$$, '22023',
    'invalid node 1 of ranread_fleet: neither a name in ranread_nodes nor a connection string libpq can read: a quoted value without its closing quote',
    'an unreadable connection string, quoting none of it');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['postgresql:/user:Secret@host:5522/db'], 1)$$, '22023',
    'invalid node 1 of ranread_fleet: neither a name in ranread_nodes nor a connection string libpq can read: a word without "= value" (a connection string is keyword = value pairs, or a postgresql:// URI)',
    'postgresql:/ with one slash: refused, quoting none of it');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a PASSWORD=Secret'], 1)$$, '22023',
    'invalid node 1 of ranread_fleet: neither a name in ranread_nodes nor a connection string libpq can read: a keyword libpq does not know (its keywords are lower case: host, port, dbname, user ...)',
    'PASSWORD= in upper case: refused, quoting none of it');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a port=5 dbname=b', 'host=a port=5 dbname=c password=x'], 1)$$, '22023',
    'node "a:5" is given twice to ranread_fleet', 'a server given twice, named host:port');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, loopback => 'dbname=x PASSWORD=y')$$, '22023',
    'invalid loopback of ranread_fleet: not a connection string libpq can read: a keyword libpq does not know (its keywords are lower case: host, port, dbname, user ...)',
    'an unreadable loopback, quoting none of it');
SELECT throws_like($$SELECT * FROM ranread_fleet(ARRAY['host=/nonexistent/dir port=1 password=hunter2'], 1)$$,
    'node "/nonexistent/dir:1" of ranread_fleet is unavailable: it cannot be reached%',
    'an unreachable node: named host:port, without its password');
SELECT throws_like($$SELECT * FROM ranread_fleet(ARRAY['postgresql://u:hunter2@%2Fnonexistent%2Fdir:1/db'], 1)$$,
    'node "/nonexistent/dir:1" of ranread_fleet is unavailable: it cannot be reached%',
    '... also given as a URI');

-- duration and warmup, which the coordinator adds to the start: refused
-- before any node is reached, in the nodes' own words (a duration of
-- 178000000 years was "timestamp out of range")
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, duration => '178000000 years')$$, '22023',
    'duration of ranread_fleet must be positive and at most 24 hours, not 178000000 years', 'duration of 178000000 years');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, duration => '25 hours')$$, '22023',
    'duration of ranread_fleet must be positive and at most 24 hours, not 25:00:00', 'duration past 24 hours');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, duration => '-1 s')$$, '22023',
    'duration of ranread_fleet must be positive and at most 24 hours, not -00:00:01', 'a negative duration');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, duration => '5 ms')$$, '22023',
    'duration of ranread_fleet must be at least 10 milliseconds, not 00:00:00.005', 'a duration under 10 ms');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, duration => '1s', warmup => '178000000 years')$$, '22023',
    'warmup of ranread_fleet must be zero or positive and at most 24 hours, not 178000000 years', 'warmup of 178000000 years');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1, duration => '1s', warmup => '-1 s')$$, '22023',
    'warmup of ranread_fleet must be zero or positive and at most 24 hours, not -00:00:01', 'a negative warmup');
SELECT throws_ok($$SELECT * FROM ranread_fleet_sweep(ARRAY['host=a'], duration => '178000000 years')$$, '22023',
    'duration of ranread_fleet_sweep must be positive and at most 24 hours, not 178000000 years', 'a fleet sweep''s duration of 178000000 years');

-- ranread_fleet_export's directory: a name longer than a filesystem takes,
-- or a path too long, is refused naming it (at most 100 characters of it),
-- never an internal error
INSERT INTO ranread_fleets (fleet, started_at, definition, nodes, processes, status)
VALUES (9100000000000001, now(), '{}', 1, 1, 'completed');
SELECT throws_ok($$SELECT ranread_fleet_export('/' || repeat('d', 300), fleet => 9100000000000001)$$, '22023',
    format('directory of ranread_fleet_export must be a path of at most 900 bytes, each name in it at most 255, not %s... (301 characters)',
           quote_literal('/' || repeat('d', 99))),
    'a directory whose name has 300 characters');
SELECT throws_ok($$SELECT ranread_fleet_export(repeat('/abcdefgh', 120), fleet => 9100000000000001)$$, '22023',
    format('directory of ranread_fleet_export must be a path of at most 900 bytes, each name in it at most 255, not %s... (1080 characters)',
           quote_literal(left(repeat('/abcdefgh', 120), 100))),
    'a path of 1080 bytes');
SELECT throws_ok($$SELECT ranread_fleet_export('/no/such/dir', fleet => 9100000000000001)$$, '58P01',
    'directory ''/no/such/dir'' of ranread_fleet_export does not exist', 'a directory that does not exist');

SELECT * FROM finish();
ROLLBACK;
