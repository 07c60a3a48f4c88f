-- The kinds of use are fixed (README, "Privileges"): what ranread_grant
-- gives for 'report', 'probe', 'run' and 'export' is written in the
-- extension (sql/code/95_roles.sql, forward.c's needs lists), not read
-- from what pg_monitor holds now.  pg_monitor holds 'report' by the
-- extension's own grant, exactly; a grant and revoke of 'run' on
-- pg_monitor leaves it reading, and every later grant whole; a DBA's own
-- GRANT to pg_monitor adds nothing to 'report'; 'report' cannot be revoked
-- from pg_monitor with ranread_revoke.
BEGIN;
SET LOCAL client_min_messages = error;
SELECT plan(15);
\ir lib/util.psql

-- what pg_monitor holds on the extension's objects, spelled as
-- ranread_role_privileges spells them
CREATE FUNCTION pg_temp.monitor_holds() RETURNS SETOF text
LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$
WITH members AS (
    SELECT d.classid, d.objid FROM pg_depend d
     WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
       AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ranread'))
SELECT a.privilege_type || ' function ' || p.oid::regprocedure::text
  FROM members m JOIN pg_proc p ON p.oid = m.objid CROSS JOIN LATERAL aclexplode(p.proacl) a
 WHERE m.classid = 'pg_proc'::regclass AND a.grantee = 'pg_monitor'::regrole
UNION ALL
SELECT a.privilege_type || CASE c.relkind WHEN 'S' THEN ' sequence ' ELSE ' table ' END || c.oid::regclass::text
  FROM members m JOIN pg_class c ON c.oid = m.objid CROSS JOIN LATERAL aclexplode(c.relacl) a
 WHERE m.classid = 'pg_class'::regclass AND a.grantee = 'pg_monitor'::regrole
UNION ALL
SELECT a.privilege_type || ' schema ' || quote_ident(n.nspname)
  FROM members m JOIN pg_namespace n ON n.oid = m.objid CROSS JOIN LATERAL aclexplode(n.nspacl) a
 WHERE m.classid = 'pg_namespace'::regclass AND a.grantee = 'pg_monitor'::regrole
$$;

CREATE TEMP TABLE kinds_before AS
SELECT w AS what, count(p.*) AS n FROM unnest(ARRAY['report', 'probe', 'run', 'export']) w
  LEFT JOIN LATERAL ranread_internal.ranread_role_privileges(w) p ON true GROUP BY w;

SELECT ok((SELECT n > 100 FROM kinds_before WHERE what = 'report'), '''report'' is a long list of privileges');
SELECT is(ARRAY(SELECT r.schema || '.' || r.name FROM ranread_internal.ranread_report_objects() r
                 WHERE CASE r.kind WHEN 'function' THEN NOT EXISTS (SELECT FROM pg_proc p WHERE p.proname = r.name
                                                                       AND p.pronamespace = to_regnamespace(r.schema))
                                   WHEN 'table' THEN to_regclass(r.schema || '.' || r.name) IS NULL
                                   ELSE to_regnamespace(r.name) IS NULL END),
          '{}'::text[], '... every entry of which names an object of the extension');
SELECT is(ARRAY(SELECT * FROM pg_temp.monitor_holds()
                EXCEPT SELECT privilege || ' ' || kind || ' ' || object FROM ranread_internal.ranread_role_privileges('report')
                ORDER BY 1), '{}'::text[],
    'pg_monitor holds nothing of the extension''s beyond ''report''');
SELECT is(ARRAY(SELECT privilege || ' ' || kind || ' ' || object FROM ranread_internal.ranread_role_privileges('report')
                EXCEPT SELECT * FROM pg_temp.monitor_holds()
                ORDER BY 1), '{}'::text[],
    '... and all of it: the extension grants pg_monitor exactly ''report''');

-- one grant and revoke of 'run' on pg_monitor
SELECT ok((SELECT count(*) > 0 FROM ranread_grant('pg_monitor', 'run')), '''run'' granted to pg_monitor');
SELECT ok((SELECT count(*) > 0 FROM ranread_revoke('pg_monitor', 'run')), '... and revoked');
SELECT ok(ranread_internal.ranread_role_holds('pg_monitor', 'report'), 'pg_monitor still holds ''report''');
SELECT ok(NOT ranread_internal.ranread_role_holds('pg_monitor', 'run')
          AND NOT has_function_privilege('pg_monitor', 'ranread_run_step(jsonb)', 'EXECUTE'),
    '... and no longer ''run''');
SELECT is(ARRAY(SELECT b.what || ' ' || b.n || ' -> ' || count(p.*)
                  FROM kinds_before b LEFT JOIN LATERAL ranread_internal.ranread_role_privileges(b.what) p ON true
                 GROUP BY b.what, b.n HAVING count(p.*) <> b.n),
          '{}'::text[],
    'every kind of use is as long as before');

CREATE ROLE tap_fixed_reporter LOGIN;
SELECT ok((SELECT count(*) > 0 FROM ranread_grant('tap_fixed_reporter', 'report')), 'a role granted ''report'' afterwards');
SELECT ok(ranread_internal.ranread_role_holds('tap_fixed_reporter', 'report'), '... holds all of it');
SET LOCAL ROLE tap_fixed_reporter;
SELECT lives_ok($$SELECT count(*) FROM ranread_summary$$, '... and reads ranread_summary');
RESET ROLE;

-- a DBA's own grant to pg_monitor is not 'report'
GRANT EXECUTE ON FUNCTION ranread_run_step(jsonb) TO pg_monitor;
SELECT ok(NOT EXISTS (SELECT FROM ranread_internal.ranread_role_privileges('report') WHERE object LIKE '%ranread_run_step%'),
    'a GRANT to pg_monitor by hand adds nothing to ''report''');
REVOKE EXECUTE ON FUNCTION ranread_run_step(jsonb) FROM pg_monitor;

SELECT is(pg_temp.error_of($$SELECT ranread_revoke('pg_monitor', 'report')$$),
    '22023: pg_monitor reads ranread''s history by the extension''s own grant, which ranread_revoke does not take back',
    'ranread_revoke refuses to take ''report'' from pg_monitor');
SELECT ok(ranread_internal.ranread_role_holds('pg_monitor', 'report'), '... which keeps it');

SELECT * FROM finish();
ROLLBACK;
