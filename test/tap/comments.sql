-- Every object a user meets explains itself (\df+, \dv+, \d+, \dx+): every
-- function, aggregate, view, table, sequence and type the extension owns in
-- its schema has a comment, and so do the columns whose names do not say
-- it all and every ranread.* setting (a short and a long description).  A
-- new object without a comment fails here.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(9);

CREATE TEMP TABLE ext_objects AS
SELECT pg_describe_object(d.classid, d.objid, 0) AS object,
       obj_description(d.objid, c.relname) AS description
  FROM pg_depend d
  JOIN pg_class c ON c.oid = d.classid
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread'
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND ((d.classid = 'pg_proc'::regclass
         AND (SELECT pronamespace FROM pg_proc WHERE oid = d.objid) = e.extnamespace)
     OR (d.classid = 'pg_class'::regclass
         AND (SELECT relnamespace FROM pg_class WHERE oid = d.objid) = e.extnamespace)
     OR (d.classid = 'pg_type'::regclass
         AND (SELECT typnamespace FROM pg_type WHERE oid = d.objid) = e.extnamespace));

SELECT cmp_ok((SELECT count(*)::integer FROM ext_objects), '>', 60,
    'the extension''s schema holds its functions, views, tables and types');
SELECT is(ARRAY(SELECT object FROM ext_objects WHERE coalesce(btrim(description), '') = '' ORDER BY object), '{}'::text[],
    'every function, view, table, sequence and type of the extension in its schema has a comment');
SELECT is(ARRAY(SELECT object FROM ext_objects WHERE description LIKE '%' || E'\n' || '%' ORDER BY object), '{}'::text[],
    'each comment is one line');
SELECT ok((SELECT obj_description(oid, 'pg_extension') LIKE '%ranread_help()%' FROM pg_extension WHERE extname = 'ranread'),
    'the extension''s own comment (\dx) says where to start: ranread_help()');

-- Columns whose names do not say it all
SELECT is(ARRAY(SELECT format('%s.%s', r, c)
                  FROM unnest(ARRAY['ranread_batches', 'ranread_summary_full']) r,
                       unnest(ARRAY['busy', 'ended_steady', 'steady', 'steady_excursion', 'steady_slope',
                                    'notes', 'buffer_pages', 'status', 'mbps', 'avg_ms']) c
                 WHERE coalesce(col_description(r::regclass, (SELECT attnum FROM pg_attribute
                                                             WHERE attrelid = r::regclass AND attname = c)), '') = ''
                 ORDER BY 1),
          '{}'::text[],
    'ranread_batches and ranread_summary_full explain busy, ended_steady, steady, the SNIA figures, notes, buffer_pages, status and the units of the figures');
SELECT ok(col_description('ranread_summary_full'::regclass,
                          (SELECT attnum FROM pg_attribute WHERE attrelid = 'ranread_summary_full'::regclass AND attname = 'ended_steady'))
          LIKE '%steady_state%',
    'ended_steady says it is the steady_state rule''s early end, told from steady');
SELECT ok((SELECT bool_and(col_description(c.oid, a.attnum) LIKE '%ms%')
             FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
            WHERE c.relname IN ('ranread_summary', 'ranread_summary_full', 'ranread_process_summary', 'ranread_results', 'ranread_group_summary')
              AND c.relnamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'ranread')
              AND a.attname LIKE '%\_ms'),
    'every latency column of the summaries and the results gives its unit (ms)');

-- Settings
LOAD 'ranread';
SELECT cmp_ok((SELECT count(*)::integer FROM pg_settings WHERE name LIKE 'ranread.%'), '>=', 4,
    'the ranread.* settings are defined once the library is loaded');
SELECT is(ARRAY(SELECT name FROM pg_settings
                 WHERE name LIKE 'ranread.%'
                   AND (coalesce(short_desc, '') = '' OR coalesce(extra_desc, '') = '')
                 ORDER BY name), '{}'::text[],
    'every ranread.* setting has a short and a long description (SHOW ALL, pg_settings)');

SELECT * FROM finish();
ROLLBACK;
