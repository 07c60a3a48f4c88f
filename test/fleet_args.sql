-- ranread_fleet and ranread_fleet_sweep refuse bad arguments before they
-- contact any node, with the argument, the value and what is allowed; and
-- say so when dblink is missing.
BEGIN;
SELECT plan(16);

SELECT throws_ok($$SELECT * FROM ranread_fleet(NULL, 1)$$, '22004',
    'nodes of ranread_fleet must not be null, nor hold a null', 'nodes NULL');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a', NULL], 1)$$, '22004',
    'nodes of ranread_fleet must not be null, nor hold a null', 'a NULL node');
SELECT throws_ok($$SELECT * FROM ranread_fleet('{}', 1)$$, '22023',
    'nodes of ranread_fleet must name at least one node', 'no node');
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

-- dblink: named when missing, found in any schema
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a'], 1)$$, '42704',
    format('ranread_fleet needs the extension dblink, which is not installed in database "%s"', current_database()),
    'without dblink, the error names it')
  WHERE NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'dblink')
UNION ALL SELECT skip('dblink is installed here', 1) WHERE EXISTS (SELECT FROM pg_extension WHERE extname = 'dblink');
CREATE SCHEMA fleet_links;
CREATE EXTENSION IF NOT EXISTS dblink SCHEMA fleet_links;
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['db7'], 1)$$, '22023',
    'unknown node "db7" of ranread_fleet', 'a word that is neither a node name nor a connection string');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a password=''x'], 1)$$, '22023',
    'invalid node 1 of ranread_fleet: neither a name in ranread_nodes nor a connection string',
    'an unreadable connection string, quoting none of it');
SELECT throws_ok($$SELECT * FROM ranread_fleet(ARRAY['host=a dbname=b', 'host=a dbname=b password=x'], 1)$$, '22023',
    'node "host=a dbname=b" is given twice to ranread_fleet', 'a node given twice (named without its password)');
SELECT throws_like($$SELECT * FROM ranread_fleet(ARRAY['host=/nonexistent/dir port=1 password=hunter2'], 1)$$,
    'node "host=/nonexistent/dir port=1" of ranread_fleet is unavailable: it cannot be reached%',
    'an unreachable node: named, without its password');

SELECT * FROM finish();
ROLLBACK;
