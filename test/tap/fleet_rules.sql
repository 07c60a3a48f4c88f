-- The fleet's pure rules, from known values (no server is contacted):
-- connection strings shown and stored without passwords, the epoch second a
-- node's second belongs to, outliers, the fleet's status, and its figures
-- from its nodes' (common window, summed IOPS, weighted latency, spread).
BEGIN;
SELECT plan(51);

-- ranread_conninfo_strip: the options libpq reads, without any password
SELECT is(ranread_internal.ranread_conninfo_strip('host=db1 sslpassword=keypass sslkey=/k dbname=app'), 'dbname=app host=db1 sslkey=/k',
    'an sslpassword (the client key''s) goes too');
SELECT is(ranread_internal.ranread_conninfo_strip('postgresql://u@db1/app?sslpassword=keypass&sslmode=require'), 'user=u dbname=app host=db1 sslmode=require',
    '... also from a URI, which is shown as libpq reads it');
SELECT is(ranread_internal.ranread_conninfo_scrub('could not use key with sslpassword=keypass', 'host=db1 sslpassword=keypass'),
    'could not use key with ********', 'and is blanked out of messages');
SELECT is(ranread_internal.ranread_conninfo_strip('host=db1 port=5432 dbname=app'), 'dbname=app host=db1 port=5432',
          'a connection string without a password keeps every option');
SELECT is(ranread_internal.ranread_conninfo_strip('host=db1 password=secret dbname=app'), 'dbname=app host=db1',
          'a password pair is taken out');
