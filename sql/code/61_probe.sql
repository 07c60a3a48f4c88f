-- 1.1, keeping watch (docs/keeping-watch.md, "Keeping watch"): the probe, its
-- cap, its target and its schedule.
--
-- A probe is one small paced batch on the one workload path: a spec handed
-- to ranread_run_step, one process at queue depth 1, random 8 KiB reads,
-- read-only, paced at rate_iops, at a low I/O priority (io_priority), on
-- the tablespace's own probe target.  Its cost is capped by settings only a
-- superuser sets (ranread.probe_max_iops, ranread.probe_max_seconds:
-- src/watch/probe.c), so a monitoring role granted the probe cannot make it
-- heavier; and so is the share of time probes hold the cluster's one batch
-- (ranread.probe_max_share of ranread.probe_share_window: the batches on
-- the probe targets of this database), so that back-to-back probes cannot
-- keep it from other work.  Its batch is the role's that called the probe
-- (ranread_step_as): started_by, the claim's errors and ranread_stop's rule
-- name that role.  A probe never makes its target: ranread_probe_setup
-- does, once (256 MB by default), and a probe without one is an error that
-- says so.
--
-- The contract with what is built on ranread_probes: one row per probe that
-- completed, inserted by the probe once its batch's row in ranread_batches
-- is final ('completed', committed by its recorder); a probe that failed,
-- was stopped or cancelled, or whose history was not written inserts no row
-- and ends in an error (its batch stays in ranread_batches).
--
-- The schedule is pg_cron's (an optional dependency, as dblink is none:
-- ranread installs and probes by hand without it; every call of pg_cron is
-- dynamic SQL, made only once pg_cron is known to be there).

COMMENT ON TABLE @extschema@.ranread_probes IS
    'ranread probes: the small paced batches that keep watch on a tablespace, one row per probe';

-- The target a tablespace's probes read: ranread_probe_<tablespace>, or
-- for a name too long for that, ranread_probe_ and 16 hex digits of its md5
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_target(tablespace name)
RETURNS name
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.octet_length($1) <= 49 THEN ('ranread_probe_' || $1)::name
                ELSE ('ranread_probe_' || pg_catalog.substr(pg_catalog.md5($1), 1, 16))::name END
$$;

-- The pg_cron job of a tablespace's probes (its name says ranread and the
-- tablespace)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_job(tablespace name)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT 'ranread probe ' || $1
$$;

-- A probe's batch, run as the role that called the probe rather than as
-- the extension's owner the probe runs as (C, src/run/run.c); only a superuser
-- calls it
CREATE OR REPLACE FUNCTION ranread_internal.ranread_step_as(spec jsonb, role pg_catalog.regrole)
RETURNS SETOF ranread_internal.ranread_step_result
AS 'MODULE_PATHNAME', 'ranread_run_step_as'
LANGUAGE C CALLED ON NULL INPUT VOLATILE ROWS 2;

-- The cap: rate_iops and duration within ranread.probe_max_iops and
-- ranread.probe_max_seconds, or an error naming the argument, the value
-- and the cap (C, so that the settings exist: src/watch/probe.c)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_check(fn text, rate_iops integer, duration interval)
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_probe_check'
LANGUAGE C CALLED ON NULL INPUT STABLE;

-- The caps as ranread_help('ranread_probe') shows them: one row per
-- capped argument, from the table the check reads (src/probe.c)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_caps(
    OUT argument text, OUT allowed text, OUT setting text, OUT cap integer)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ranread_probe_caps'
LANGUAGE C STABLE;

-- The share of time a probe of duration may take (after
-- ranread_probe_check, which loads the settings): probes hold the
-- cluster's one batch at most ranread.probe_max_share of
-- ranread.probe_share_window, counting every batch on a probe target of
-- this database (ranread_probe_target) over the window before now, with
-- the one asked for; past that, an error that says how much they took.
-- ahead: the probe is one of a schedule, whose duration alone must fit.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_share(fn text, duration interval, ahead boolean DEFAULT false)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    share  constant integer := current_setting('ranread.probe_max_share')::integer;
    win    constant float8 := extract(epoch FROM current_setting('ranread.probe_share_window')::interval)::float8;
    cap    constant float8 := share * win / 100;
    asked  constant float8 := extract(epoch FROM duration)::float8;
    now_   constant timestamptz := clock_timestamp();
    used   float8;
