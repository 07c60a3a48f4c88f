-- The advisor's formulas on known numbers (no I/O): page costs, I/O
-- concurrency, the parallel workers' cap, wal_sync_method, and the
-- statements it tells users to run.  docs/commit-and-advice.md, "From numbers
-- to settings", gives each formula and its source.
BEGIN;
SELECT plan(26);
\ir lib/util.psql

-- ranread_advise_page_costs(random_ms, seq_page_ms, cache_hit_ratio, reference_seq_page_ms)
CREATE TEMP TABLE page_costs (label text, random_ms float8, seq_page_ms float8, hit float8,
                              ref_ms float8, spc numeric, rpc numeric);
INSERT INTO page_costs VALUES
  ('PostgreSQL''s model: 40x slower random access, 90% cached, gives the default 4.0',
   4.0, 0.1, 0.9, NULL, 1.00, 4.0),
  ('a disk: 8 ms seeks, 150 MiB/s (0.052 ms a page), 90% cached',
   8.0, 0.0521, 0.9, NULL, 1.00, 15.4),
  ('the same disk with nothing cached',
   8.0, 0.0521, 0, NULL, 1.00, 153.6),
  ('an SSD: 0.1 ms random, 2 GiB/s, 90% cached',
   0.1, 0.0038, 0.9, NULL, 1.00, 2.6),
  ('everything cached: random costs what sequential does, never less',
   0.1, 0.0038, 1, NULL, 1.00, 1.00),
  ('a throttled device: 2000 IOPS (0.5 ms), 100 MiB/s (0.078 ms a page), nothing cached',
   0.5, 0.078125, 0, NULL, 1.00, 6.4),
  ('a tablespace half as fast sequentially as the default''s',
   1.0, 0.01, 0.9, 0.005, 2.00, 20.0),
  ('a tablespace faster than the default''s, random floored at its own seq_page_cost',
   0.02, 0.0025, 0.9, 0.005, 0.50, 0.50);
SELECT results_eq(
    $$SELECT p.label, c.seq_page_cost, c.random_page_cost FROM page_costs p,
             LATERAL ranread_advise_page_costs(p.random_ms, p.seq_page_ms, p.hit, p.ref_ms) c ORDER BY p.label$$,
    $$SELECT label, spc, rpc FROM page_costs ORDER BY label$$,
    'page costs: seq_page_cost = seq page / reference seq page, random_page_cost = (1 - hit) x random / reference seq page, at least seq_page_cost');
SELECT results_eq(
    $$SELECT c.seq_page_cost, c.random_page_cost FROM (VALUES (NULL::float8, 0.1::float8), (4, NULL)) v(r, s),
             LATERAL ranread_advise_page_costs(v.r, v.s, 0.9) c$$,
    $$VALUES (NULL::numeric, NULL::numeric), (NULL, NULL)$$,
    'no page costs without both times');

-- ranread_advise_io_concurrency(concurrency[], iops[], avg_ms[], max_avg_ms)
CREATE TEMP TABLE curves (label text, conc integer[], iops float8[], avg_ms float8[], bound float8,
                          ioc integer, peak float8, peak_at integer, rising boolean);
INSERT INTO curves VALUES
  ('a device capped at 2000 IOPS reaches its peak at once: 1',
   '{1,2,4}', '{1990,2000,2001}', '{0.5,1,2}', 10, 1, 2001, 4, false),
  ('an SSD that scales to 64: the lowest concurrency with 90% of the peak',
   '{1,2,4,8,16,32,64,128}', '{10000,19000,36000,60000,80000,90000,97000,97500}',
   '{0.1,0.1,0.11,0.13,0.2,0.35,0.66,1.3}', 10, 32, 97500, 128, false),
  ('the peak counts only within the latency bound',
   '{1,2,4,8,16}', '{1000,2000,3900,7000,9000}', '{1,1,1,1.1,12}', 10, 8, 7000, 8, false),
  ('still rising at the highest concurrency measured: a lower bound',
   '{1,2,4}', '{1000,2000,4000}', '{1,1,1}', 10, 4, 4000, 4, true),
  ('exactly 90% of the peak counts',
   '{1,2}', '{900,1000}', '{1,2}', 10, 1, 1000, 2, false),
  ('concurrencies out of order are fine',
   '{8,1,4,2}', '{4000,1000,3950,2000}', '{2,1,1,1}', 10, 4, 4000, 8, false),
  ('one concurrency is no curve',
   '{1}', '{1000}', '{1}', 10, NULL, NULL, NULL, NULL),
  ('one concurrency within the bound is no curve either',
   '{1,2}', '{1000,1500}', '{1,20}', 10, NULL, NULL, NULL, NULL),
  ('no batches',
   NULL, NULL, NULL, 10, NULL, NULL, NULL, NULL);
