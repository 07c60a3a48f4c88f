-- 1.2, the two paths side by side (docs/server-path.md): the
-- same reads on the device path (O_DIRECT: what the storage gives) and on
-- the server path (through shared buffers and the page cache: what
-- PostgreSQL gets), one after the other, alternated, at each prefetch
-- distance asked for, and per distance the two figures and their ratio.
-- The server path at effective_io_concurrency N has up to N + 1 reads in
-- flight per process, so its device figure is the device path's at queue
-- depth N + 1: what the storage gives at the depth PostgreSQL asked for.

-- ranread_paths' own arguments, before any batch runs; the workload's are
-- checked by the spec reader (ranread_spec_check) on both paths.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_paths_check(
    effective_io_concurrency integer[], rounds integer, device jsonb, server jsonb)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn   constant text := 'ranread_paths';
    eic  constant text := 'effective_io_concurrency is an array of prefetch distances to compare, 1 to 16 of them, each 0 to 1000, such as ''{0,1,8,32}''.';
    bad  ranread_internal.ranread_check;
BEGIN
    bad := ranread_internal.ranread_first_failed(ARRAY[
        (effective_io_concurrency IS NULL, 'null_value_not_allowed',
         format('effective_io_concurrency of %s must not be NULL', fn), eic),
        (array_ndims(effective_io_concurrency) > 1, 'invalid_parameter_value',
         format('effective_io_concurrency of %s must be a one-dimensional array, not %s', fn, effective_io_concurrency), eic),
        (cardinality(effective_io_concurrency) NOT BETWEEN 1 AND 16, 'invalid_parameter_value',
         format('effective_io_concurrency of %s must hold 1 to 16 values, not %s', fn, cardinality(effective_io_concurrency)), eic),
        ((SELECT bool_or(e IS NULL OR e NOT BETWEEN 0 AND 1000) FROM unnest(effective_io_concurrency) e), 'invalid_parameter_value',
         format('effective_io_concurrency of %s must hold values from 0 to 1000, not %s', fn, effective_io_concurrency), eic),
        ((SELECT count(DISTINCT e) <> count(*) FROM unnest(effective_io_concurrency) e), 'invalid_parameter_value',
         format('effective_io_concurrency of %s holds a value twice: %s', fn, effective_io_concurrency), eic),
        (rounds IS NULL, 'null_value_not_allowed', format('rounds of %s must not be NULL', fn),
         'rounds is how many times each pair of batches runs, alternating which path goes first: 1 to 10.'),
        (rounds NOT BETWEEN 1 AND 10, 'invalid_parameter_value',
         format('rounds of %s must be between 1 and 10, not %s', fn, rounds),
         'rounds is how many times each pair of batches runs, alternating which path goes first: 1 to 10.')
        ]::ranread_internal.ranread_check[]);
    IF bad.failed THEN
        RAISE EXCEPTION USING ERRCODE = bad.errcode, MESSAGE = bad.message, HINT = bad.hint;
    END IF;
    PERFORM ranread_internal.ranread_spec_check(device, true);
    PERFORM ranread_internal.ranread_spec_check(server, true);
END
$$;