BEGIN
    IF asked > cap THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('duration of %s must be at most %s s, ranread.probe_max_share (%s%%) of ranread.probe_share_window (%s s), not %s',
                             fn, round(cap::numeric, 1), share, win, duration),
            HINT = 'Probes leave the cluster''s one batch to other work most of the time; a superuser may raise ranread.probe_max_share.';
    END IF;
    IF ahead THEN
        RETURN;
    END IF;
    SELECT coalesce(sum(extract(epoch FROM least(coalesce(b.finished_at, now_), now_)
                                           - greatest(b.run_at, now_ - make_interval(secs => win)))), 0)
      INTO used
      FROM @extschema@.ranread_batches b
     WHERE b.target LIKE 'ranread\_probe\_%'
       AND coalesce(b.finished_at, now_) > now_ - make_interval(secs => win)
       AND b.run_at < now_;
    IF used + asked > cap THEN
        RAISE EXCEPTION USING
            ERRCODE = 'object_not_in_prerequisite_state',
            MESSAGE = format('%s would take probes past ranread.probe_max_share (%s%%) of the last %s s',
                             fn, share, win),
            DETAIL = format('The batches on the probe targets took %s s of the last %s s; this probe asks for %s s more, and probes may take %s s.',
                            round(used::numeric, 1), win, round(asked::numeric, 1), round(cap::numeric, 1)),
            HINT = 'Probes leave the cluster''s one batch to other work most of the time: probe less often or for less long; a superuser may raise ranread.probe_max_share or ranread.probe_share_window.';
    END IF;
END
$$;

-- The tablespace of fn exists, or an error that names it and lists those
-- that do
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_tablespace(fn text, tablespace name)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF tablespace IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'null_value_not_allowed',
            MESSAGE = format('tablespace of %s must not be null', fn),
            HINT = 'Name the tablespace to watch, such as ''pg_default''.';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_tablespace s WHERE s.spcname OPERATOR(pg_catalog.=) tablespace) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'undefined_object',
            MESSAGE = format('tablespace "%s" of %s does not exist', tablespace, fn),
            HINT = format('The tablespaces that can hold a probe target are %s.',
                          (SELECT string_agg(quote_literal(s.spcname), ', ' ORDER BY s.spcname)
                             FROM pg_catalog.pg_tablespace s WHERE s.spcname OPERATOR(pg_catalog.<>) 'pg_global'));
    END IF;
END
$$;

-- The tablespace exists and its probe target is there: returns the target,
-- or an error that says how to make it
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_ready(fn text, tablespace name)
RETURNS name
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t      name;
    now_in name;
BEGIN
    PERFORM ranread_internal.ranread_probe_tablespace(fn, tablespace);
    t := ranread_internal.ranread_probe_target(tablespace);
    SELECT x.tablespace INTO now_in FROM @extschema@.ranread_targets x WHERE x.target OPERATOR(pg_catalog.=) t;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'undefined_object',
            MESSAGE = format('tablespace "%s" has no probe target', tablespace),
            DETAIL = format('A probe reads a small target of its own, "%s", which ranread_probe_setup makes once; a probe never makes one itself.', t),
            HINT = format('SELECT ranread_probe_setup(%L); makes it (256 MB by default; its size argument chooses).', tablespace);
    END IF;
    IF now_in IS DISTINCT FROM tablespace THEN
        RAISE EXCEPTION USING
            ERRCODE = 'object_not_in_prerequisite_state',
            MESSAGE = format('the probe target "%s" of tablespace "%s" is in tablespace "%s"', t, tablespace, now_in),
            HINT = format('SELECT ranread_probe_setup(%L); makes it again in its tablespace.', tablespace);
    END IF;
    RETURN t;
END
$$;

-- The probe target of a tablespace, made (or made again) by ranread_setup:
-- small, because a probe reads it on a production server.  Explicit, so
-- that no probe fills a tablespace by surprise.
CREATE OR REPLACE FUNCTION @extschema@.ranread_probe_setup(
    tablespace name DEFAULT 'pg_default',
    size       text DEFAULT '256MB')