SELECT results_eq(
    $$SELECT c.label, a.io_concurrency, a.peak_iops, a.peak_concurrency, a.still_rising FROM curves c
        LEFT JOIN LATERAL ranread_advise_io_concurrency(c.conc, c.iops, c.avg_ms, c.bound) a ON true ORDER BY c.label$$,
    $$SELECT label, ioc, peak, peak_at, rising FROM curves ORDER BY label$$,
    'I/O concurrency: the lowest concurrency within the bound whose IOPS reach 90% of the peak within it');
SELECT is((ranread_advise_io_concurrency('{1,2000}', '{10,100}', '{1,1}', 10)).io_concurrency, 1000,
    'I/O concurrency is clamped to PostgreSQL''s 1000');
SELECT is((ranread_advise_io_concurrency('{1,2,4}', '{900,1900,2000}', '{1,1,1}', 10, 0.5)).io_concurrency, 2,
    'the share of the peak is an argument (0.5: half the peak)');

-- ranread_advise_parallel_workers(one process MiB/s, all MiB/s)
SELECT results_eq(
    $$SELECT v.label, w.processes, w.workers FROM (VALUES
        ('one process reads as fast as all: no workers', 500::float8, 520::float8),
        ('four processes'' worth: three workers and the leader', 250, 1000),
        ('rounded to the nearest process', 300, 1060),
        ('never below one process', 500, 100)) v(label, one, alln),
        LATERAL ranread_advise_parallel_workers(v.one, v.alln) w ORDER BY v.label$$,
    $$VALUES ('four processes'' worth: three workers and the leader', 4, 3),
             ('never below one process', 1, 0),
             ('one process reads as fast as all: no workers', 1, 0),
             ('rounded to the nearest process', 4, 3)$$,
    'parallel workers: processes = round(all / one), workers = processes - 1');
SELECT is((ranread_advise_parallel_workers(NULL, 100)).workers, NULL,
    'no cap without one process''s figure');

-- ranread_advise_wal_sync_method(methods[], ops[], current): the rounds of
-- one commit test (a method repeated once per round), the server's method.
-- pg_temp.r(methods, ops, rounds): the methods' rounds, alternated, each
-- within 1% of its figure (0, +1%, -1%, +1%, -1%: the mean is the figure)
CREATE FUNCTION pg_temp.r(m text[], o float8[], rounds integer DEFAULT 5, spread float8 DEFAULT 0.01,
                          OUT methods text[], OUT ops float8[]) LANGUAGE sql AS $$
    SELECT array_agg(u.m ORDER BY r, u.k),
           array_agg(u.o * (1 + spread * CASE WHEN r = 1 THEN 0 WHEN r % 2 = 0 THEN 1 ELSE -1 END) ORDER BY r, u.k)
      FROM generate_series(1, rounds) r, unnest(m, o) WITH ORDINALITY u(m, o, k)
