-- 1.2, a PostgreSQL-shaped profile (docs/server-path.md, "What a busy server
-- does to its storage"): what a busy server's processes do to its storage at once,
-- in three phases of one batch each, so that the backends' read tail can
-- be read alone, while commits run, and while a checkpoint runs too:
--   backends      random 8 kB reads (the device path, or the server path)
--   wal writer    sequential 8 kB writes of one process, each made durable
--                 as wal_sync_method makes a commit durable (the commit path)
--   checkpointer  random 8 kB writes of one process, paced as a spread
--                 checkpoint paces them
-- The rates default to this server's own, from its statistics, and say
-- where they come from (ranread_profile_postgres_rates).

-- The rates of the profile where the call gives none, from this server:
--  - commits: its WAL flushes per second since its statistics were reset
--    (pg_stat_wal: wal_sync over the seconds since stats_reset);
--  - checkpoint writes: the buffers its checkpoints wrote per second of
--    their write phase (pg_stat_bgwriter: buffers_checkpoint over
--    checkpoint_write_time); before any checkpoint wrote, a checkpoint of
--    half of shared_buffers spread over checkpoint_completion_target x
--    checkpoint_timeout, as PostgreSQL spreads one.
-- At least 1 each; source says which.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_postgres_rates(
    OUT commits_per_s integer, OUT checkpoint_pages_per_s integer, OUT source text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT greatest(1, round(w.syncs / greatest(w.secs, 1)))::integer,
           greatest(1, round(CASE WHEN c.written > 0 AND c.write_ms > 0 THEN c.written / (c.write_ms / 1000)
                                  ELSE c.half / c.spread END))::integer,
           format('commits: %s WAL flushes in the %s s since this server''s statistics were reset (pg_stat_wal); checkpoint writes: %s',
                  w.syncs, round(w.secs),
                  CASE WHEN c.written > 0 AND c.write_ms > 0
                       THEN format('%s buffers its checkpoints wrote in %s s of writing (pg_stat_bgwriter)', c.written, round(c.write_ms / 1000))
                       ELSE format('no checkpoint has written yet: half of shared_buffers (%s pages) spread over checkpoint_completion_target x checkpoint_timeout (%s s)',
                                   c.half, round(c.spread)) END)
      FROM (SELECT s.wal_sync::float8 AS syncs,
                   extract(epoch FROM now() - coalesce(s.stats_reset, pg_postmaster_start_time()))::float8 AS secs
              FROM pg_stat_wal s) w,
           (SELECT b.buffers_checkpoint::float8 AS written, b.checkpoint_write_time AS write_ms,
                   (SELECT setting::float8 FROM pg_settings WHERE name = 'shared_buffers') / 2 AS half,
                   (SELECT setting::float8 FROM pg_settings WHERE name = 'checkpoint_timeout')
                   * current_setting('checkpoint_completion_target')::float8 AS spread
              FROM pg_stat_bgwriter b) c
$$;

-- The profile's arguments, before any batch runs; the workload's are checked
-- by the spec reader (ranread_spec_check) on every phase.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_postgres_check(
    readers integer, commits_per_s integer, checkpoint_pages_per_s integer, phases jsonb[])
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn  constant text := 'ranread_profile_postgres';
    bad ranread_internal.ranread_check;
    p   jsonb;
BEGIN
    bad := ranread_internal.ranread_first_failed(ARRAY[
        (readers IS NULL OR readers < 1, 'invalid_parameter_value',
         format('readers of %s must be at least 1, not %s', fn, coalesce(readers::text, 'NULL')),
         'readers is how many backends read at once, such as 8.'),
        (commits_per_s < 1, 'invalid_parameter_value',
         format('commits_per_s of %s must be at least 1, not %s', fn, commits_per_s),
         'commits_per_s is how many commits the WAL writer makes durable per second; NULL takes this server''s own rate.'),
        (checkpoint_pages_per_s < 1, 'invalid_parameter_value',
         format('checkpoint_pages_per_s of %s must be at least 1, not %s', fn, checkpoint_pages_per_s),
         'checkpoint_pages_per_s is how many 8 kB pages the checkpointer writes per second; NULL takes this server''s own rate.')
        ]::ranread_internal.ranread_check[]);
    IF bad.failed THEN
        RAISE EXCEPTION USING ERRCODE = bad.errcode, MESSAGE = bad.message, HINT = bad.hint;
    END IF;
    FOREACH p IN ARRAY phases LOOP
        PERFORM ranread_internal.ranread_spec_check(p, true);
    END LOOP;
END
$$;

-- A busy PostgreSQL server's I/O, in three phases of `duration` each: the
-- backends reading alone, then with the WAL writer's commits, then with a
-- checkpoint too.  One row per group of each phase, with its figures; the
-- backends' rows say how their read tail (p99) compares with theirs alone.
-- The WAL's writes go to wal_target, the checkpoint's to checkpoint_target
-- (both the target by default: a target read on the server path needs
-- others, since a device-path write would leave stale pages for it).
CREATE OR REPLACE FUNCTION @extschema@.ranread_profile_postgres(
    @options(target, duration='10s'),
    readers                integer  DEFAULT 8,
    read_path              text     DEFAULT 'device',
    commits_per_s          integer  DEFAULT NULL,
    checkpoint_pages_per_s integer  DEFAULT NULL,
    wal_target             name     DEFAULT NULL,
    checkpoint_target      name     DEFAULT NULL,
    wal_sync               text     DEFAULT NULL)
    @skip(rest: its three workloads are a busy server's, set by its own arguments (readers, read_path, commits_per_s, checkpoint_pages_per_s, wal_sync))
RETURNS TABLE (
    phase        integer,
    grp          text,
    processes    integer,
    iops         bigint,
    avg_ms       numeric,
    p99_ms       numeric,
    p999_ms      numeric,
    batch        bigint,
    p99_vs_alone numeric,
    status       text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn       constant text := 'ranread_profile_postgres';
    rates    record;
    commits  integer;
    ckpt     integer;
    backends jsonb;
    wal      jsonb;
    chk      jsonb;
    phases   jsonb[];
    names    constant text[] := ARRAY['backends', 'backends + commits', 'backends + commits + checkpoint'];
    batches  bigint[] := '{}';
    alone    float8;
    r        record;
BEGIN
    PERFORM ranread_internal.ranread_primary_only(fn);
    PERFORM ranread_internal.ranread_require(fn, 'duration', duration,
        'duration is each phase''s length, such as ''10s'' (the default).');
    PERFORM ranread_internal.ranread_require(fn, 'readers', readers,
        'readers is how many backends read, 1 or more (the default is 8).');
    PERFORM ranread_internal.ranread_require_read_committed(fn,
        'Its batches are recorded by their workers while it runs, which a repeatable read snapshot cannot see; run it outside an explicit transaction.');
    rates := ranread_internal.ranread_profile_postgres_rates();
    commits := coalesce(commits_per_s, rates.commits_per_s);
    ckpt := coalesce(checkpoint_pages_per_s, rates.checkpoint_pages_per_s);
    backends := jsonb_build_object('label', 'backends', 'processes', readers, 'path', read_path,
                                   'target', target);
    wal := jsonb_build_object('label', 'wal writer', 'processes', 1, 'write_pct', 100, 'pattern', 'sequential',
                              'sync', coalesce(wal_sync, CASE current_setting('wal_sync_method')
                                                         WHEN 'fsync_writethrough' THEN 'fsync'
                                                         ELSE current_setting('wal_sync_method') END),
                              'rate_iops', commits, 'target', coalesce(wal_target, target));
    chk := jsonb_build_object('label', 'checkpointer', 'processes', 1, 'write_pct', 100,
                              'rate_iops', ckpt, 'target', coalesce(checkpoint_target, target));
    phases := ARRAY[jsonb_build_array(backends), jsonb_build_array(backends, wal), jsonb_build_array(backends, wal, chk)];
    FOR i IN 1 .. 3 LOOP
        phases[i] := jsonb_build_object('caller', fn, 'duration', duration, 'groups', phases[i]);
    END LOOP;
    PERFORM ranread_internal.ranread_profile_postgres_check(readers, commits_per_s, checkpoint_pages_per_s, phases);
    RAISE NOTICE '%: % backends reading, commits at % per second, checkpoint writes at % pages per second (%)',
        fn, readers, commits, ckpt,
        concat_ws('; ', CASE WHEN commits_per_s IS NULL OR checkpoint_pages_per_s IS NULL THEN rates.source END,
                  CASE WHEN commits_per_s IS NOT NULL THEN 'commits as given' END,
                  CASE WHEN checkpoint_pages_per_s IS NOT NULL THEN 'checkpoint writes as given' END);

    FOR i IN 1 .. 3 LOOP
        batches := batches || ranread_internal.ranread_paths_step(phases[i]);
    END LOOP;

    SELECT g.read_p99_ms INTO alone FROM @extschema@.ranread_groups g WHERE g.batch = batches[1] AND g.label = 'backends';
    -- a row a screen wide per group of each phase (what runs in a phase is
    -- its groups); what each says in a NOTICE beside it
    FOR r IN
        SELECT n, g.label, g.processes, g.iops, g.avg_ms, g.p99_ms, g.p999_ms, g.batch, g.read_p99_ms,
               b.status, b.message
          FROM generate_subscripts(batches, 1) n
          JOIN @extschema@.ranread_groups g ON g.batch = batches[n]
          JOIN @extschema@.ranread_batches b ON b.batch = g.batch
         ORDER BY n, g.grp
    LOOP
        phase := r.n;
        grp := r.label;
        processes := r.processes;
        iops := ranread_internal.ranread_round(r.iops, 0)::bigint;
        avg_ms := ranread_internal.ranread_round(r.avg_ms, 3);
        p99_ms := ranread_internal.ranread_round(r.p99_ms, 3);
        p999_ms := ranread_internal.ranread_round(r.p999_ms, 3);
        batch := r.batch;
        p99_vs_alone := CASE WHEN r.label = 'backends' AND alone > 0
                             THEN ranread_internal.ranread_round(r.read_p99_ms / alone, 2) END;
        status := r.status;
        RAISE NOTICE '%', format('ranread_profile_postgres, phase %s (%s), %s: %s', r.n, names[r.n], r.label,
            CASE WHEN r.status <> 'completed' THEN format('the batch ended %s: %s', r.status, coalesce(r.message, 'no message'))
                 WHEN r.label = 'backends' AND r.n = 1
                 THEN format('the backends'' read p99 alone is %s ms', coalesce(round(r.read_p99_ms::numeric, 3)::text, '(not measured)'))
                 WHEN r.label = 'backends' AND alone > 0
                 THEN format('the backends'' read p99 is %sx what it is alone (%s ms against %s ms) while %s run',
                             round((r.read_p99_ms / alone)::numeric, 2), round(r.read_p99_ms::numeric, 3),
                             round(alone::numeric, 3), CASE r.n WHEN 2 THEN 'commits' ELSE 'commits and a checkpoint' END)
                 WHEN r.label = 'wal writer'
                 THEN format('%s commits per second made durable (%s asked), %s ms each on average',
                             round(r.iops::numeric), commits, coalesce(round(r.avg_ms::numeric, 3)::text, '(not measured)'))
                 WHEN r.label = 'checkpointer'
                 THEN format('%s pages per second written (%s asked)', round(r.iops::numeric), ckpt)
                 ELSE 'no figures' END);
        RETURN NEXT;
    END LOOP;
END
$$;