RETURNS @extschema@.ranread_setup_result
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bytes bigint;
BEGIN
    PERFORM ranread_internal.ranread_require('ranread_probe_setup', 'tablespace', tablespace,
                                             'Name the tablespace to watch, such as ''pg_default''.');
    PERFORM ranread_internal.ranread_require('ranread_probe_setup', 'size', size,
                                             'Give a size such as ''256MB''; the default is ''256MB''.');
    -- errors that name this function and its argument (ranread_setup's
    -- would name ranread_setup)
    BEGIN
        bytes := pg_catalog.pg_size_bytes(size);
    EXCEPTION WHEN data_exception THEN
        bytes := NULL;
    END;
    IF bytes IS NULL OR bytes < 1048576 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('size of ranread_probe_setup must be a size of at least 1 MB, not %L', size),
            HINT = 'Give a size as pg_size_bytes understands it, such as ''256MB'' (the default): a probe target is small, as a probe reads it on a production server.';
    END IF;
    PERFORM ranread_internal.ranread_probe_tablespace('ranread_probe_setup', tablespace);
    RETURN @extschema@.ranread_setup(size, tablespace, ranread_internal.ranread_probe_target(tablespace));
END
$$;

-- Drops a tablespace's probe target, which ranread_probe_setup made: its
-- probes fail until it is made again.  The way a role that is not a
-- superuser drops one (ranread_purge refuses it the probe targets), with
-- ranread_purge's rule for the tablespace (src/target/purge.c).
CREATE OR REPLACE FUNCTION @extschema@.ranread_probe_purge(tablespace name DEFAULT 'pg_default')
RETURNS boolean
AS 'MODULE_PATHNAME', 'ranread_probe_purge'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- A probe's io_priority: a probe is light, so not 'realtime' (which also
-- needs CAP_SYS_NICE and would fail only when the worker starts, leaving a
-- failed batch at every scheduled run); the rest is the workload's check
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_priority(fn text, io_priority text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF io_priority OPERATOR(pg_catalog.~*) '^\s*realtime' THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('io_priority of %s must not be realtime, not %L', fn, io_priority),
            DETAIL = 'A probe runs beside production work at a low I/O priority; the realtime class would put it before that work.',
            HINT = 'io_priority of a probe is ''idle'' or ''best-effort:N'' with N from 0 (highest) to 7; the default is ''best-effort:7''.';
    END IF;
END
$$;

-- Does this session run the pg_cron job of that name, which caller
-- scheduled in this database?  When pg_cron logs its runs
-- (cron.log_run), a run of that job whose backend is this one; when it
-- does not, that caller has such a job.  Without pg_cron, no.  As the
-- probe's owner, who sees every role's jobs.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_cron_run(job text, caller pg_catalog.regrole)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    yes boolean;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'pg_cron') THEN
        RETURN false;
    END IF;
    IF coalesce(pg_catalog.current_setting('cron.log_run', true), 'on') OPERATOR(pg_catalog.=) 'off' THEN
        EXECUTE 'SELECT EXISTS (SELECT FROM cron.job j WHERE j.jobname OPERATOR(pg_catalog.=) $1
                                  AND j.username OPERATOR(pg_catalog.=) $2 AND j.database OPERATOR(pg_catalog.=) pg_catalog.current_database())'
           INTO yes USING job, (SELECT r.rolname::text FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) caller);
    ELSE
        EXECUTE 'SELECT EXISTS (SELECT FROM cron.job j JOIN cron.job_run_details d ON d.jobid OPERATOR(pg_catalog.=) j.jobid
                                 WHERE j.jobname OPERATOR(pg_catalog.=) $1 AND j.username OPERATOR(pg_catalog.=) $2
                                   AND j.database OPERATOR(pg_catalog.=) pg_catalog.current_database()
                                   AND d.job_pid OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid()
                                   AND d.status NOT IN (''succeeded'', ''failed''))'
           INTO yes USING job, (SELECT r.rolname::text FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) caller);
    END IF;
    RETURN yes;
END
$$;

-- The probe (ranread_probe is C, src/workload/forward.c, which hands its workload,
-- duration, rate_iops and io_priority, on as spec, and caller, the role
-- that called it): the cap and the share of time, the target, one batch,
-- then its row in ranread_probes once the batch's row is final.  It runs
-- as the extension's owner (SECURITY DEFINER), so that a role may probe
-- without EXECUTE on ranread_run_step (which has no cap) nor INSERT on
-- ranread_probes (where a row of its own making would be judged as a
-- probe): the cap holds for a role granted 'probe', and the row recorded
-- is the batch just run, of this tablespace's probe target, at the time
-- its batch ran.  The batch itself is the caller's (ranread_step_as): its
-- started_by, and whom ranread_stop lets stop it.  job is the pg_cron job
-- that runs the probe: NULL, or its tablespace's job
-- (ranread_probe_job), recorded only when this session runs that job of
-- the caller's (ranread_probe_cron_run), so that no probe by hand passes
-- for a scheduled one.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe(
    tablespace name, duration interval, rate_iops integer, io_priority text, job text, spec jsonb,
    caller pg_catalog.regrole)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t  name;
    r  ranread_internal.ranread_step_result;
    b  record;
    j  text := job;
