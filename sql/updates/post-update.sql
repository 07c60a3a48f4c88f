-- The end of every upgrade script (sql/README.md, "What the Makefile
-- builds"), after the version's state changes and the whole of sql/code/ (which made every
-- function and view of this version, their comments and the privileges a
-- fresh install gives).
--
-- 1. A function of the extension that sql/code/ did not make again (the
--    row version of its dependency on its schema is the one pre-update.sql
--    kept aside) is not part of this version: dropped.  When this version
--    has one function of that name (its arguments changed: a new option,
--    say), the privileges its owner had given other roles on the old one
--    are given on the new one first, so that a role granted ranread_run
--    keeps it.  The access method's handler is state, never made again,
--    and stays.
-- 2. The views pre-update.sql dropped are given again the privileges their
--    owner had given other roles (a DBA's GRANT SELECT ON ranread_summary).
-- 3. A role granted a kind of use ('report', 'run', 'probe', 'export',
--    known by a function only that kind grants, held by the role itself)
--    is granted the kind again, as this version's ranread_grant gives it,
--    so that what this version adds to a kind reaches it.
DO $$
DECLARE
    kept pg_catalog.text[] := pg_catalog.string_to_array(
        pg_catalog.current_setting('ranread_upgrade.functions', true), ' ');
    acl pg_catalog.text;
    f pg_catalog.text[];
    fn pg_catalog.regprocedure;
    g record;
BEGIN
    FOR fn IN
        SELECT p.oid::pg_catalog.regprocedure
          FROM pg_catalog.pg_depend d
          JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) d.objid
          JOIN pg_catalog.pg_depend s
            ON s.classid OPERATOR(pg_catalog.=) d.classid AND s.objid OPERATOR(pg_catalog.=) d.objid
           AND s.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
         WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
           AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
           AND d.refobjid OPERATOR(pg_catalog.=)
               (SELECT e.oid FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'ranread')
           AND d.deptype OPERATOR(pg_catalog.=) 'e'
           AND (p.oid::pg_catalog.text || ':' || s.ctid::pg_catalog.text) OPERATOR(pg_catalog.=) ANY (kept)
           AND NOT EXISTS (SELECT FROM pg_catalog.pg_am a WHERE a.amhandler OPERATOR(pg_catalog.=) p.oid)
         ORDER BY p.prokind OPERATOR(pg_catalog.=) 'a' DESC   -- aggregates before their support functions
    LOOP
        FOR g IN
            SELECT DISTINCT CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'
                                 ELSE pg_catalog.quote_ident(r.rolname) END AS grantee,
                   a.is_grantable, n.oid::pg_catalog.regprocedure AS heir
              FROM pg_catalog.pg_proc p
             CROSS JOIN LATERAL pg_catalog.aclexplode(p.proacl) a
              LEFT JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
              JOIN pg_catalog.pg_proc n ON n.proname OPERATOR(pg_catalog.=) p.proname
                                       AND n.pronamespace OPERATOR(pg_catalog.=) p.pronamespace
                                       AND n.oid OPERATOR(pg_catalog.<>) p.oid
             WHERE p.oid OPERATOR(pg_catalog.=) fn
               AND a.grantor OPERATOR(pg_catalog.=) p.proowner AND a.grantee OPERATOR(pg_catalog.<>) p.proowner
               AND (SELECT pg_catalog.count(*) FROM pg_catalog.pg_proc x
                     WHERE x.proname OPERATOR(pg_catalog.=) p.proname
                       AND x.pronamespace OPERATOR(pg_catalog.=) p.pronamespace) OPERATOR(pg_catalog.=) 2
        LOOP
            EXECUTE pg_catalog.format('GRANT EXECUTE ON ROUTINE %s TO %s%s', g.heir, g.grantee,
                                      CASE WHEN g.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
        END LOOP;
        EXECUTE pg_catalog.format('DROP ROUTINE %s', fn);
    END LOOP;

    FOREACH acl IN ARRAY pg_catalog.string_to_array(
        NULLIF(pg_catalog.current_setting('ranread_upgrade.view_acls', true), ''), E'\n')
    LOOP
        f := pg_catalog.string_to_array(acl, E'\t');
        IF pg_catalog.to_regclass(f[1]) IS NOT NULL THEN
            EXECUTE pg_catalog.format('GRANT %s ON %s TO %s%s', f[3], f[1], f[2],
                                      CASE WHEN f[4]::boolean THEN ' WITH GRANT OPTION' ELSE '' END);
        END IF;
    END LOOP;

    FOR g IN
        SELECT DISTINCT a.grantee::pg_catalog.regrole AS role, k.what
          FROM (VALUES ('ranread_report', 'report'), ('ranread_setup', 'run'),
                       ('ranread_export', 'export'), ('ranread_probe', 'probe')) k(marker, what)
          JOIN pg_catalog.pg_proc p ON p.proname OPERATOR(pg_catalog.=) k.marker
                                   AND p.pronamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
         CROSS JOIN LATERAL pg_catalog.aclexplode(p.proacl) a
          JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
         WHERE a.privilege_type OPERATOR(pg_catalog.=) 'EXECUTE'
           AND a.grantee OPERATOR(pg_catalog.<>) p.proowner
           AND r.rolname OPERATOR(pg_catalog.<>) 'pg_monitor'
         ORDER BY 1, 2
    LOOP
        PERFORM @extschema@.ranread_grant(g.role, g.what);
    END LOOP;
END
$$;
