-- 1.1, the power-loss durability check (src/advise/durability.c;
-- docs/writes-and-durability.md, "Does the storage keep what it flushes?").

COMMENT ON TABLE @extschema@.ranread_durability IS
    'ranread durability tests: writes acknowledged by the storage (the log) and what read back after the power cut';

CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_create(durability bigint, tablespace name,
    method text, blocks bigint, local_log boolean)
RETURNS text AS 'MODULE_PATHNAME', 'ranread_durability_create'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_write(durability bigint, method text,
    seq bigint, blocks bigint)
RETURNS void AS 'MODULE_PATHNAME', 'ranread_durability_write'
LANGUAGE C STRICT VOLATILE;
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_read(durability bigint, blocks bigint,
    acknowledged bigint, OUT checked bigint, OUT lost bigint, OUT torn bigint,
    OUT unacknowledged bigint, OUT first_lost bigint)
AS 'MODULE_PATHNAME', 'ranread_durability_read'
LANGUAGE C STRICT VOLATILE;
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_drop(durability bigint)
RETURNS boolean AS 'MODULE_PATHNAME', 'ranread_durability_drop'
LANGUAGE C STRICT VOLATILE;

-- The log on another server (log_conninfo): connect as
-- 'ranread_durability_log' (src/fleet/: every wait bounded, cancel
-- honoured, no password stored or shown), refuse this very server, make
-- the log table there.  durability > 0: start that test's log row, keep
-- the connection; < 0: return the acknowledged writes logged for test
-- -durability; 0: check only.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_log_connect(conninfo text, sysid bigint,
    durability bigint)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    why   text;
    there bigint;
    acked text;
BEGIN
    why := (ranread_internal.ranread_remote_connect(ARRAY['ranread_durability_log'], ARRAY[conninfo], 15000))[1];
    IF why IS NOT NULL THEN
        RAISE EXCEPTION 'cannot reach the log server of the durability test (log_conninfo): %', why
            USING ERRCODE = 'connection_failure',
                  HINT = 'log_conninfo names another server that takes connections from this one; nothing was written.';
    END IF;
    there := ranread_internal.ranread_remote_query('ranread_durability_log',
        'SELECT system_identifier FROM pg_control_system()', 10000)::bigint;
    IF there = sysid THEN
        PERFORM ranread_internal.ranread_remote_close(ARRAY['ranread_durability_log']);
        RAISE EXCEPTION 'log_conninfo of the durability test reaches this server itself (system identifier %)', sysid
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'Its log would be lost with the acknowledged writes in a power cut of this server.',
                  HINT = 'Log to another server, on other storage (diskchecker.pl''s listener).';
    END IF;
    PERFORM ranread_internal.ranread_remote_query('ranread_durability_log', 'SET synchronous_commit = on', 10000);
    IF durability < 0 THEN
        acked := ranread_internal.ranread_remote_query('ranread_durability_log',
            format('SELECT acknowledged FROM ranread_durability_log WHERE system_identifier = %s AND durability = %s',
                   sysid, -durability), 10000);
        PERFORM ranread_internal.ranread_remote_close(ARRAY['ranread_durability_log']);
        IF acked IS NULL THEN
            RAISE EXCEPTION 'the log server has no log of durability test %', -durability
                USING ERRCODE = 'no_data_found',
                      HINT = 'Pass the log_conninfo the start was given.';
        END IF;
        RETURN acked::bigint;
    END IF;
    PERFORM ranread_internal.ranread_remote_query('ranread_durability_log',
        'CREATE TABLE IF NOT EXISTS ranread_durability_log (system_identifier bigint NOT NULL, '
        'durability bigint NOT NULL, acknowledged bigint NOT NULL DEFAULT 0, last_ack timestamptz, '
        'PRIMARY KEY (system_identifier, durability))', 10000);
    IF durability > 0 THEN
        PERFORM ranread_internal.ranread_remote_query('ranread_durability_log',
            format('INSERT INTO ranread_durability_log (system_identifier, durability) VALUES (%s, %s) '
                   'ON CONFLICT (system_identifier, durability) DO UPDATE SET acknowledged = 0', sysid, durability),
            10000);
    ELSE
        PERFORM ranread_internal.ranread_remote_close(ARRAY['ranread_durability_log']);
    END IF;
    RETURN 0;