BEGIN
    PERFORM ranread_internal.ranread_primary_only('ranread_probe');
    PERFORM ranread_internal.ranread_require_read_committed('ranread_probe',
        'Its row in ranread_probes has its batch''s time, from the row its worker records while it runs, which a repeatable read snapshot cannot see; run it outside an explicit transaction.');
    PERFORM ranread_internal.ranread_probe_check('ranread_probe', rate_iops, duration);
    PERFORM ranread_internal.ranread_probe_priority('ranread_probe', io_priority);
    t := ranread_internal.ranread_probe_ready('ranread_probe', tablespace);
    IF job IS NOT NULL AND job IS DISTINCT FROM ranread_internal.ranread_probe_job(tablespace) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('job of ranread_probe must be NULL or %L, not %L', ranread_internal.ranread_probe_job(tablespace),
                             CASE WHEN pg_catalog.octet_length(job) > 64 THEN pg_catalog.left(job, 64) || '...' ELSE job END),
            HINT = 'job names the pg_cron job of the tablespace''s schedule, which ranread_probe_schedule passes; NULL for a probe by hand.';
    END IF;
    PERFORM ranread_internal.ranread_probe_share('ranread_probe', duration);

    SELECT * INTO r
      FROM ranread_internal.ranread_step_as(ranread_internal.ranread_spec(
               jsonb_build_object('processes', 1, 'queue_depth', 1, 'block_size', 8192,
                                  'write_pct', 0, 'pattern', 'random', 'distribution', 'uniform',
                                  'region_start', 0, 'region_end', 100, 'warmup', '0',
                                  'workers', 1, 'target', t), spec), caller) g
     WHERE g.grp OPERATOR(pg_catalog.=) 0;

    -- the batch's row as its recorder committed it (read committed: each
    -- statement sees what committed before it)
    SELECT x.status, x.message, x.run_at INTO b
      FROM @extschema@.ranread_batches x WHERE x.batch OPERATOR(pg_catalog.=) r.batch;
    IF r.status IS DISTINCT FROM 'completed' OR b.status IS DISTINCT FROM 'completed' THEN
        RAISE EXCEPTION USING
            ERRCODE = CASE WHEN r.status = 'failed' OR r.status = 'completed' THEN 'io_error' ELSE 'query_canceled' END,
            MESSAGE = format('the probe of tablespace "%s" did not complete: batch %s %s', tablespace, r.batch,
                             CASE WHEN r.status = 'completed' THEN 'was not recorded' ELSE 'was ' || r.status END),
            DETAIL = coalesce(b.message, 'ranread_summary shows the batch.'),
            HINT = 'A probe that does not complete has no row in ranread_probes; its batch stays in ranread_batches.';
    END IF;
    -- the row: the batch just run (on this tablespace's probe target, read
    -- only: the spec above), at the time its recorder says it ran; never a
    -- time or batch of the caller's choosing
    IF j IS NOT NULL AND NOT ranread_internal.ranread_probe_cron_run(j, caller) THEN
        RAISE WARNING 'probe of tablespace "%" (batch %) is recorded without job %: this session does not run that pg_cron job of role %',
            tablespace, r.batch, pg_catalog.quote_literal(j), caller
            USING HINT = 'Only pg_cron''s run of the schedule records its job; a probe by hand leaves job NULL.';
        j := NULL;
    END IF;
    INSERT INTO @extschema@.ranread_probes (batch, tablespace, probed_at, job)
    VALUES (r.batch, tablespace, b.run_at, j);

    RETURN QUERY
    SELECT r.batch, r.reads,
           ranread_internal.ranread_round(r.seconds, 3)::numeric(12,3),
           ranread_internal.ranread_round(r.iops, 0)::bigint,
           ranread_internal.ranread_round(r.avg_ms, 3)::numeric(15,3),
           ranread_internal.ranread_round(r.p50_ms, 3)::numeric(15,3),
           ranread_internal.ranread_round(r.p99_ms, 3)::numeric(15,3),
           ranread_internal.ranread_round(r.max_ms, 3)::numeric(15,3),
           r.status;
