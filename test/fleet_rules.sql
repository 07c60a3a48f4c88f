-- The fleet's pure rules, from known values (no server is contacted):
-- connection strings shown and stored without passwords, the epoch second a
-- node's second belongs to, outliers, the fleet's status, and its figures
-- from its nodes' (common window, summed IOPS, weighted latency, spread).
BEGIN;
SELECT plan(33);

-- ranread_conninfo_strip: the password goes, the rest stays as written
SELECT is(ranread_conninfo_strip('host=db1 sslpassword=keypass sslkey=/k dbname=app'), 'host=db1 sslkey=/k dbname=app',
    'an sslpassword (the client key''s) goes too');
SELECT is(ranread_conninfo_strip('postgresql://u@db1/app?sslpassword=keypass&sslmode=require'), 'postgresql://u@db1/app?sslmode=require',
    '... also from a URI');
SELECT is(ranread_conninfo_scrub('could not use key with sslpassword=keypass', 'host=db1 sslpassword=keypass'),
    'could not use key with ********', 'and is blanked out of messages');
SELECT is(ranread_conninfo_strip('host=db1 port=5432 dbname=app'), 'host=db1 port=5432 dbname=app',
          'a connection string without a password is kept as written');
SELECT is(ranread_conninfo_strip('host=db1 password=secret dbname=app'), 'host=db1 dbname=app',
          'a password pair is taken out');