END
$$;

-- The advisory lock a running start holds for its whole session (class 1
-- of ranread's two-key locks: the durability test's number)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_lock_key()
RETURNS integer LANGUAGE sql IMMUTABLE AS $$ SELECT 1381253185 $$;

-- ranread_durability_start's arguments, checked before anything is
-- written: the method, the duration, the size (returned in blocks of 8 kB),
-- fsync = on for a log in this server's tables, and no test pending.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_args(method text, duration interval,
    size text, remote boolean)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_bytes   bigint;
    v_pending record;
BEGIN
    IF method IS NULL OR method NOT IN ('fdatasync', 'fsync', 'open_datasync', 'open_sync') THEN
        RAISE EXCEPTION 'invalid method "%" for ranread_durability_start', method
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'method is ''fdatasync'', ''fsync'', ''open_datasync'' or ''open_sync'', as wal_sync_method names them.';
    END IF;
    IF duration IS NULL OR duration <= interval '0' OR duration > interval '1 day' THEN
        RAISE EXCEPTION 'duration % of ranread_durability_start is out of range', coalesce(duration::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'duration is more than 0 and at most 1 day: long enough to cut the power during it (diskchecker.pl''s advice: a few minutes).';
    END IF;
    BEGIN
        v_bytes := pg_size_bytes(size);
    EXCEPTION WHEN invalid_parameter_value OR null_value_not_allowed OR numeric_value_out_of_range THEN
        v_bytes := NULL;
    END;
    IF v_bytes IS NULL OR v_bytes < 8192 OR v_bytes > 1073741824 THEN
        RAISE EXCEPTION 'invalid size "%" for ranread_durability_start', coalesce(size, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'size is from ''8kB'' (one block) to ''1GB'', as pg_size_bytes reads it (e.g. ''64MB''); writes wrap around the file.';
    END IF;
    IF NOT remote AND current_setting('fsync')::boolean IS NOT TRUE THEN
        RAISE EXCEPTION 'ranread_durability_start needs fsync = on'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'The log of acknowledged writes is committed to this server''s WAL, which fsync = off does not flush.',
                  HINT = 'ALTER SYSTEM SET fsync = on; SELECT pg_reload_conf(); or log to another server: log_conninfo => ''...''.';
    END IF;
    SELECT d.durability, d.status INTO v_pending
      FROM @extschema@.ranread_durability d
     WHERE d.status <> 'checked'
     ORDER BY d.durability LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'durability test % is not checked yet', v_pending.durability
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('Its status is %s: its durability file holds what a power cut would have left.', v_pending.status),
                  HINT = 'Read it back first: SELECT * FROM ranread_durability_check();';
    END IF;
    RETURN v_bytes / 8192;
END
$$;

-- ranread_durability_start's test before its first write: the log server
-- checked (reachable, not this server, its log table there), leftovers of
-- tests whose rows are gone (a restore, a DELETE) dropped, the row and the
-- durability file made.  Returns the test's number; the caller commits.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_prepare(tablespace name, method text,
    duration interval, blocks bigint, log_conninfo text, sysid bigint)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_id  bigint;
    v_log text;
    v_why text;
BEGIN
    IF log_conninfo IS NOT NULL THEN
        v_why := ranread_internal.ranread_conninfo_problem(log_conninfo);
        IF v_why IS NOT NULL THEN
            RAISE EXCEPTION 'invalid log_conninfo for ranread_durability_start: %', v_why
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'log_conninfo is a libpq connection string of another server, e.g. ''host=logserver dbname=postgres''.';
        END IF;
        PERFORM ranread_internal.ranread_durability_log_connect(log_conninfo, sysid, 0);
    END IF;
    PERFORM ranread_internal.ranread_durability_drop(substr(c.relname, 20)::bigint)
       FROM pg_class c
      WHERE c.relnamespace = 'ranread_target'::regnamespace
        AND c.relname ~ '^ranread_durability_[0-9]+$';
    INSERT INTO @extschema@.ranread_durability (tablespace, method, duration, blocks)
    VALUES (coalesce(tablespace, (SELECT t.spcname FROM pg_tablespace t
                                   JOIN pg_database db ON db.dattablespace = t.oid
                                  WHERE db.datname = current_database())),
            method, duration, blocks)
    RETURNING durability INTO v_id;
    v_log := ranread_internal.ranread_durability_create(v_id, tablespace, method, blocks, log_conninfo IS NULL);
    IF log_conninfo IS NOT NULL THEN
        v_log := format('%s at %s', v_log, ranread_internal.ranread_conninfo_name(log_conninfo));
    END IF;
    UPDATE @extschema@.ranread_durability d SET log = v_log WHERE d.durability = v_id;
    RETURN v_id;
END
$$;

-- ranread_durability_start: write the durability file until duration has
-- passed (or ranread_durability_stop), each write made durable by method
-- and, once acknowledged, committed to the log.  Cut the power of the
-- tested storage during the run; after the restart, ranread_durability_check.
-- A procedure: it commits after every acknowledged write (CALL it outside a
-- transaction block).  With the log on another server, a log server that
-- fails or stops answering (each statement there has 10 s), a cancel or a
-- statement_timeout ends the run: the test is then recorded as written up
-- to the last write logged, with why in ended_by, and the error raised
-- says so (a log in this server's tables commits every acknowledgement,
-- so a cancel there leaves the test running until its session ends, which
-- ranread_durability_check allows for).
CREATE OR REPLACE PROCEDURE @extschema@.ranread_durability_start(
    tablespace name     DEFAULT NULL,
    method     text     DEFAULT 'fdatasync',
    duration   interval DEFAULT '60s',
    size       text     DEFAULT '64MB',
    log_conninfo text   DEFAULT NULL)
LANGUAGE plpgsql
AS $$
DECLARE
    v_id      bigint;
    v_blocks  bigint;
    v_seq     bigint := 0;
    v_until   timestamptz;
    v_stop    boolean := false;
    v_remote  boolean := log_conninfo IS NOT NULL;
    v_sysid   bigint := (SELECT s.system_identifier FROM pg_catalog.pg_control_system() s);
    v_err     text;             -- why a run with its log on another server ended early
    v_state   text;             -- its SQLSTATE
    v_what    text;             -- and what failed
BEGIN
    PERFORM ranread_internal.ranread_primary_only('ranread_durability_start');
    v_blocks := ranread_internal.ranread_durability_args(method, duration, size, v_remote);
    v_id := ranread_internal.ranread_durability_prepare(tablespace, method, duration, v_blocks,
                                                        log_conninfo, v_sysid);
    COMMIT;
    -- held for the session: ranread_durability_check knows a test is running
    PERFORM pg_catalog.pg_advisory_lock(ranread_internal.ranread_durability_lock_key(), v_id::integer);
    IF v_remote THEN
        -- the COMMIT above closed the first connection: the log's own one
        v_what := pg_catalog.concat('the log server at ', ranread_internal.ranread_conninfo_name(log_conninfo));
        BEGIN
            PERFORM ranread_internal.ranread_durability_log_connect(log_conninfo, v_sysid, v_id);
        EXCEPTION WHEN OTHERS OR query_canceled THEN
            GET STACKED DIAGNOSTICS v_err = MESSAGE_TEXT, v_state = RETURNED_SQLSTATE;
        END;
    END IF;
    IF v_err IS NULL THEN
        RAISE NOTICE 'durability test %: writing % blocks of 8 kB on tablespace % with %, for %; cut the power of that storage now, then run ranread_durability_check() after the restart',
            v_id, v_blocks, coalesce(tablespace, 'of the database'), method, duration;
    END IF;
    v_until := pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) duration;
    WHILE v_err IS NULL AND NOT v_stop AND pg_catalog.clock_timestamp() OPERATOR(pg_catalog.<) v_until LOOP
        IF v_remote THEN
            -- the write and its acknowledgement, committed on the log server
            -- (no COMMIT here: it would close the connection)
            BEGIN
                v_what := 'the write to the durability file';
                PERFORM ranread_internal.ranread_durability_write(v_id, method, v_seq OPERATOR(pg_catalog.+) 1, v_blocks);
                v_what := pg_catalog.concat('the log server at ', ranread_internal.ranread_conninfo_name(log_conninfo));
                PERFORM ranread_internal.ranread_remote_query('ranread_durability_log',
                    pg_catalog.format('UPDATE ranread_durability_log SET acknowledged = %s, last_ack = now() '
                                      'WHERE system_identifier = %s AND durability = %s',
                                      v_seq OPERATOR(pg_catalog.+) 1, v_sysid, v_id),
                    10000);
                v_seq := v_seq OPERATOR(pg_catalog.+) 1;
                SELECT d.stop_requested INTO v_stop FROM @extschema@.ranread_durability d
                 WHERE d.durability OPERATOR(pg_catalog.=) v_id;
            EXCEPTION WHEN OTHERS OR query_canceled THEN
                GET STACKED DIAGNOSTICS v_err = MESSAGE_TEXT, v_state = RETURNED_SQLSTATE;
            END;
        ELSE
            v_seq := v_seq OPERATOR(pg_catalog.+) 1;
            PERFORM ranread_internal.ranread_durability_write(v_id, method, v_seq, v_blocks);
            -- the acknowledgement, durable in pg_wal before the next write
            PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
            UPDATE @extschema@.ranread_durability d
               SET acknowledged = v_seq, last_ack = pg_catalog.clock_timestamp()
             WHERE d.durability OPERATOR(pg_catalog.=) v_id
            RETURNING d.stop_requested INTO v_stop;
            COMMIT;
        END IF;
    END LOOP;
    PERFORM ranread_internal.ranread_durability_written(v_id, v_seq, v_stop, v_err, v_state, v_what);
    COMMIT;
    PERFORM pg_catalog.pg_advisory_unlock(ranread_internal.ranread_durability_lock_key(), v_id::integer);
    PERFORM ranread_internal.ranread_durability_ended(v_id, v_seq, v_stop, v_err, v_state, v_what);