END
$$;

-- A probe: a small paced read-only batch on the tablespace's probe target
-- (ranread_probe_setup), recorded in ranread_batches and ranread_probes.
-- job is the pg_cron job that runs it (ranread_probe_schedule sets it).
CREATE OR REPLACE FUNCTION @extschema@.ranread_probe(
    tablespace  name     DEFAULT 'pg_default',
    @options(duration='10s', rate_iops=200, io_priority='best-effort:7'),
    job         text     DEFAULT NULL)
    @skip(rest: a probe's workload is fixed (one process at queue depth 1, random 8 KiB reads of its tablespace's probe target, no writes), so that every probe of a tablespace compares with its baseline)
RETURNS TABLE (
    batch       bigint,
    reads       bigint,
    seconds     numeric(12,3),
    iops        bigint,
    avg_ms      numeric(15,3),
    p50_ms      numeric(15,3),
    p99_ms      numeric(15,3),
    max_ms      numeric(15,3),
    status      text)
AS 'MODULE_PATHNAME', 'ranread_forward'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- pg_cron in this database, and the role may use it; or the error that
-- says how to get it
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_cron(fn text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cron_db text;
    sock    text;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'pg_cron') THEN
        SELECT x.database_name, x.socket INTO cron_db, sock FROM ranread_internal.ranread_probe_cron_settings() x;
        RAISE EXCEPTION USING
            ERRCODE = 'feature_not_supported',
            MESSAGE = format('%s needs the extension pg_cron, which is not installed in database "%s"',
                             fn, pg_catalog.current_database()),
            DETAIL = 'pg_cron runs the probes on a schedule; ranread works without it, and ranread_probe runs by hand.',
            HINT = CASE WHEN cron_db IS NULL
                   THEN format('Install pg_cron (Debian, Ubuntu: apt install postgresql-%s-cron), set shared_preload_libraries = ''pg_cron'', cron.database_name = %L and cron.use_background_workers = on (or cron.host = %L, the server''s socket directory, for jobs of a role pg_hba.conf lets in there without a password) in postgresql.conf, restart the server, and run CREATE EXTENSION pg_cron; in this database.',
                               pg_catalog.current_setting('server_version_num')::integer / 10000,
                               pg_catalog.current_database(), coalesce(sock, '/var/run/postgresql'))
                   WHEN cron_db IS DISTINCT FROM pg_catalog.current_database()
                   THEN format('pg_cron is loaded, and keeps its jobs in database %L (cron.database_name): ALTER SYSTEM SET cron.database_name = %L; then restart the server and run CREATE EXTENSION pg_cron; in this database.',
                               cron_db, pg_catalog.current_database())
                   ELSE 'pg_cron is loaded and keeps its jobs in this database: CREATE EXTENSION pg_cron; as a superuser.' END;
    END IF;
    IF NOT pg_catalog.has_schema_privilege('cron', 'USAGE') THEN
        RAISE EXCEPTION USING
            ERRCODE = 'insufficient_privilege',
            MESSAGE = format('permission denied to use pg_cron for %s', fn),
            HINT = format('A superuser grants it: GRANT USAGE ON SCHEMA cron TO %I;', current_user);
    END IF;
END
$$;

-- pg_cron's settings as this server runs them: all NULL but port and socket
-- when pg_cron is not loaded (C, src/watch/probe_cron.c: pg_cron's settings are
-- superuser-only, and a monitoring role must still be told what is missing)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_cron_settings(
    OUT database_name text, OUT background_workers boolean, OUT host text, OUT port integer, OUT socket text)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_probe_cron_settings'
LANGUAGE C VOLATILE;

-- The connection pg_cron would make for a job of the current role, to
-- cron.host (or, with socket, to the first of unix_socket_directories),
-- made now and closed: NULL when it came up, libpq's error when not (C,
-- src/watch/probe_cron.c)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_cron_connect(socket boolean)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_probe_cron_connect'
LANGUAGE C VOLATILE;