$$;
SELECT results_eq(
    $$SELECT v.label, w.method, w.settled FROM (VALUES
        ('twice as fast, beyond the noise: the faster', '{open_datasync,fdatasync}'::text[], '{2000,1000}'::float8[], 'fdatasync', 0.01),
        ('30% faster beyond the noise: the faster', '{open_datasync,fdatasync}', '{1300,1000}', 'fdatasync', 0.01),
        ('5% faster: below 10%, even at the ends of the intervals: the current stays', '{open_datasync,fdatasync}', '{1050,1000}', 'fdatasync', 0.01),
        ('30% faster on average but rounds 40% apart: no clear winner yet', '{open_datasync,fdatasync}', '{1300,1000}', 'fdatasync', 0.4),
        ('the current is the fastest', '{open_datasync,fdatasync}', '{900,1000}', 'fdatasync', 0.01),
        ('fsync 40% faster than fdatasync: never advised over it', '{fsync,fdatasync}', '{1400,1000}', 'fdatasync', 0.01),
        ('open_sync faster than open_datasync: never advised over it', '{open_sync,open_datasync,fdatasync}', '{1400,1000,1000}', 'fdatasync', 0.01),
        ('the current fsync, fdatasync and open_datasync alike twice as fast: fdatasync, first in PostgreSQL''s order', '{open_datasync,fdatasync,fsync}', '{2010,2000,1000}', 'fsync', 0.01),
        ('a current method not measured: no advice', '{open_datasync,fsync}', '{900,1000}', 'fdatasync', 0.01),
        ('only one method, not the current: no advice', '{open_sync}', '{4431}', 'fdatasync', 0.01),
        ('only the current method: no advice', '{fdatasync}', '{4817}', 'fdatasync', 0.01),
        ('the non-synced write is no method', '{none,fdatasync,fsync}', '{90000,1000,1000}', 'fsync', 0.01)
      ) v(label, m, o, cur, spread), LATERAL pg_temp.r(v.m, v.o, spread => v.spread) x,
        LATERAL ranread_advise_wal_sync_method(x.methods, x.ops, v.cur) w ORDER BY v.label$$,
    $$VALUES ('30% faster beyond the noise: the faster', 'open_datasync', true),
             ('30% faster on average but rounds 40% apart: no clear winner yet', 'fdatasync', false),
             ('5% faster: below 10%, even at the ends of the intervals: the current stays', 'fdatasync', true),
             ('a current method not measured: no advice', NULL, true),
             ('fsync 40% faster than fdatasync: never advised over it', 'fdatasync', true),
             ('only one method, not the current: no advice', NULL, true),
             ('only the current method: no advice', NULL, true),
             ('open_sync faster than open_datasync: never advised over it', 'fdatasync', true),
             ('the current fsync, fdatasync and open_datasync alike twice as fast: fdatasync, first in PostgreSQL''s order', 'fdatasync', true),
             ('the current is the fastest', 'fdatasync', true),
             ('the non-synced write is no method', 'fsync', true),
             ('twice as fast, beyond the noise: the faster', 'open_datasync', true)$$,
    'wal_sync_method: the current method unless another is faster beyond the noise of the rounds and by more than 10%; never fsync over fdatasync nor open_sync over open_datasync; ties in PostgreSQL''s order');
SELECT results_eq(
    $$SELECT best_ops, current_ops, faster_pct, measured
        FROM pg_temp.r('{fdatasync,open_datasync}', '{1000,1300}') x, ranread_advise_wal_sync_method(x.methods, x.ops, 'fdatasync')$$,
    $$VALUES (1300::float8, 1000::float8, 30::numeric,
              'open_datasync 1,300 ops/s (95% interval 1,284 to 1,316, 5 rounds), fdatasync 1,000 ops/s (95% interval 988 to 1,012, 5 rounds)')$$,
    'it gives the figures it compared, fastest first, each the mean of its rounds with its 95% interval, and how much faster the fastest is');
SELECT is((SELECT note FROM pg_temp.r('{fdatasync,open_datasync}', '{1000,1300}', spread => 0.4) x,
                             ranread_advise_wal_sync_method(x.methods, x.ops, 'fdatasync')),
    'no clear winner after 5 rounds: open_datasync (654 to 1,946 ops/s) and fdatasync, the server''s wal_sync_method (503 to 1,497), overlap or lie within 10% of each other, so fdatasync stays',
    'no clear winner: it names the intervals that overlap');