SELECT is(ranread_conninfo_strip('host=db1 password = ''it\''s a \\ secret'' dbname=app'), 'host=db1 dbname=app',
          'a quoted password with blanks, escaped quotes and blanks around = is taken out whole');
SELECT is(ranread_conninfo_strip('password=a\ b host=db1'), 'host=db1',
          'an unquoted password with an escaped blank is taken out whole');
SELECT is(ranread_conninfo_strip('host=db1 passfile=/etc/pgpass user=rr'), 'host=db1 passfile=/etc/pgpass user=rr',
          'passfile is no password and stays');
SELECT is(ranread_conninfo_strip('host=db1 application_name=''password=x'''), 'host=db1 application_name=''password=x''',
          'password= inside another value is not a password pair');
SELECT is(ranread_conninfo_strip('postgresql://rr:secret@db1:5432/app?sslmode=require'), 'postgresql://rr@db1:5432/app?sslmode=require',
          'a URI loses the password after its user name');
SELECT is(ranread_conninfo_strip('postgres://db1/app?password=secret&sslmode=require'), 'postgres://db1/app?sslmode=require',
          'a URI loses its password parameter');
SELECT is(ranread_conninfo_strip('postgres://db1/app?pass%77ord=secret'), 'postgres://db1/app',
          'a percent-encoded password parameter is one too');
SELECT is(ranread_conninfo_strip('postgresql:///app?host=/run/pg'), 'postgresql:///app?host=/run/pg',
          'a URI without a password is kept as written');
SELECT throws_ok($$SELECT ranread_conninfo_strip('host=db1 password=''unterminated')$$, '22023',
          'invalid connection string: a quoted value without its closing quote',
          'an unreadable string is an error that quotes none of it');
SELECT throws_ok($$SELECT ranread_conninfo_strip('host db1')$$, '22023',
          'invalid connection string: a keyword without "= value"',
          'a keyword without a value is an error that quotes none of it');

-- ranread_conninfo_scrub: a password never reaches a message
SELECT is(ranread_conninfo_scrub('FATAL: password "hunter2" rejected', 'host=db1 password=hunter2'),
          'FATAL: password "********" rejected', 'a password in a message is blanked out');
SELECT is(ranread_conninfo_scrub('could not connect', 'postgresql://u:p%40ss@db1/app'), 'could not connect',
          'a message without the password is kept');
SELECT is(ranread_conninfo_scrub('bad p@ss', 'postgresql://u:p%40ss@db1/app'), 'bad ********',
          'a URI''s password is blanked out decoded too');
SELECT is(ranread_conninfo_scrub('anything', 'host=db1 password=''x'),
          '(a message withheld: it may hold a password of an unreadable connection string)',
          'with an unreadable connection string the message is withheld');

-- ranread_nodes holds no password
SELECT throws_ok($$INSERT INTO ranread_nodes VALUES ('db1', 'host=db1 password=secret')$$, '22023',
          'connection string of node "db1" holds a password', 'ranread_nodes refuses a password');
SELECT lives_ok($$INSERT INTO ranread_nodes VALUES ('db2', 'host=db2 dbname=app')$$,
          'ranread_nodes takes a connection string without a password');

-- ranread_fleet_align: a second of a node on the epoch second its measurement was due at, plus its number
SELECT is(ranread_fleet_align('2026-01-01 00:00:10.0003+00', 2), '2026-01-01 00:00:12+00'::timestamptz,
          'second n of a node that started just after a whole second falls on that second + n');
SELECT is(ranread_fleet_align('2026-01-01 00:00:09.9996+00', 0), '2026-01-01 00:00:10+00'::timestamptz,
          '... and just before it too (a clock a little behind)');

-- ranread_fleet_outliers: below 0.8x the median
SELECT is(ranread_fleet_outliers('{1000, 900, 700, 1200, 770}'), '{f,f,t,f,f}',
          'a node below 0.8x the median (900 x 0.8 = 720) is an outlier, one above it is not');
SELECT is(ranread_fleet_outliers('{1000, NULL, 600}'), '{f,NULL,t}',
          'a node without a figure is no outlier and counts in no median');
SELECT is(ranread_fleet_outliers('{1000}'), '{f}', 'one node is never an outlier');

-- ranread_fleet_status
SELECT is(ranread_fleet_status('{completed,completed,skipped}'), 'completed', 'completed when every node that ran completed');
SELECT is(ranread_fleet_status('{completed,failed,cancelled}'), 'failed', 'failed when a node failed');
SELECT is(ranread_fleet_status('{completed,stopped}'), 'stopped', 'stopped when a node was stopped');
SELECT is(ranread_fleet_status('{completed,completed}', 'cancelled'), 'cancelled', 'the coordinator''s cancel comes first');

-- ranread_fleet_totals: node 1 ran seconds 10..12, node 2 seconds 11..13
-- (it started a second late): the common window is 11..12
SELECT is((SELECT row(t.window_start, t.window_seconds, t.iops, t.mbps, t.reads, t.avg_ms, t.start_spread_ms)::text
             FROM ranread_fleet_totals(
                 '[{"node": 1, "batch": 1, "reads": 3000, "writes": 0, "avg_ms": 1, "max_ms": 3,
                    "first_io_at": "2026-01-01 00:00:10+00", "offset_ms": 0},
                   {"node": 2, "batch": 7, "reads": 1000, "writes": 0, "avg_ms": 3, "max_ms": 9,
                    "first_io_at": "2026-01-01 00:00:11.002+00", "offset_ms": 2}]',
                 '[{"node": 1, "at": "2026-01-01 00:00:10+00", "iops": 1000},
                   {"node": 1, "at": "2026-01-01 00:00:11+00", "iops": 1000},
                   {"node": 1, "at": "2026-01-01 00:00:12+00", "iops": 1200},
                   {"node": 2, "at": "2026-01-01 00:00:11+00", "iops": 300},
                   {"node": 2, "at": "2026-01-01 00:00:12+00", "iops": 500},
                   {"node": 2, "at": "2026-01-01 00:00:13+00", "iops": 200}]', 8192) t),
          row('2026-01-01 00:00:11+00'::timestamptz, 2, 1500::float8, 1500 * 8192 / 1048576.0::float8,
              4000::bigint, 1.5::float8, 1000::float8)::text,
          'the totals: window of the seconds both nodes ran, IOPS summed per second and averaged there, reads summed, latency weighted, first I/Os compared on one clock');
SELECT is((SELECT t.max_ms FROM ranread_fleet_totals('[{"node": 1, "batch": 1, "reads": 1, "writes": 0, "max_ms": 3},
                                                       {"node": 2, "reads": 5, "writes": 0, "max_ms": 90}]', '[]', 8192) t),
          3::float8, 'a node without a batch counts in no total');
SELECT is((SELECT t.window_seconds FROM ranread_fleet_totals('[]', '[]', 8192) t), NULL,
          'no seconds, no window');

SELECT * FROM finish();
ROLLBACK;