-- Would pg_cron run a job of the current role in this database?  Or the
-- error (55000) that names the setting and gives the exact settings to
-- make: pg_cron loaded at server start (shared_preload_libraries), its
-- jobs' database (cron.database_name) this one, a role that may log in
-- (pg_cron's jobs log in as their role, a background worker's too), and
-- either background workers (cron.use_background_workers = on, with a
-- worker for the job and one for the probe's stream besides pg_cron's
-- launcher) or a connection to cron.host that comes up without a password
-- (tried now, as pg_cron would make it: pg_hba.conf, listen_addresses,
-- a .pgpass of the server's operating-system user all decide it).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_cron_runs(fn text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    s        record;
    why      text;
    why_sock text;
    workers  constant integer := pg_catalog.current_setting('max_worker_processes')::integer;
    restart  constant text := 'then restart the server (pg_cron reads its settings only at server start) and call '
                              || fn || ' again';
    bgw_hint text;
BEGIN
    s := ranread_internal.ranread_probe_cron_settings();
    IF s.database_name IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'object_not_in_prerequisite_state',
            MESSAGE = format('%s needs pg_cron loaded at server start, and shared_preload_libraries (%L) does not name it',
                             fn, pg_catalog.current_setting('shared_preload_libraries')),
            DETAIL = 'pg_cron''s jobs run only when its launcher was started with the server; without it a schedule never runs.',
            HINT = format('ALTER SYSTEM SET shared_preload_libraries = %L; %s.',
                          pg_catalog.concat_ws(',', pg_catalog.nullif(pg_catalog.current_setting('shared_preload_libraries'), ''), 'pg_cron'),
                          restart);
    END IF;
    IF s.database_name IS DISTINCT FROM pg_catalog.current_database() THEN
        RAISE EXCEPTION USING
            ERRCODE = 'object_not_in_prerequisite_state',
            MESSAGE = format('%s needs pg_cron''s jobs in this database, and cron.database_name is %L, not %L',
                             fn, s.database_name, pg_catalog.current_database()),
            DETAIL = 'pg_cron runs the jobs kept in the database cron.database_name names; a job scheduled here would never run.',
            HINT = format('ALTER SYSTEM SET cron.database_name = %L; %s.', pg_catalog.current_database(), restart);
    END IF;
    IF NOT (SELECT r.rolcanlogin FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'object_not_in_prerequisite_state',
            MESSAGE = format('%s schedules probes that run as role "%s", which may not log in (rolcanlogin)', fn, current_user),
            DETAIL = 'pg_cron''s job logs in as the role that scheduled it, in a connection or a background worker alike; every run would fail.',
            HINT = format('A superuser lets it: ALTER ROLE %I LOGIN; (or schedule as a role that may log in).', current_user);
    END IF;
    bgw_hint := format('ALTER SYSTEM SET cron.use_background_workers = on; %s: pg_cron then runs each job in a background worker, without a connection, and each run of the probe takes two of max_worker_processes (%s), one for the job and one for the probe''s stream, besides pg_cron''s launcher',
                       restart, workers);
    IF s.background_workers THEN
        IF workers < 3 THEN
            RAISE EXCEPTION USING
                ERRCODE = 'object_not_in_prerequisite_state',
                MESSAGE = format('%s needs 3 background workers with cron.use_background_workers on, and max_worker_processes is %s',
                                 fn, workers),
                DETAIL = 'pg_cron''s launcher, the job''s worker and the probe''s stream each take one.',
                HINT = format('ALTER SYSTEM SET max_worker_processes = 8; %s.', restart);
        END IF;
        RETURN;
    END IF;
    why := ranread_internal.ranread_probe_cron_connect(false);
    IF why IS NULL THEN
        RETURN;
    END IF;
    -- would the server's own socket do?  (Debian's pg_hba.conf lets the
    -- server's operating-system user in there by peer authentication)
    IF s.socket IS NOT NULL AND s.socket IS DISTINCT FROM s.host THEN
        why_sock := ranread_internal.ranread_probe_cron_connect(true);
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = 'object_not_in_prerequisite_state',
        MESSAGE = format('pg_cron could not run these probes: cron.use_background_workers is off and cron.host (%L) does not let role "%s" in without a password',
                         s.host, current_user),
        DETAIL = format('pg_cron runs each job through a connection of its own to cron.host, port %s, database %s, as the role that scheduled it, without a password; every run would end in "connection failed".  That connection, tried now: %s',
                        s.port, pg_catalog.quote_ident(pg_catalog.current_database()), why),
        HINT = CASE WHEN s.socket IS NOT NULL AND s.socket IS DISTINCT FROM s.host AND why_sock IS NULL
                    THEN format('ALTER SYSTEM SET cron.host = %L; (this server''s socket directory, where pg_hba.conf lets role "%s" in) %s.  Or %s.',
                                s.socket, current_user, restart, bgw_hint)
                    ELSE format('%s.  Or let role "%s" in from cron.host without a password: a line of pg_hba.conf (such as local all %s peer map=...) or a .pgpass file of the server''s operating-system user.',
                                bgw_hint, current_user, pg_catalog.quote_ident(current_user)) END;
END
$$;

-- The pg_cron jobs of that name in this database, every role's (as the
-- extension's owner: pg_cron shows a role its own jobs only)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_scheduled(job text)
RETURNS TABLE (jobid bigint, username text)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'pg_cron') THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE
        'SELECT j.jobid::bigint, j.username::text FROM cron.job j
          WHERE j.jobname OPERATOR(pg_catalog.=) $1 AND j.database OPERATOR(pg_catalog.=) pg_catalog.current_database()
          ORDER BY j.jobid'
        USING job;
END
$$;

-- Probes of a tablespace on a schedule: one pg_cron job, named 'ranread
-- probe TABLESPACE', run as the calling role in this database (scheduling
-- again changes it).  One schedule a tablespace: another role's job for
-- it is an error that names it (two would start their probes at once, and
-- one would fail every time).  Every argument is checked now, so that the
-- job does not fail at each run: a probe's duration alone must fit
-- ranread.probe_max_share.  Returns the job's id.
CREATE OR REPLACE FUNCTION @extschema@.ranread_probe_schedule(
    tablespace  name     DEFAULT 'pg_default',
    schedule    text     DEFAULT '*/5 * * * *',
    @options(duration='10s', rate_iops=200, io_priority='best-effort:7'))
    @skip(rest: a probe's workload is fixed, as ranread_probe says)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    job  text := ranread_internal.ranread_probe_job(tablespace);
    sch  name;
    cmd  text;
    id   bigint;
    msg  text;
    other record;
    s     record;
    stale bigint;
BEGIN
    PERFORM ranread_internal.ranread_primary_only('ranread_probe_schedule');
    PERFORM ranread_internal.ranread_probe_cron('ranread_probe_schedule');
    PERFORM ranread_internal.ranread_require('ranread_probe_schedule', 'schedule', schedule,
        'schedule is pg_cron''s, such as ''*/5 * * * *'' (every five minutes) or ''@hourly''.');
    PERFORM ranread_internal.ranread_probe_check('ranread_probe_schedule', rate_iops, duration);
    PERFORM ranread_internal.ranread_probe_priority('ranread_probe_schedule', io_priority);
    PERFORM ranread_internal.ranread_probe_ready('ranread_probe_schedule', tablespace);
    PERFORM ranread_internal.ranread_probe_share('ranread_probe_schedule', duration, true);
    SELECT * INTO other FROM ranread_internal.ranread_probe_scheduled(job) x
     WHERE x.username OPERATOR(pg_catalog.<>) current_user LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'object_not_in_prerequisite_state',
            MESSAGE = format('tablespace "%s" is probed on a schedule already, by pg_cron job %s of role "%s"',
                             tablespace, other.jobid, other.username),
            DETAIL = 'One schedule probes a tablespace: two would start their probes at once, and one would fail every time.',
            HINT = format('Role "%s" stops it with SELECT ranread_probe_unschedule(%L); (a superuser with SELECT cron.unschedule(%s);).',
                          other.username, tablespace, other.jobid);
    END IF;
    -- the probe's workload as its batch will read it (io_priority's errors)
    PERFORM ranread_internal.ranread_spec_check(jsonb_build_object(
        'caller', 'ranread_probe_schedule', 'duration', duration, 'io_priority', io_priority,
        'groups', jsonb_build_array(jsonb_build_object('processes', 1, 'rate_iops', rate_iops))), false);
    -- and pg_cron can run it on this server, as this role
    PERFORM ranread_internal.ranread_probe_cron_runs('ranread_probe_schedule');
    -- a job keeps the host and port it was made with (pg_cron changes only
    -- its schedule and command): one made before cron.host was set is made
    -- again
    s := ranread_internal.ranread_probe_cron_settings();
    EXECUTE 'SELECT j.jobid FROM cron.job j WHERE j.jobname OPERATOR(pg_catalog.=) $1 AND j.username OPERATOR(pg_catalog.=) current_user
                AND (j.nodename IS DISTINCT FROM $2 OR j.nodeport IS DISTINCT FROM $3)'
       INTO stale USING job, s.host, s.port;
    IF stale IS NOT NULL THEN
        EXECUTE 'SELECT cron.unschedule($1)' USING stale;
    END IF;

    SELECT n.nspname INTO sch
      FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
     WHERE e.extname OPERATOR(pg_catalog.=) 'ranread';
    cmd := format('SELECT * FROM %I.ranread_probe(%L, duration => %L, rate_iops => %s, io_priority => %L, job => %L)',
                  sch, tablespace, duration, rate_iops, io_priority, job);
    BEGIN
        EXECUTE 'SELECT cron.schedule($1, $2, $3)' INTO id USING job, schedule, cmd;
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
        IF msg LIKE 'invalid schedule%' THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('invalid schedule %L for ranread_probe_schedule', schedule),
                DETAIL = format('pg_cron says: %s', msg),
                HINT = 'schedule is pg_cron''s: five cron fields (minute hour day month weekday) such as ''*/5 * * * *'', or @hourly, @daily; pg_cron 1.5 and later also take ''N seconds''.';
        END IF;
        RAISE;
    END;
    RETURN id;