END
$$;

-- The end of a start's writes: its test written up to write seq (the last
-- one logged), and why it ended early (what failed with err, its SQLSTATE
-- state) in ended_by.  A log server that failed before the first write
-- leaves nothing to check: the file is dropped and the test marked
-- checked, not run.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_written(durability bigint, seq bigint,
    stopped boolean, err text, state text, what text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_why text := CASE WHEN err IS NULL AND stopped THEN 'ranread_durability_stop'
                       WHEN state = '57014' THEN format('cancelled: %s', err)
                       WHEN err IS NOT NULL THEN format('%s failed: %s', what, err) END;
BEGIN
    IF err IS NOT NULL AND seq = 0 THEN
        PERFORM ranread_internal.ranread_durability_drop(durability);
        UPDATE @extschema@.ranread_durability d
           SET status = 'checked', written_until = clock_timestamp(), checked = clock_timestamp(),
               acknowledged = 0, ended_by = v_why, verdict = 'not run: ' || v_why
         WHERE d.durability = ranread_durability_written.durability;
        RETURN;
    END IF;
    UPDATE @extschema@.ranread_durability d
       SET status = 'written', written_until = clock_timestamp(), acknowledged = seq, ended_by = v_why
     WHERE d.durability = ranread_durability_written.durability;
END
$$;

-- What a start says at its end: a NOTICE when its writes ended as asked
-- (duration, ranread_durability_stop), else the error that ended them
-- (its SQLSTATE state), with what was recorded.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_ended(durability bigint, seq bigint,
    stopped boolean, err text, state text, what text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_rec text := CASE WHEN seq = 0 THEN 'nothing was written: the test is marked checked, not run'
                       ELSE format('its test is recorded as written, %s writes acknowledged and logged: check it with ranread_durability_check(log_conninfo => ''...'') once the log server answers, or drop it with ranread_durability_purge()', seq) END;
BEGIN
    IF err IS NULL THEN
        RAISE NOTICE 'durability test %: % writes acknowledged%; run ranread_durability_check() to read them back',
            durability, seq, CASE WHEN stopped THEN ' (stopped)' ELSE '' END;
    ELSIF state = '57014' THEN
        RAISE EXCEPTION '%', err
            USING ERRCODE = 'query_canceled',
                  DETAIL = format('Durability test %s: %s.', durability, v_rec);
    ELSE
        RAISE EXCEPTION 'durability test % ended: % failed: %', durability, what, err
            USING ERRCODE = CASE WHEN state LIKE '08%' OR state LIKE '58%' OR state LIKE '53%' THEN state
                                 ELSE 'connection_failure' END,
                  DETAIL = format('The log server (log_conninfo) must answer every acknowledgement within 10 s; %s.', v_rec),
                  HINT = 'Log to a server that stays up during the test, on other storage than the tested one.';
    END IF;
END
$$;

-- ranread_durability_stop: ask a running start to stop after its current write
CREATE OR REPLACE FUNCTION @extschema@.ranread_durability_stop()
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_id bigint;
BEGIN
    UPDATE @extschema@.ranread_durability d SET stop_requested = true
     WHERE d.status = 'running' AND NOT d.stop_requested
    RETURNING d.durability INTO v_id;
    RETURN v_id;
END
$$;

-- ranread_durability_check: read the durability file of the last test back
-- against the log, record and return the verdict, and drop the file.
CREATE OR REPLACE FUNCTION @extschema@.ranread_durability_check(log_conninfo text DEFAULT NULL)
RETURNS TABLE (durability bigint, method text, tablespace name, acknowledged bigint,
               checked bigint, lost bigint, torn bigint, unacknowledged bigint,
               verdict text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    d  record;
    r  record;
    v  text;
BEGIN
    PERFORM ranread_internal.ranread_primary_only('ranread_durability_check');
    SELECT * INTO d FROM @extschema@.ranread_durability x
     WHERE x.status <> 'checked' ORDER BY x.durability LIMIT 1 FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no durability test to check'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Start one first: CALL ranread_durability_start(tablespace => ''...''); cut the power during it, then check after the restart.';
    END IF;
    -- its writer holds the lock while it runs, and after a cancel until its
    -- session ends: running only while that session is active
    IF EXISTS (SELECT FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND l.granted AND l.pid <> pg_backend_pid()
                  AND l.classid = ranread_internal.ranread_durability_lock_key()::oid
                  AND l.objid = d.durability::integer::oid AND l.objsubid = 2
                  AND a.state = 'active') THEN
        RAISE EXCEPTION 'durability test % is still running', d.durability
            USING ERRCODE = 'object_in_use',
                  HINT = 'Cut the power during it, or wait until it ends (SELECT ranread_durability_stop() ends it now), then check.';
    END IF;
    IF d.log LIKE 'another server%' THEN
        IF log_conninfo IS NULL THEN
            RAISE EXCEPTION 'durability test % logged its acknowledged writes to another server', d.durability
                USING ERRCODE = 'invalid_parameter_value',
                      DETAIL = d.log,
                      HINT = 'Pass that server''s connection string: ranread_durability_check(log_conninfo => ''...'').';
        END IF;
        d.acknowledged := ranread_internal.ranread_durability_log_connect(log_conninfo,
            (SELECT s.system_identifier FROM pg_control_system() s), -d.durability);
    END IF;
    r := ranread_internal.ranread_durability_read(d.durability, d.blocks, d.acknowledged);
    -- what was tested: a power cut restarts the server, so a check in the
    -- server's run that saw the test start cut nothing, and says so
    IF r.lost = 0 AND pg_catalog.pg_postmaster_start_time() OPERATOR(pg_catalog.<=) d.started THEN
        v := format('no power cut tested: the server has run since before the test started; '
                    '%s acknowledged writes read back, 0 lost (cut the power during a test to know '
                    'whether the storage keeps what it flushes)', r.checked);
    ELSIF r.lost = 0 THEN
        v := format('flushes honoured across the restart at %s: %s acknowledged writes, 0 lost '
                    '(if the power was cut before that restart; a clean restart tests nothing)',
                    pg_catalog.to_char(pg_catalog.pg_postmaster_start_time(), 'YYYY-MM-DD HH24:MI:SS'), r.checked);
    ELSE
        v := format('LOST %s of %s acknowledged writes: this storage does not keep what it flushes: '
                    'a volatile write cache acknowledged %s and lost the data at the power cut; '
                    'disable the write cache (hdparm -W 0, sdparm --clear=WCE, the controller''s setting) '
                    'or use a controller with a battery- or flash-backed cache, and test again; until then '
                    'a crash can lose committed transactions and corrupt the database',
                    r.lost, r.checked, d.method);
    END IF;
    IF r.torn > 0 THEN
        v := v || format('; %s blocks torn (a write half-done at the cut)', r.torn);
    END IF;
    UPDATE @extschema@.ranread_durability x
       SET status = 'checked', checked = now(), acknowledged = d.acknowledged,
           checked_writes = r.checked, lost = r.lost,
           torn = r.torn, unacknowledged = r.unacknowledged, first_lost = r.first_lost,
           verdict = v
     WHERE x.durability = d.durability;
    PERFORM ranread_internal.ranread_durability_drop(d.durability);
    RETURN QUERY SELECT d.durability, d.method, d.tablespace, d.acknowledged, r.checked,
                        r.lost, r.torn, r.unacknowledged, v;
END
$$;

-- ranread_durability_purge: drop the durability file of a test not checked
-- (it is then marked checked with no verdict) and every leftover
CREATE OR REPLACE FUNCTION @extschema@.ranread_durability_purge()
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n integer := 0;
    c record;
BEGIN
    FOR c IN SELECT relname FROM pg_class
              WHERE relnamespace = 'ranread_target'::regnamespace
                AND relname ~ '^ranread_durability_[0-9]+$' LOOP
        IF EXISTS (SELECT FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                    WHERE l.locktype = 'advisory' AND l.granted AND l.pid <> pg_backend_pid()
                      AND l.classid = ranread_internal.ranread_durability_lock_key()::oid
                      AND l.objid = substr(c.relname, 20)::integer::oid AND l.objsubid = 2
                      AND a.state = 'active') THEN
            RAISE EXCEPTION 'durability test % is still running', substr(c.relname, 20)
                USING ERRCODE = 'object_in_use',
                      HINT = 'SELECT ranread_durability_stop(); then purge.';
        END IF;
        IF ranread_internal.ranread_durability_drop(substr(c.relname, 20)::bigint) THEN
            n := n + 1;
        END IF;
    END LOOP;
    UPDATE @extschema@.ranread_durability x SET status = 'checked', checked = now(),
           verdict = 'purged unchecked'
     WHERE x.status <> 'checked';
    RETURN n;
END
$$;

REVOKE ALL ON @extschema@.ranread_durability FROM PUBLIC;

-- What ranread_advise says of the durability checks next to its
-- wal_sync_method advice: the latest check that read its file back
-- (durability, tablespace, method, checked, acknowledged, checked_writes,
-- lost; all NULL when none), as one sentence; current is the server's
-- wal_sync_method.  warning is set when that check lost acknowledged
-- writes.  Pure, so that its tests can feed it either answer.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_durability(
    durability bigint, tablespace name, method text, checked timestamptz,
    acknowledged bigint, checked_writes bigint, lost bigint, current text,
    OUT citation text, OUT warning text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN $1 IS NULL
                THEN 'no durability check on record: CALL ranread_durability_start(...) then ranread_durability_check() after a power cut'
                ELSE format('durability check %s (%s on tablespace %s, %s): %s%s',
                            $1, $3, $2, to_char($4, 'YYYY-MM-DD HH24:MI'),
                            CASE WHEN $7 = 0
                                 THEN format('%s acknowledged, 0 lost', $5)
                                 ELSE format('LOST %s of %s acknowledged writes checked (%s acknowledged)', $7, $6, $5) END,
                            CASE WHEN $3 <> $8 THEN format('; it checked %s, not %s, the server''s wal_sync_method', $3, $8)
                                 ELSE '' END) END,
           CASE WHEN $7 > 0
                THEN format('durability check %s lost %s of %s acknowledged writes after a power cut: that storage does not keep what it flushes, whatever wal_sync_method says; disable its volatile write cache or use a controller with a battery- or flash-backed cache, then check again',
                            $1, $7, $6) END
$$;

-- The latest durability check that read its file back, cited
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_durability_latest(
    OUT citation text, OUT warning text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT f.citation, f.warning
      FROM (SELECT) one
      LEFT JOIN LATERAL (SELECT * FROM @extschema@.ranread_durability d
                          WHERE d.status = 'checked' AND d.lost IS NOT NULL
                          ORDER BY d.checked DESC, d.durability DESC LIMIT 1) d ON true,
           LATERAL ranread_internal.ranread_advise_durability(d.durability, d.tablespace, d.method, d.checked,
               d.acknowledged, d.checked_writes, d.lost, current_setting('wal_sync_method')) f
$$;