SELECT is((SELECT note FROM ranread_advise_wal_sync_method('{open_datasync,fdatasync}', '{1300,1000}', 'fdatasync')),
    'the fastest of open_datasync, fdatasync is open_datasync, 30% faster than fdatasync, the server''s wal_sync_method, but one round each shows nothing of the noise: fdatasync stays (a commit test repeats its rounds until the intervals tell)',
    'one round each: the noise is not known, the current method stays');
SELECT results_eq(
    $$SELECT v.m::text, w.note FROM (VALUES
        ('{open_datasync,open_sync}'::text[], '{1300,1200}'::float8[]),
        ('{open_sync}', '{4431}'),
        ('{fdatasync}', '{4817}')
      ) v(m, o), LATERAL ranread_advise_wal_sync_method(v.m, v.o, 'fdatasync') w$$,
    $$VALUES ('{open_datasync,open_sync}',
              'the fastest of open_datasync, open_sync is open_datasync, but fdatasync, the server''s wal_sync_method, was not measured with them: nothing to compare it with'),
             ('{open_sync}',
              'only open_sync was measured, not fdatasync, the server''s wal_sync_method: nothing to compare'),
             ('{fdatasync}',
              'only fdatasync, the server''s wal_sync_method, was measured: nothing to compare it with')$$,
    'the note says what was compared with what, and calls a method fastest only among methods measured together');
SELECT is((ranread_advise_wal_sync_method('{open_sync}', '{4431}', 'fdatasync')).faster_pct, NULL,
    'with nothing to compare there is no percentage');
SELECT is((ranread_advise_wal_sync_method(NULL, NULL, 'fdatasync')).method, NULL,
    'no method without a commit test');

-- The formulas granted to pg_monitor refuse what is not a figure: NaN,
-- infinities, negatives, naming the argument, the value and what is allowed
SELECT results_eq(
    $$SELECT pg_temp.error_of(q) FROM unnest(ARRAY[
        'SELECT * FROM ranread_advise_page_costs(''NaN'', 0.1, 0.9)',
        'SELECT * FROM ranread_advise_page_costs(4, -0.1, 0.9)',
        'SELECT * FROM ranread_advise_page_costs(4, 0.1, ''NaN'')',
        'SELECT * FROM ranread_advise_page_costs(4, 0.1, 0.9, ''Infinity'')',
        'SELECT * FROM ranread_advise_parallel_workers(''Infinity'', 100)',
        'SELECT * FROM ranread_advise_parallel_workers(100, -1)',
        'SELECT * FROM ranread_advise_io_concurrency(''{1,2}'', ''{NaN,5}'', ''{1,1}'', 10)',
        'SELECT * FROM ranread_advise_io_concurrency(''{1,2}'', ''{5,5}'', ''{1,-1}'', 10)',
        'SELECT * FROM ranread_advise_io_concurrency(''{1,2}'', ''{5,5}'', ''{1,1}'', ''Infinity'')',
        'SELECT * FROM ranread_advise_io_concurrency(''{1,2}'', ''{5,5}'', ''{1,1}'', 10, 0)',
        'SELECT * FROM ranread_advise_wal_sync_method(''{fdatasync,fsync}'', ''{Infinity,5}'', ''fdatasync'')',
        'SELECT * FROM ranread_advise_wal_sync_method(''{fdatasync,fsync}'', ''{NaN,5}'', ''fdatasync'')',
        'SELECT * FROM ranread_advise_wal_sync_method(''{fdatasync,fsync}'', ''{-3,5}'', ''fdatasync'')',
        'SELECT * FROM ranread_advise_wal_sync_method(''{fdatasync,fsync}'', ''{5}'', ''fdatasync'')']) q$$,
    $$VALUES ('22023: random_ms of ranread_advise_page_costs must be a finite number above 0, not NaN'),
             ('22023: seq_page_ms of ranread_advise_page_costs must be a finite number above 0, not -0.1'),
             ('22023: cache_hit_ratio of ranread_advise_page_costs must be from 0 to 1, not NaN'),
             ('22023: reference_seq_page_ms of ranread_advise_page_costs must be a finite number above 0, not Infinity'),
             ('22023: one_process_mbps of ranread_advise_parallel_workers must be a finite number above 0, not Infinity'),
             ('22023: all_mbps of ranread_advise_parallel_workers must be a finite number above 0, not -1'),
             ('22023: iops[1] of ranread_advise_io_concurrency must be a finite number above 0, not NaN'),
             ('22023: avg_ms[2] of ranread_advise_io_concurrency must be a finite number above 0, not -1'),
             ('22023: max_avg_ms of ranread_advise_io_concurrency must be a finite number above 0, not Infinity'),
             ('22023: share of ranread_advise_io_concurrency must be above 0 and at most 1, not 0'),
             ('22023: ops_per_s[1] of ranread_advise_wal_sync_method must be a finite number of 0 or more, not Infinity'),
             ('22023: ops_per_s[1] of ranread_advise_wal_sync_method must be a finite number of 0 or more, not NaN'),
             ('22023: ops_per_s[1] of ranread_advise_wal_sync_method must be a finite number of 0 or more, not -3'),
             ('22023: methods and ops_per_s of ranread_advise_wal_sync_method must have as many elements, not 2 and 1')$$,
    'NaN, infinities and negatives are refused, naming the function, the argument and its value, and what is allowed');