SELECT is(ranread_internal.ranread_conninfo_strip('host=db1 password = ''it\''s a \\ secret'' dbname=app'), 'dbname=app host=db1',
          'a quoted password with blanks, escaped quotes and blanks around = is taken out whole');
SELECT is(ranread_internal.ranread_conninfo_strip('password=a\ b host=db1'), 'host=db1',
          'an unquoted password with an escaped blank is taken out whole');
SELECT is(ranread_internal.ranread_conninfo_strip('host=db1 passfile=/etc/pgpass user=rr'), 'user=rr passfile=/etc/pgpass host=db1',
          'passfile is no password and stays');
SELECT is(ranread_internal.ranread_conninfo_strip('host=db1 application_name=''password=x y'''), 'host=db1 application_name=''password=x y''',
          'password= inside another value is not a password pair (and the value is quoted again)');
SELECT is(ranread_internal.ranread_conninfo_strip('postgresql://rr:secret@db1:5432/app?sslmode=require'), 'user=rr dbname=app host=db1 port=5432 sslmode=require',
          'a URI loses the password after its user name');
SELECT is(ranread_internal.ranread_conninfo_strip('postgres://db1/app?password=secret&sslmode=require'), 'dbname=app host=db1 sslmode=require',
          'a URI loses its password parameter');
SELECT is(ranread_internal.ranread_conninfo_strip('postgres://db1/app?pass%77ord=secret'), 'dbname=app host=db1',
          'a percent-encoded password parameter is one too');
SELECT is(ranread_internal.ranread_conninfo_strip('postgresql://u:p%40ss@db1/app?password=two'), 'user=u dbname=app host=db1',
          'a URI with a password twice (after the user, as a parameter) loses both');
SELECT is(ranread_internal.ranread_conninfo_strip('postgresql:///app?host=/run/pg'), 'dbname=app host=/run/pg',
          'a URI without a password keeps every option');
SELECT throws_ok($$SELECT ranread_internal.ranread_conninfo_strip('host=db1 password=''unterminated')$$, '22023',
          'invalid connection string: a quoted value without its closing quote',
          'an unreadable string is an error that quotes none of it');
SELECT throws_ok($$SELECT ranread_internal.ranread_conninfo_strip('host db1')$$, '22023',
          'invalid connection string: a word without "= value" (a connection string is keyword = value pairs, or a postgresql:// URI)',
          'a keyword without a value is an error that quotes none of it');

-- what libpq cannot read is refused, quoting none of it
SELECT is(ranread_internal.ranread_conninfo_problem('PASSWORD=Secret host=db1'),
          'a keyword libpq does not know (its keywords are lower case: host, port, dbname, user ...)',
          'PASSWORD= (upper case) is no keyword of libpq: the string is refused');
SELECT is(ranread_internal.ranread_conninfo_problem('postgresql:/user:Secret@host:5522/db'),
          'a word without "= value" (a connection string is keyword = value pairs, or a postgresql:// URI)',
          'postgresql:/ with one slash is no URI: the string is refused');
SELECT is(ranread_internal.ranread_conninfo_problem('host=db1 port=5432'), NULL, 'a string libpq reads has no problem');
SELECT is(ranread_internal.ranread_conninfo_has_password('host=db1 password='''''), false, 'an empty password is none');
SELECT is(ranread_internal.ranread_conninfo_has_password('postgres://db1/app?pass%77ord=x'), true, 'a percent-encoded password parameter is a password');

-- ranread_conninfo_name: host:port as libpq will choose them
SELECT is(ranread_internal.ranread_conninfo_name('host=db1,db2 port=5432,5433 password=x'), 'db1:5432,db2:5433', 'a host list with its ports');
SELECT is(ranread_internal.ranread_conninfo_name('postgresql://u:secret@db1:6000/app'), 'db1:6000', 'a URI''s host and port');
SELECT is(ranread_internal.ranread_conninfo_name('hostaddr=10.0.0.7 port=5'), '10.0.0.7:5', 'hostaddr when there is no host');

-- ranread_conninfo_scrub: a password never reaches a message
SELECT is(ranread_internal.ranread_conninfo_scrub('FATAL: password "hunter2" rejected', 'host=db1 password=hunter2'),
          'FATAL: password "********" rejected', 'a password in a message is blanked out');
SELECT is(ranread_internal.ranread_conninfo_scrub('could not connect', 'postgresql://u:p%40ss@db1/app'), 'could not connect',
          'a message without the password is kept');
SELECT is(ranread_internal.ranread_conninfo_scrub('bad p@ss, raw p%40ss', 'postgresql://u:p%40ss@db1/app'), 'bad ********, raw ********',
          'a URI''s password is blanked out decoded and as written');
SELECT is(ranread_internal.ranread_conninfo_scrub('anything', 'host=db1 password=''x'),
          '(a message withheld: it may hold a password of an unreadable connection string)',
          'with an unreadable connection string the message is withheld');

-- ranread_nodes holds no password, in any spelling libpq takes, and nothing libpq cannot read
SELECT throws_ok($$INSERT INTO ranread_nodes VALUES ('db1', 'host=db1 password=secret')$$, '22023',
          'connection string of node "db1" holds a password', 'ranread_nodes refuses a password');
SELECT throws_ok($$INSERT INTO ranread_nodes VALUES ('db1', 'postgresql://u:secret@db1/app')$$, '22023',
          'connection string of node "db1" holds a password', '... in a URI');
SELECT throws_ok($$INSERT INTO ranread_nodes VALUES ('db1', 'postgresql://u@db1/app?pass%77ord=secret')$$, '22023',
          'connection string of node "db1" holds a password', '... percent-encoded in a URI parameter');
SELECT throws_ok($$INSERT INTO ranread_nodes VALUES ('db1', 'host=db1 PASSWORD=secret')$$, '22023',
          'invalid connection string of node "db1": a keyword libpq does not know (its keywords are lower case: host, port, dbname, user ...)',
          'PASSWORD= in upper case is refused too, as libpq cannot read it');
SELECT throws_ok($$INSERT INTO ranread_nodes VALUES ('db1', 'postgresql:/user:Secret@host:5522/db')$$, '22023',
          'invalid connection string of node "db1": a word without "= value" (a connection string is keyword = value pairs, or a postgresql:// URI)',
          '... and postgresql:/ with one slash, quoting none of it');
SELECT lives_ok($$INSERT INTO ranread_nodes VALUES ('db2', 'host=db2 dbname=app')$$,
          'ranread_nodes takes a connection string without a password');

-- ranread_fleet_align: a second of a node on the epoch second its measurement was due at, plus its number
SELECT is(ranread_internal.ranread_fleet_align('2026-01-01 00:00:10.0003+00', 2), '2026-01-01 00:00:12+00'::timestamptz,
          'second n of a node that started just after a whole second falls on that second + n');
SELECT is(ranread_internal.ranread_fleet_align('2026-01-01 00:00:09.9996+00', 0), '2026-01-01 00:00:10+00'::timestamptz,
          '... and just before it too (a clock a little behind)');

-- ranread_fleet_outliers: below 0.8x the median
SELECT is(ranread_internal.ranread_fleet_outliers('{1000, 900, 700, 1200, 770}'), '{f,f,t,f,f}',
          'a node below 0.8x the median (900 x 0.8 = 720) is an outlier, one above it is not');
SELECT is(ranread_internal.ranread_fleet_outliers('{1000, NULL, 600}'), '{f,NULL,t}',
          'a node without a figure is no outlier and counts in no median');
SELECT is(ranread_internal.ranread_fleet_outliers('{1000}'), '{f}', 'one node is never an outlier');

-- ranread_fleet_status
SELECT is(ranread_internal.ranread_fleet_status('{completed,completed,skipped}'), 'completed', 'completed when every node that ran completed');
SELECT is(ranread_internal.ranread_fleet_status('{completed,failed,cancelled}'), 'failed', 'failed when a node failed');
SELECT is(ranread_internal.ranread_fleet_status('{completed,stopped}'), 'stopped', 'stopped when a node was stopped');
SELECT is(ranread_internal.ranread_fleet_status('{completed,completed}', 'cancelled'), 'cancelled', 'the coordinator''s cancel comes first');

-- ranread_fleet_totals: node 1 ran seconds 10..12, node 2 seconds 11..13
-- (it started a second late): the common window is 11..12
SELECT is((SELECT row(t.window_start, t.window_seconds, t.iops, t.mbps, t.reads, t.avg_ms, t.start_spread_ms)::text
             FROM ranread_internal.ranread_fleet_totals(
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
-- a fleet by iterations: each node's last second is short; the window is
-- the real time, each second weighted by how long all nodes ran in it
SELECT is((SELECT row(round(t.window_seconds::numeric, 6), round(t.iops::numeric, 6))::text
             FROM ranread_internal.ranread_fleet_totals(
                 '[{"node": 1, "batch": 1, "reads": 14460, "writes": 0}, {"node": 2, "batch": 2, "reads": 14362, "writes": 0}]',
                 '[{"node": 1, "at": "2026-01-01 00:00:10+00", "iops": 13900, "elapsed": 1},
                   {"node": 1, "at": "2026-01-01 00:00:11+00", "iops": 7000, "elapsed": 0.08},
                   {"node": 2, "at": "2026-01-01 00:00:10+00", "iops": 13900, "elapsed": 1},
                   {"node": 2, "at": "2026-01-01 00:00:11+00", "iops": 6000, "elapsed": 0.077}]', 8192) t),
          row(1.077000, round(((27800 * 1 + 13000 * 0.077) / 1.077)::numeric, 6))::text,
          'a partial last second counts for the time all nodes ran in it: the window is 1.077 s, not 2, and IOPS the I/Os over it');
SELECT is((SELECT t.max_ms FROM ranread_internal.ranread_fleet_totals('[{"node": 1, "batch": 1, "reads": 1, "writes": 0, "max_ms": 3},
                                                       {"node": 2, "reads": 5, "writes": 0, "max_ms": 90}]', '[]', 8192) t),
          3::float8, 'a node without a batch counts in no total');
SELECT is((SELECT t.window_seconds FROM ranread_internal.ranread_fleet_totals('[]', '[]', 8192) t), NULL,
          'no seconds, no window');

-- a fleet whose coordinator is gone: shown failed, its running nodes lost;
-- ranread_fleet_abandon records it so, and leaves a live fleet alone
INSERT INTO ranread_fleets (fleet, started_at, coordinator_pid, coordinator_start, definition, nodes, processes, status)
VALUES (-1, now(), 0, now(), '{}', 1, 1, 'running'),
       (-2, now(), pg_backend_pid(), (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()), '{}', 1, 1, 'running');
INSERT INTO ranread_fleet_nodes (fleet, node, name, conninfo, status)
VALUES (-1, 1, 'a:1', 'host=a port=1', 'running'), (-2, 1, 'b:1', 'host=b port=1', 'running');
SELECT is((SELECT status FROM ranread_fleet_summary WHERE fleet = -1) || '|' || (SELECT status FROM ranread_fleet_rows(-1) WHERE node = 1),
          'failed|lost', 'a fleet whose coordinator is gone is shown failed, its running node lost');
SELECT is((SELECT status FROM ranread_fleet_summary WHERE fleet = -2) || '|' || (SELECT status FROM ranread_fleet_rows(-2) WHERE node = 1),
          'running|running', 'a fleet whose coordinator runs is shown running');
SELECT is(ranread_internal.ranread_fleet_abandon(), 1, 'ranread_fleet_abandon fixes up the fleets whose coordinator is gone');
SELECT is((SELECT string_agg(f.status || '/' || n.status, ',' ORDER BY f.fleet) FROM ranread_fleets f JOIN ranread_fleet_nodes n USING (fleet) WHERE f.fleet < 0),
          'running/running,failed/lost', '... recorded failed and lost, the live one untouched');

SELECT * FROM finish();
ROLLBACK;
