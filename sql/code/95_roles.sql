-- Roles: ranread_grant(role, what) and ranread_revoke(role, what) give a
-- role that is not a superuser what one kind of use of ranread needs, and
-- take it back (README, "Privileges"):
--   report  read the history and call what only reads it: exactly what
--           pg_monitor may do with ranread (sql/code/99_privileges.sql
--           decides that; this file copies it from the catalog, so the two
--           cannot differ), without the rest of pg_monitor
--   run     report, and make targets and run batches, mixes, sweeps,
--           latency-target searches, studies, profiles, commit tests and
--           probes (and their pg_cron schedules):
--           EXECUTE on those functions and what their implementations use
--           (the sweeps', searches' and studies' lists are forward.c's, the
--           ones their privilege check names)
--   probe   report, and run probes (and their pg_cron schedules) on the
--           probe targets a DBA made, within the probe cap: EXECUTE on
--           ranread_probe and its schedule functions and what they use
--           (forward.c's list); no batch of its own, no target, no INSERT
--           on ranread_probes (the probe records its row as the owner).
--           New in 1.2: what a monitoring role needs, instead of 'run'
--   export  report, and write export files on the server: EXECUTE on the
--           export functions and membership of pg_write_server_files,
--           which PostgreSQL asks of anyone who writes server files
-- Nothing else: fleets, ranread_reset and ranread.* settings stay with
-- superusers.  Every statement run is returned, so that a DBA sees it.
-- New in 1.1.

-- The needs list of a forwarded function (forward.c), NULL for others
CREATE OR REPLACE FUNCTION ranread_internal.ranread_needs(fn text)
RETURNS text[]
AS 'MODULE_PATHNAME', 'ranread_needs'
LANGUAGE C STRICT IMMUTABLE;

-- Every privilege of a needs list, one row each, objects qualified
CREATE OR REPLACE FUNCTION ranread_internal.ranread_needs_expand(needs text[])
RETURNS TABLE (privilege text, kind text, object text)
AS 'MODULE_PATHNAME', 'ranread_needs_expand'
LANGUAGE C STABLE;

-- The privileges of one kind of use ('report', 'run', 'export'), one row
-- each: privilege (EXECUTE, SELECT, USAGE, INSERT, MEMBER), kind
-- (function, table, sequence, schema, role) and object, spelled as a GRANT
-- takes it
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_privileges(what text)
RETURNS TABLE (privilege text, kind text, object text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH ext AS (
        SELECT e.oid, e.extnamespace FROM pg_catalog.pg_extension e
         WHERE e.extname OPERATOR(pg_catalog.=) 'ranread'
    ), members AS (
        SELECT d.classid, d.objid FROM pg_catalog.pg_depend d, ext
         WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
           AND d.refobjid OPERATOR(pg_catalog.=) ext.oid
           AND d.deptype OPERATOR(pg_catalog.=) 'e'
    ), monitor AS (
        -- what pg_monitor holds on the extension's objects
        SELECT a.privilege_type::pg_catalog.text AS privilege, 'function'::pg_catalog.text AS kind,
               p.oid::pg_catalog.regprocedure::pg_catalog.text AS object
          FROM members m JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) m.objid
               CROSS JOIN LATERAL pg_catalog.aclexplode(p.proacl) a
         WHERE m.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
           AND a.grantee OPERATOR(pg_catalog.=) 'pg_monitor'::pg_catalog.regrole
        UNION
        SELECT a.privilege_type, CASE c.relkind WHEN 'S' THEN 'sequence' ELSE 'table' END,
               c.oid::pg_catalog.regclass::pg_catalog.text
          FROM members m JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) m.objid
               CROSS JOIN LATERAL pg_catalog.aclexplode(c.relacl) a
         WHERE m.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
           AND a.grantee OPERATOR(pg_catalog.=) 'pg_monitor'::pg_catalog.regrole
        UNION
        SELECT a.privilege_type, 'schema', pg_catalog.quote_ident(n.nspname)
          FROM members m JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) m.objid
               CROSS JOIN LATERAL pg_catalog.aclexplode(n.nspacl) a
         WHERE m.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
           AND a.grantee OPERATOR(pg_catalog.=) 'pg_monitor'::pg_catalog.regrole
    ), named(what, fn) AS (
        -- the functions each kind of use calls, every signature of the name
        VALUES ('run', 'ranread_setup'), ('run', 'ranread_purge'), ('run', 'ranread_run'),
               ('run', 'ranread_mix'), ('run', 'ranread_stop'), ('run', 'ranread_run_step'),
               ('run', 'ranread_blocks'), ('run', 'ranread_limits'), ('run', 'ranread_sweep'),
               ('run', 'ranread_latency_target'), ('run', 'ranread_study'),
               ('run', 'ranread_profile'), ('run', 'ranread_commit_test'),
               ('run', 'ranread_probe'), ('run', 'ranread_probe_setup'), ('run', 'ranread_probe_schedule'),
               ('run', 'ranread_probe_schedules'), ('run', 'ranread_probe_unschedule'),
               ('run', 'ranread_verify'), ('run', 'ranread_paths'), ('run', 'ranread_profile_postgres'),
               ('probe', 'ranread_probe'), ('probe', 'ranread_probe_schedule'),
               ('probe', 'ranread_probe_schedules'), ('probe', 'ranread_probe_unschedule'),
               ('export', 'ranread_export'), ('export', 'ranread_export_study'),
               ('export', 'ranread_export_sweep')
    ), needs(what, need) AS (
        -- what their implementations use besides themselves
        SELECT 'run', pg_catalog.unnest(ranread_internal.ranread_needs(f))
          FROM pg_catalog.unnest(ARRAY['ranread_sweep', 'ranread_latency_target', 'ranread_study', 'ranread_probe']) f
        UNION ALL
        SELECT 'run', pg_catalog.unnest(ARRAY[
            -- a profile is a study of a fixed definition (43_profile.sql)
            'EXECUTE on functions ranread_internal.ranread_profile_*',
            'EXECUTE on functions ranread_internal.ranread_block_size_ok*',
            -- a commit test records its test's id
            'USAGE on sequence @extschema@.ranread_commit_test_seq',
            -- the two paths side by side (24_paths.sql): batches, read back
            'EXECUTE on functions ranread_internal.ranread_paths_*',
            'EXECUTE on function ranread_internal.ranread_require_read_committed(text, text)',
            'EXECUTE on function ranread_internal.ranread_first_failed(ranread_internal.ranread_check[])',
            'EXECUTE on function ranread_internal.ranread_round(float8, integer)',
            'EXECUTE on function @extschema@.ranread_hist_percentile(bytea, float8)'])
        UNION ALL
        SELECT 'probe', pg_catalog.unnest(ranread_internal.ranread_needs('ranread_probe'))
    ), expanded AS (
        SELECT x.privilege, x.kind,
               CASE x.kind WHEN 'function' THEN x.object::pg_catalog.regprocedure::pg_catalog.text
                           WHEN 'schema' THEN x.object
                           ELSE x.object::pg_catalog.regclass::pg_catalog.text END AS object
          FROM ranread_internal.ranread_needs_expand(ARRAY(
                   SELECT n.need FROM needs n WHERE n.what OPERATOR(pg_catalog.=) $1)) x
    )
    SELECT DISTINCT * FROM (
        SELECT * FROM monitor WHERE $1 OPERATOR(pg_catalog.=) ANY (ARRAY['report', 'run', 'probe', 'export'])
        UNION ALL
        SELECT 'EXECUTE', 'function', p.oid::pg_catalog.regprocedure::pg_catalog.text
          FROM named, ext, pg_catalog.pg_proc p
         WHERE named.what OPERATOR(pg_catalog.=) $1
           AND p.pronamespace OPERATOR(pg_catalog.=) ext.extnamespace
           AND p.proname OPERATOR(pg_catalog.=) named.fn
        UNION ALL
        SELECT * FROM expanded
        UNION ALL
        SELECT 'MEMBER', 'role', 'pg_write_server_files' WHERE $1 OPERATOR(pg_catalog.=) 'export'
    ) s