-- One batch of a call that runs several (ranread_paths,
-- ranread_profile_postgres), its own NOTICEs quieted (the call says what
-- each did; a WARNING, such as a cache's, still reaches the caller): its
-- batch id.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_paths_step(spec jsonb)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    quiet text := current_setting('client_min_messages');
    b     bigint;
BEGIN
    PERFORM set_config('client_min_messages', 'warning', true);
    SELECT g.batch INTO b FROM @extschema@.ranread_run_step(spec) g WHERE g.grp = 0;
    PERFORM set_config('client_min_messages', quiet, true);
    RETURN b;
END
$$;

-- ranread_paths' rows from its batches: each batch's prefetch distance, path
-- (true: server) and id, in the order they ran; the distances as asked and
-- the pattern, for the words.  Per distance, each path's figures over its
-- rounds (IOPS their mean, average latency weighted by reads, p99 from their
-- merged histograms, the caches' share of the server's reads) and the
-- server's IOPS in % of the device's.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_paths_rows(
    es integer[], servers boolean[], bs bigint[], distances integer[], pattern text)
RETURNS TABLE (
    prefetch           integer,
    device_queue_depth integer,
    device_iops        bigint,
    server_iops        bigint,
    server_pct         numeric,
    device_avg_ms      numeric,
    server_avg_ms      numeric,
    device_p99_ms      numeric,
    server_p99_ms      numeric,
    server_cache_pct   numeric,
    device_batches     bigint[],
    server_batches     bigint[],
    says               text,
    status             text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH run AS (
        SELECT u.e, u.server, x.batch, x.iops, x.avg_ms, x.reads, x.histogram, x.status,
               coalesce(x.shared_hits, 0) + coalesce(x.page_cache_hits, 0) AS cached
          FROM unnest($1, $2, $3) AS u(e, server, batch)
          JOIN @extschema@.ranread_batches x ON x.batch = u.batch
    ), per AS (
        SELECT run.e, run.server, avg(run.iops) AS iops,
               sum(run.avg_ms * run.reads) / nullif(sum(run.reads), 0) AS avg_ms,
               @extschema@.ranread_hist_percentile(@extschema@.ranread_hist_merge(run.histogram), 99) AS p99_ms,
               100.0 * sum(run.cached) / nullif(sum(run.reads), 0) AS cache_pct,
               array_agg(run.batch ORDER BY run.batch) AS batches,
               bool_and(run.status = 'completed') AS completed
          FROM run GROUP BY run.e, run.server
    )
    SELECT d.e, least(d.e + 1, 1024),
           ranread_internal.ranread_round(d.iops, 0)::bigint, ranread_internal.ranread_round(s.iops, 0)::bigint,
           ranread_internal.ranread_round(100 * s.iops / nullif(d.iops, 0), 1),
           ranread_internal.ranread_round(d.avg_ms, 3), ranread_internal.ranread_round(s.avg_ms, 3),
           ranread_internal.ranread_round(d.p99_ms, 3), ranread_internal.ranread_round(s.p99_ms, 3),
           ranread_internal.ranread_round(s.cache_pct, 1),
           d.batches, s.batches,
           CASE WHEN NOT (d.completed AND s.completed)
                THEN 'not every batch completed: no comparison'
                WHEN s.cache_pct IS NULL OR NOT d.iops > 0
                THEN 'a path measured no reads: no comparison'
                WHEN s.cache_pct >= 50
                THEN format('the server path''s reads came from caches (%s%%): its figures are memory''s, not the storage''s; read a larger target',
                            round(s.cache_pct::numeric, 1))
                ELSE format('PostgreSQL gets %s%% of this device''s %s-read IOPS at QD%s%s',
                            round((100 * s.iops / nullif(d.iops, 0))::numeric), $5, least(d.e + 1, 1024),
                            CASE WHEN d.e = 0 THEN ' (no prefetch)'
                                 ELSE format(', prefetching %s block%s ahead (effective_io_concurrency = %s)',
                                             d.e, CASE WHEN d.e = 1 THEN '' ELSE 's' END, d.e) END) END,
           CASE WHEN NOT (d.completed AND s.completed) THEN 'incomplete'
                WHEN s.cache_pct IS NULL OR NOT d.iops > 0 THEN 'no reads'
                WHEN s.cache_pct >= 50 THEN 'from cache'
                ELSE 'compared' END
      FROM per d JOIN per s ON s.e = d.e AND s.server AND NOT d.server
     ORDER BY array_position($4, d.e)
$$;

-- The comparison: for each prefetch distance N, rounds pairs of batches
-- (device at queue depth N + 1, server at effective_io_concurrency N), the
-- device first in odd rounds and the server first in even ones, each pair
-- right after the other; then per N the figures of each path over its
-- rounds (IOPS their mean, latency from their merged histograms) and the
-- server's IOPS in % of the device's, in a row that fits a screen, and
-- what they say in a NOTICE beside it, with the averages and the batches.  Needs the read committed isolation
-- level: the batches are recorded by their workers while it runs.
CREATE OR REPLACE FUNCTION @extschema@.ranread_paths(
    @options(effective_io_concurrency[]='{0,1,2,4,8,16,32}', processes=1, target, duration='5s', pattern),
    rounds     integer  DEFAULT 2,
    @options(warmup='1s'))
    @skip(rest: both paths read the same 8 kB blocks, one path after the other, so that they compare: the rest of a workload is ranread_run's)
RETURNS TABLE (
    prefetch         integer,
    device_iops      bigint,
    server_iops      bigint,
    server_pct       numeric,
    device_p99_ms    numeric,
    server_p99_ms    numeric,
    server_cache_pct numeric,
    status           text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn      constant text := 'ranread_paths';
    base    jsonb;
    dev     jsonb;
    srv     jsonb;
    e       integer;
    b       bigint;
    es      integer[] := '{}';   -- each batch's prefetch distance,
    servers boolean[] := '{}';   -- ... its path (true: server),
    bs      bigint[] := '{}';    -- ... and its id
    pr      record;
BEGIN
    PERFORM ranread_internal.ranread_primary_only(fn);
    PERFORM ranread_internal.ranread_require_read_committed(fn,
        'Its batches are recorded by their workers while it runs, which a repeatable read snapshot cannot see; run it outside an explicit transaction.');
    base := jsonb_build_object('caller', fn, 'target', target, 'duration', duration, 'warmup', warmup);
    dev := base || jsonb_build_object('groups', jsonb_build_array(jsonb_build_object(
               'processes', processes, 'pattern', pattern, 'queue_depth', 1)));
    srv := base || jsonb_build_object('path', 'server', 'groups', jsonb_build_array(jsonb_build_object(
               'processes', processes, 'pattern', pattern)));
    PERFORM ranread_internal.ranread_paths_check(effective_io_concurrency, rounds, dev, srv);

    FOR r IN 1 .. rounds LOOP
        FOREACH e IN ARRAY effective_io_concurrency LOOP
            FOR k IN 0 .. 1 LOOP
                -- odd rounds: the device first; even rounds: the server first
                IF (k = 0) = (r % 2 = 1) THEN
                    b := ranread_internal.ranread_paths_step(
                             jsonb_set(dev, '{groups,0,queue_depth}', to_jsonb(least(e + 1, 1024))));
                    servers := servers || false;
                ELSE
                    b := ranread_internal.ranread_paths_step(srv || jsonb_build_object('effective_io_concurrency', e));
                    servers := servers || true;
                END IF;
                es := es || e;
                bs := bs || b;
                RAISE NOTICE '%', (SELECT format('ranread_paths round %s, effective_io_concurrency %s: %s path, batch %s: %s IOPS, average %s ms%s%s',
                                                  r, e, coalesce(x.path, 'device'), x.batch, round(x.iops::numeric),
                                                  round(x.avg_ms::numeric, 3),
                                                  CASE WHEN x.path = 'server'
                                                       THEN format(', %s%% from caches', round(x.cache_pct::numeric, 1)) ELSE '' END,
                                                  CASE WHEN x.status <> 'completed' THEN ', ' || x.status ELSE '' END)
                                     FROM @extschema@.ranread_batches x WHERE x.batch = b);
            END LOOP;
        END LOOP;
    END LOOP;

    -- a row a screen wide; the sentence, the averages and the batches in
    -- a NOTICE beside it
    FOR pr IN SELECT * FROM ranread_internal.ranread_paths_rows(es, servers, bs, effective_io_concurrency, pattern) LOOP
        RAISE NOTICE '%', format('ranread_paths, prefetch %s: %s (average %s ms on the device path at queue depth %s, %s ms on the server path; batches %s and %s)',
                                 pr.prefetch, pr.says, coalesce(pr.device_avg_ms::text, '(not measured)'), pr.device_queue_depth,
                                 coalesce(pr.server_avg_ms::text, '(not measured)'),
                                 array_to_string(pr.device_batches, ', '), array_to_string(pr.server_batches, ', '));
        prefetch := pr.prefetch;
        device_iops := pr.device_iops;
        server_iops := pr.server_iops;
        server_pct := pr.server_pct;
        device_p99_ms := pr.device_p99_ms;
        server_p99_ms := pr.server_p99_ms;
        server_cache_pct := pr.server_cache_pct;
        status := pr.status;
        RETURN NEXT;
    END LOOP;
END
$$;