END
$$;

-- The scheduled probes this role may see (pg_cron shows a role its own
-- jobs): one row per job, with its last run, and when that run failed,
-- pg_cron's message (cron.job_run_details.return_message: "connection
-- failed" when pg_cron could not connect, else the probe's error)
CREATE OR REPLACE FUNCTION @extschema@.ranread_probe_schedules()
RETURNS TABLE (
    tablespace  name,
    job         text,
    jobid       bigint,
    schedule    text,
    active      boolean,
    username    text,
    command     text,
    last_start  timestamptz,
    last_status text,
    last_error  text,
    last_probe  timestamptz)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ranread_internal.ranread_probe_cron('ranread_probe_schedules');
    RETURN QUERY EXECUTE format($q$
        SELECT pg_catalog.substr(j.jobname, 15)::name, j.jobname::text, j.jobid, j.schedule::text, j.active,
               j.username::text, j.command::text, d.start_time, d.status::text,
               CASE WHEN d.status OPERATOR(pg_catalog.=) 'failed' THEN d.return_message::text END,
               (SELECT max(p.probed_at) FROM %1$s.ranread_probes p WHERE p.job OPERATOR(pg_catalog.=) j.jobname::text)
          FROM cron.job j
          LEFT JOIN LATERAL (SELECT r.start_time, r.status, r.return_message FROM cron.job_run_details r
                              WHERE r.jobid OPERATOR(pg_catalog.=) j.jobid
                              ORDER BY r.start_time DESC NULLS LAST LIMIT 1) d ON true
         WHERE j.jobname LIKE 'ranread probe %%'
         ORDER BY j.jobname, j.username$q$,
        (SELECT quote_ident(n.nspname)
           FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
          WHERE e.extname OPERATOR(pg_catalog.=) 'ranread'));
END
$$;

-- Stop a tablespace's scheduled probes: removes its pg_cron job; false
-- when it had none.  The probes it ran stay in ranread_probes.
CREATE OR REPLACE FUNCTION @extschema@.ranread_probe_unschedule(tablespace name DEFAULT 'pg_default')
RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    job   text := ranread_internal.ranread_probe_job(tablespace);
    has_job boolean;
BEGIN
    PERFORM ranread_internal.ranread_primary_only('ranread_probe_unschedule');
    PERFORM ranread_internal.ranread_probe_cron('ranread_probe_unschedule');
    PERFORM ranread_internal.ranread_require('ranread_probe_unschedule', 'tablespace', tablespace,
                                             'Name the tablespace whose probes to stop, such as ''pg_default''.');
    EXECUTE 'SELECT EXISTS (SELECT FROM cron.job j WHERE j.jobname OPERATOR(pg_catalog.=) $1 AND j.username OPERATOR(pg_catalog.=) current_user)'
       INTO has_job USING job;
    IF has_job THEN
        EXECUTE 'SELECT cron.unschedule($1)' USING job;
    END IF;
    RETURN has_job;
END
$$;