SELECT is(pg_temp.hint_of($$SELECT * FROM ranread_advise_page_costs('NaN', 0.1, 0.9)$$),
    'random_ms is a measured figure; NULL when it was not measured.', '... with a hint');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_internal.ranread_advise_cache('NaN', 't', 1, 1)$$),
    '22023: qd1_ms of ranread_advise_cache must be a finite number above 0, not NaN',
    '... and so does the cache rule (NaN would pass for a slow device)');

-- ranread_internal.ranread_advise_cache(qd1_ms, target, target_bytes, ram_bytes): did a cache answer?
SELECT results_eq(
    $$SELECT v.label, c.withhold, c.note IS NOT NULL FROM (VALUES
        ('15 us reads: a cache answered, whatever the target', 0.015::float8, 1e12::bigint),
        ('20 us reads are not too fast for a device', 0.02, 1e12),
        ('0.1 ms reads of a target twice the RAM: the device', 0.1, 8e9),
        ('0.1 ms reads of a target under twice the RAM: a cache may have', 0.1, 8e9 - 1),
        ('0.2 ms reads of a small target: the device, said so', 0.2, 1e6),
        ('no QD1 read and a small target: nothing tells, withhold', NULL, 1e6),
        ('no QD1 read and a large target: nothing to say', NULL, 1e12),
        ('a target whose size is not known: only the latency judges', 0.1, NULL)) v(label, ms, bytes),
        LATERAL ranread_internal.ranread_advise_cache(v.ms, 't', v.bytes::bigint, 4e9::bigint) c ORDER BY v.label$$,
    $$VALUES ('0.1 ms reads of a target twice the RAM: the device', false, false),
             ('0.1 ms reads of a target under twice the RAM: a cache may have', true, true),
             ('0.2 ms reads of a small target: the device, said so', false, true),
             ('15 us reads: a cache answered, whatever the target', true, true),
             ('20 us reads are not too fast for a device', false, false),
             ('a target whose size is not known: only the latency judges', false, false),
             ('no QD1 read and a large target: nothing to say', false, false),
             ('no QD1 read and a small target: nothing tells, withhold', true, true)$$,
    'a cache answered below 20 us, or below 0.2 ms on a target under twice the RAM: no storage advice then');
SELECT is((ranread_internal.ranread_advise_cache(0.1, 'ranread', 1073741824, 4294967296)).note,
    'target ranread is 1024 MB, less than twice the server''s RAM (4096 MB), and QD1 random 8 KiB reads average 0.100 ms, as fast as a cache under the filesystem (the device''s, a controller''s, a virtual machine host''s) answers: it may have, so the storage''s figures are not advised from',
    'the note names the target, its size, the RAM and the latency');