$$;

-- Error unless what is a kind of use; fn names the function
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_what(fn text, role pg_catalog.regrole, what text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF role IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
            MESSAGE = format('role of %s must not be null', fn),
            HINT = format('Name the role, such as SELECT %s(''alice'', ''run'').', fn);
    END IF;
    IF what IS NULL OR NOT (what OPERATOR(pg_catalog.=) ANY (ARRAY['run', 'report', 'probe', 'export'])) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid what for %s: %s', fn, coalesce(pg_catalog.quote_literal(what), 'NULL')),
            HINT = '''run'' (make targets and run batches, sweeps, studies; read the history), ''report'' (read the history, charts and reports), ''probe'' (run probes and their schedules within the probe cap; read the history) or ''export'' (read the history and write export files on the server).';
    END IF;
END
$$;

-- One privilege as a GRANT (or REVOKE) statement for role
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_statement(grant_it boolean, role pg_catalog.regrole,
                                                                    privilege text, kind text, object text)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN kind OPERATOR(pg_catalog.=) 'role' THEN
                    pg_catalog.format(CASE WHEN grant_it THEN 'GRANT %s TO %s;' ELSE 'REVOKE %s FROM %s;' END,
                                      object, role)
                ELSE pg_catalog.format(CASE WHEN grant_it THEN 'GRANT %s ON %s %s TO %s;' ELSE 'REVOKE %s ON %s %s FROM %s;' END,
                                       privilege, pg_catalog.upper(kind), object, role) END
$$;

-- Does role hold every privilege of a kind of use (through membership too)?
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_holds(role pg_catalog.regrole, what text)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.bool_and(CASE p.kind
               WHEN 'function' THEN pg_catalog.has_function_privilege(role, p.object::pg_catalog.regprocedure, p.privilege)
               WHEN 'schema' THEN pg_catalog.has_schema_privilege(role, p.object, p.privilege)
               WHEN 'sequence' THEN pg_catalog.has_sequence_privilege(role, p.object::pg_catalog.regclass, p.privilege)
               WHEN 'role' THEN pg_catalog.pg_has_role(role, p.object, 'USAGE')
               ELSE pg_catalog.has_table_privilege(role, p.object::pg_catalog.regclass, p.privilege) END), false)
      FROM ranread_internal.ranread_role_privileges(what) p
$$;

-- Grant (grant_it) or revoke role what a kind of use needs: the one body
-- of ranread_grant and ranread_revoke.  A grant runs the statements
-- schema first, a revoke in the reverse order (role first); a revoke keeps
-- what the other kinds of use the role holds need ('run' and 'export'
-- include 'report').  Returns the statements it ran, in the order it ran
-- them.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_change(grant_it boolean, role pg_catalog.regrole, what text)
RETURNS SETOF text
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn    constant text := CASE WHEN grant_it THEN 'ranread_grant' ELSE 'ranread_revoke' END;
    kinds constant text[] := ARRAY['schema', 'table', 'sequence', 'function', 'role'];
    kept  text[] := '{}';
    s     text;
BEGIN
    PERFORM ranread_internal.ranread_role_what(fn, role, what);
    IF NOT grant_it THEN
        -- a kind of use the role holds besides, unless it is part of what
        -- is revoked ('probe' of 'run'): revoking 'run' takes the probes too
        kept := ARRAY(SELECT w FROM unnest(ARRAY['run', 'probe', 'export']) w
                       WHERE w OPERATOR(pg_catalog.<>) what AND ranread_internal.ranread_role_holds(role, w)
                         AND EXISTS (SELECT * FROM ranread_internal.ranread_role_privileges(w)
                                     EXCEPT SELECT * FROM ranread_internal.ranread_role_privileges(what)));
    END IF;
    FOR s IN SELECT ranread_internal.ranread_role_statement(grant_it, role, p.privilege, p.kind, p.object)
               FROM ranread_internal.ranread_role_privileges(what) p
              WHERE NOT EXISTS (SELECT FROM unnest(kept) k, ranread_internal.ranread_role_privileges(k) o
                                 WHERE (o.privilege, o.kind, o.object) = (p.privilege, p.kind, p.object))
              ORDER BY CASE WHEN grant_it THEN 1 ELSE -1 END * array_position(kinds, p.kind),
                       p.object COLLATE "C", p.privilege
    LOOP
        EXECUTE s;
        RETURN NEXT s;
    END LOOP;
    IF grant_it AND what OPERATOR(pg_catalog.=) 'export' THEN
        RAISE NOTICE '% may now write files on the database server wherever its operating-system user may (pg_write_server_files)', role;
    END IF;
    IF cardinality(kept) > 0 THEN
        RAISE NOTICE '% keeps what % needs of it', role, array_to_string(kept, ' and ');
    END IF;
END
$$;

-- ranread_grant(role, what): grant role what 'run', 'report', 'probe' or
-- 'export' needs; returns the statements it ran, in the order it ran them
CREATE OR REPLACE FUNCTION @extschema@.ranread_grant(role pg_catalog.regrole, what text)
RETURNS SETOF text
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ranread_internal.ranread_role_change(true, role, what)
$$;

-- ranread_revoke(role, what): take back what ranread_grant(role, what)
-- gave, but for what the other kinds of use the role holds need ('run'
-- and 'export' include 'report': revoking 'report' from a role that may
-- run keeps it reading); returns the statements it ran
CREATE OR REPLACE FUNCTION @extschema@.ranread_revoke(role pg_catalog.regrole, what text)
RETURNS SETOF text
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ranread_internal.ranread_role_change(false, role, what)
$$;
