-- A canonical listing of everything the ranread extension owns, one line per
-- fact (comments too), free of OIDs: run in two databases and compare the output.  Used by
-- test/shell/15_upgrade.sh to check that ALTER EXTENSION ranread UPDATE gives
-- what CREATE EXTENSION gives.
WITH ext AS (
    SELECT oid, extversion, extconfig, extcondition FROM pg_extension WHERE extname = 'ranread'
), members AS (
    SELECT d.classid, d.objid
      FROM pg_depend d, ext
     WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'
       -- targets are data, not schema
       AND NOT (d.classid = 'pg_class'::regclass AND
                (SELECT relname FROM pg_class WHERE oid = d.objid) ~ '^ranread_target_[0-9a-f]{32}$')
)
SELECT line FROM (
    -- every member, by name
    SELECT 'member: ' || pg_describe_object(m.classid, m.objid, 0) AS line FROM members m
    UNION ALL
    -- functions: their whole definition, privileges and settings
    SELECT 'function: ' || p.oid::regprocedure || ' ' ||
           CASE WHEN p.prokind = 'a'
                THEN format('aggregate sfunc=%s stype=%s final=%s', a.aggtransfn, format_type(a.aggtranstype, NULL), a.aggfinalfn)
                ELSE pg_get_functiondef(p.oid) END ||
           ' acl=' || coalesce(p.proacl::text, 'default')
      FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
      LEFT JOIN pg_aggregate a ON a.aggfnoid = p.oid
    UNION ALL
    -- relations: kind, options, privileges
    SELECT format('relation: %s kind=%s persistence=%s options=%s acl=%s am=%s',
                  c.oid::regclass, c.relkind, c.relpersistence, c.reloptions,
                  coalesce(c.relacl::text, 'default'), am.amname)
      FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
      LEFT JOIN pg_am am ON am.oid = c.relam
    UNION ALL
    -- columns in order, with types, nullability and defaults
    SELECT format('column: %s %s %s %s%s default=%s', c.oid::regclass, lpad(row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum)::text, 3, '0'),
                  a.attname, format_type(a.atttypid, a.atttypmod),
                  CASE WHEN a.attnotnull THEN ' not null' ELSE '' END,
                  pg_get_expr(ad.adbin, ad.adrelid))
      FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
    UNION ALL
    -- constraints and indexes of member tables
    SELECT format('constraint: %s %s %s', c.oid::regclass, co.conname, pg_get_constraintdef(co.oid))
      FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
      JOIN pg_constraint co ON co.conrelid = c.oid
    UNION ALL
    SELECT format('index: %s', pg_get_indexdef(i.indexrelid))
      FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
      JOIN pg_index i ON i.indrelid = c.oid
    UNION ALL
    -- views: their query
    SELECT format('view: %s %s', c.oid::regclass, pg_get_viewdef(c.oid))
      FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
     WHERE c.relkind IN ('v', 'm')
    UNION ALL
    -- sequences: their parameters
    SELECT format('sequence: %s %s %s %s %s', s.seqrelid::regclass, format_type(s.seqtypid, NULL),
                  s.seqstart, s.seqincrement, s.seqmax)
      FROM members m JOIN pg_sequence s ON m.classid = 'pg_class'::regclass AND s.seqrelid = m.objid
    UNION ALL
    -- composite types: their attributes
    SELECT format('type: %s %s %s %s', t.oid::regtype, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod))
      FROM members m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
      JOIN pg_attribute a ON a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped
    UNION ALL
    -- access methods and their handlers
    SELECT format('access method: %s type=%s handler=%s', am.amname, am.amtype, am.amhandler::regproc)
      FROM members m JOIN pg_am am ON m.classid = 'pg_am'::regclass AND am.oid = m.objid
    UNION ALL
    -- what pg_dump keeps (pg_extension_config_dump)
    SELECT format('config dump: %s %s', c::regclass, coalesce(ext.extcondition[i], ''))
      FROM ext, unnest(ext.extconfig) WITH ORDINALITY AS u(c, i)
    UNION ALL
    -- comments: of every member, of its columns, and of the extension
    SELECT format('comment: %s %s', pg_describe_object(ds.classoid, ds.objoid, ds.objsubid), ds.description)
      FROM members m JOIN pg_description ds ON ds.classoid = m.classid AND ds.objoid = m.objid
    UNION ALL
    SELECT format('comment: extension %s', obj_description(ext.oid, 'pg_extension')) FROM ext
    UNION ALL
    SELECT 'version: ' || extversion FROM ext
) facts
ORDER BY line;
