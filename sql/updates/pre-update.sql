-- The start of every upgrade script (sql/README.md, "What the Makefile
-- builds"), before the version's state changes and the whole of sql/code/.
--
-- 1. The views to make again.  The build lists here the views whose
--    definition changed since the version updated from (scripts/changed-views);
--    they are dropped, and with them the views of the extension that depend
--    on them, so that sql/code/ makes them again whatever their columns
--    became.  An object outside the extension that depends on one of them
--    (a DBA's view over ranread_summary) would go with them: the update is
--    refused instead, naming it.  The privileges other roles held on the
--    dropped views are kept aside and given again at the end
--    (post-update.sql).
-- 2. The functions as they are now, each with a row version, kept aside:
--    at the end, a function of the extension that sql/code/ did not make
--    again no longer exists in this version and is dropped
--    (post-update.sql).  So removing a function, or changing its
--    arguments, needs no line in the version's update: only a changed
--    result type does (CREATE OR REPLACE refuses it), with a DROP there.
--
-- What is kept aside travels in settings of this transaction
-- (ranread_upgrade.*), as an extension script makes no table of its own.
DO $$
DECLARE
    changed pg_catalog.text[] := ARRAY[@CHANGED_VIEWS@]::pg_catalog.text[];
    ext pg_catalog.oid;
    doomed pg_catalog.oid[];
    outside pg_catalog.text;
    acls pg_catalog.text;
    v pg_catalog.oid;
BEGIN
    SELECT e.oid INTO ext FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'ranread';

    -- the changed views, and every view of the extension that depends on
    -- one of them
    WITH RECURSIVE d(oid) AS (
        SELECT c.oid
          FROM pg_catalog.unnest(changed) n
          JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(n)
        UNION
        SELECT r.ev_class
          FROM d
          JOIN pg_catalog.pg_depend dep ON dep.refobjid OPERATOR(pg_catalog.=) d.oid
                                       AND dep.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
                                       AND dep.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass
          JOIN pg_catalog.pg_rewrite r ON r.oid OPERATOR(pg_catalog.=) dep.objid
          JOIN pg_catalog.pg_depend m ON m.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
                                     AND m.objid OPERATOR(pg_catalog.=) r.ev_class
                                     AND m.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
                                     AND m.refobjid OPERATOR(pg_catalog.=) ext
                                     AND m.deptype OPERATOR(pg_catalog.=) 'e'
         WHERE r.ev_class OPERATOR(pg_catalog.<>) d.oid
    )
    SELECT pg_catalog.array_agg(d.oid) INTO doomed FROM d;

    -- what else depends on them, or on their row types: nothing may be
    -- dropped that the extension does not make again
    SELECT pg_catalog.string_agg(DISTINCT COALESCE(pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, r.ev_class, 0),
                                                   pg_catalog.pg_describe_object(dep.classid, dep.objid, dep.objsubid)), ', ')
      INTO outside
      FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_depend dep
        ON (dep.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
            AND dep.refobjid OPERATOR(pg_catalog.=) c.oid)
        OR (dep.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_type'::pg_catalog.regclass
            AND dep.refobjid OPERATOR(pg_catalog.=) c.reltype)
      LEFT JOIN pg_catalog.pg_rewrite r   -- a view's rule: the view
        ON dep.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass
       AND r.oid OPERATOR(pg_catalog.=) dep.objid
     WHERE c.oid OPERATOR(pg_catalog.=) ANY (doomed)
       AND dep.deptype OPERATOR(pg_catalog.<>) 'i'
       AND dep.classid OPERATOR(pg_catalog.<>) 'pg_catalog.pg_extension'::pg_catalog.regclass
       AND NOT EXISTS (SELECT FROM pg_catalog.pg_rewrite r
                        WHERE dep.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass
                          AND r.oid OPERATOR(pg_catalog.=) dep.objid
                          AND r.ev_class OPERATOR(pg_catalog.=) ANY (doomed))
       AND NOT (dep.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_type'::pg_catalog.regclass
                AND dep.objid OPERATOR(pg_catalog.=) c.reltype);
    IF outside IS NOT NULL THEN
        RAISE EXCEPTION 'ranread cannot be updated while other objects depend on its views: %', outside
            USING ERRCODE = 'dependent_objects_still_exist',
                  DETAIL = pg_catalog.format('This version changes %s, which it drops and makes again.',
                                             (SELECT pg_catalog.string_agg(x::pg_catalog.regclass::pg_catalog.text, ', ')
                                                FROM pg_catalog.unnest(doomed) x)),
                  HINT = 'Drop those objects, run ALTER EXTENSION ranread UPDATE again, then create them again.';
    END IF;

    -- the privileges their owner gave other roles on them
    SELECT pg_catalog.string_agg(pg_catalog.concat_ws(E'\t', c.oid::pg_catalog.regclass::pg_catalog.text,
                                                      CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'
                                                           ELSE pg_catalog.quote_ident(r.rolname) END,
                                                      a.privilege_type, a.is_grantable::pg_catalog.text), E'\n')
      INTO acls
      FROM pg_catalog.pg_class c
     CROSS JOIN LATERAL pg_catalog.aclexplode(c.relacl) a
      LEFT JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
     WHERE c.oid OPERATOR(pg_catalog.=) ANY (doomed)
       AND a.grantor OPERATOR(pg_catalog.=) c.relowner
       AND a.grantee OPERATOR(pg_catalog.<>) c.relowner;
    PERFORM pg_catalog.set_config('ranread_upgrade.view_acls', COALESCE(acls, ''), true);

    -- each with CASCADE: what depends on it is among them (checked above)
    FOREACH v IN ARRAY COALESCE(doomed, '{}')
    LOOP
        IF EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) v) THEN
            EXECUTE pg_catalog.format('DROP VIEW %s CASCADE', v::pg_catalog.regclass);
        END IF;
    END LOOP;

    -- every function of the extension as it is now: the row version of its
    -- dependency on its schema, which CREATE OR REPLACE writes anew and a
    -- GRANT, REVOKE, COMMENT or change of owner leaves as it is
    PERFORM pg_catalog.set_config('ranread_upgrade.functions',
        COALESCE((SELECT pg_catalog.string_agg(e.objid::pg_catalog.text || ':' || s.ctid::pg_catalog.text, ' ')
                    FROM pg_catalog.pg_depend e
                    JOIN pg_catalog.pg_depend s
                      ON s.classid OPERATOR(pg_catalog.=) e.classid AND s.objid OPERATOR(pg_catalog.=) e.objid
                     AND s.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
                   WHERE e.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
                     AND e.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
                     AND e.refobjid OPERATOR(pg_catalog.=) ext
                     AND e.deptype OPERATOR(pg_catalog.=) 'e'), ''),
        true);
END
$$;