SELECT is((ranread_internal.ranread_advise_cache(0.1, 'ranread', 1073741824, NULL)).withhold, false,
    'with the RAM unknown, a 0.1 ms read is not taken for a cache''s');

-- ranread_advise_same(suggested, current)
SELECT results_eq(
    $$SELECT ranread_internal.ranread_advise_same(a, b) FROM (VALUES ('4.0', '4'), ('1.00', '1'), ('16', '10'),
                                                   ('fdatasync', 'FDATASYNC'), ('fsync', 'fdatasync')) v(a, b)$$,
    $$VALUES (true), (true), (false), (true), (false)$$,
    'a suggestion equal to what is set (4.0 is 4) needs nothing applied');

-- ranread_advise_pending(setting, suggested, current, scope, apply_sql)
SELECT results_eq(
    $$SELECT p.apply_now, p.ts_set, p.sys_set
        FROM (VALUES ('random_page_cost', '1.1', '1.10', 'tablespace', 'ALTER TABLESPACE t SET (random_page_cost = 1.1);'),
                     ('random_page_cost', '1.1', '4', 'tablespace', 'ALTER TABLESPACE t SET (random_page_cost = 1.1);'),
                     ('max_parallel_workers_per_gather', '3', '2', 'server', 'ALTER SYSTEM SET max_parallel_workers_per_gather = 3;'),
                     ('wal_sync_method', 'open_datasync', 'fdatasync', 'server', 'ALTER SYSTEM SET wal_sync_method = ''open_datasync'';'),
                     ('wal_sync_method', NULL, 'fdatasync', 'server', NULL)) v(s, g, c, sc, a),
             ranread_internal.ranread_advise_pending(s, g, c, sc, a) p$$,
    $$VALUES (NULL, '{}'::text[], '{}'::text[]),
             ('ALTER TABLESPACE t SET (random_page_cost = 1.1);', '{"random_page_cost = 1.1"}', '{}'),
             ('ALTER SYSTEM SET max_parallel_workers_per_gather = 3;', '{}',
              '{"ALTER SYSTEM SET max_parallel_workers_per_gather = 3;"}'),
             ('ALTER SYSTEM SET wal_sync_method = ''open_datasync'';', '{}',
              '{"ALTER SYSTEM SET wal_sync_method = ''open_datasync'';"}'),
             (NULL, '{}', '{}')$$,
    'what a suggestion leaves to apply: nothing when already so, a tablespace option or an ALTER SYSTEM');

-- The statements advice tells users to run (and measure => true runs)
SELECT is(ranread_internal.ranread_advise_measure_sql('random QD1', 'fast', '5s', 10),
    'SELECT * FROM ranread_run(1, target => ''fast'', duration => ''00:00:05'');',
    'QD1 random 8 KiB reads: one process, the defaults');
SELECT is(ranread_internal.ranread_advise_measure_sql('sequential sweep', 'fast', '5s', 10, 'ext'),
    'SELECT * FROM ext.ranread_sweep(start => 1, max_processes => 16, duration => ''00:00:05'', max_avg_ms => 1000, target => ''fast'', block_size => 1048576, pattern => ''sequential'');',
    'sequential reads by 1, 2, 4 ... processes, qualified when run');
SELECT is(ranread_internal.ranread_advise_measure_sql('random sweep', 'it''s', '2s', 4.5),
    'SELECT * FROM ranread_sweep(start => 1, max_processes => 256, duration => ''00:00:02'', max_avg_ms => 4.5, target => ''it''''s'');',
    'random reads by 1, 2, 4 ... processes within the latency bound; names are quoted');
SELECT is(ranread_internal.ranread_advise_measure_sql('commit test', NULL, '1s', 10),
    'SELECT * FROM ranread_commit_test(duration => ''00:00:01'');',
    'the commit test on pg_wal');

SELECT * FROM finish();
ROLLBACK;
