-- The SQL surface of ranread 1.0 (docs/reference.md, "Reference"): what
-- CREATE EXTENSION installs, the functions with their arguments and
-- defaults, the columns of the history and the views, the ranread.engine
-- setting, and who may use what.  A change here is a change users see:
-- update docs/reference.md with it.
CREATE EXTENSION ranread;

-- A superuser-only, non-relocatable extension at version 1.1; 1.0 stays
-- installable, for ALTER EXTENSION ranread UPDATE
SELECT name, version, superuser, trusted, relocatable
  FROM pg_available_extension_versions
 WHERE name = 'ranread'
 ORDER BY version;
SELECT extversion FROM pg_extension WHERE extname = 'ranread';

-- Every object of the extension
\dx+ ranread

-- Every function: arguments with their defaults, and what it returns
\pset format unaligned
\x on
SELECT p.oid::regproc AS function,
       pg_get_function_arguments(p.oid) AS arguments,
       pg_get_function_result(p.oid) AS result
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread'
 ORDER BY p.proname, pg_get_function_arguments(p.oid) COLLATE "C";

-- The row types of ranread_setup and ranread_run
SELECT t.typname, string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', '
                             ORDER BY a.attnum) AS columns
  FROM pg_type t
  JOIN pg_attribute a ON a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped
 WHERE t.typname IN ('ranread_setup_result', 'ranread_run_result')
 GROUP BY t.typname
 ORDER BY t.typname;
\x off
\pset format aligned

-- The history and the views over it, column by column
SELECT c.relname, c.relkind, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) AS type
  FROM pg_class c
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
 WHERE c.relname IN ('ranread_results', 'ranread_summary', 'ranread_targets', 'ranread_intervals',
                     'ranread_summary_full', 'ranread_process_summary')
   AND c.relnamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'ranread')
 ORDER BY c.relname, a.attnum;

-- pg_dump keeps the history (and never the targets or their catalog)
SELECT c::regclass AS dumped
  FROM pg_extension e, unnest(e.extconfig) AS c
 WHERE e.extname = 'ranread'
 ORDER BY c::regclass::text COLLATE "C";

-- The engine setting: auto, io_uring or sync; superusers set it
LOAD 'ranread';
SELECT name, setting, enumvals, context, boot_val
  FROM pg_settings
 WHERE name = 'ranread.engine';
SET ranread.engine = 'posix_aio';
SET ranread.engine = 'sync';
SHOW ranread.engine;
RESET ranread.engine;

-- No function of the extension is executable by PUBLIC
SELECT p.oid::regprocedure AS executable_by_public
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread'
 WHERE has_function_privilege('public', p.oid, 'EXECUTE')
 ORDER BY p.oid::regprocedure::text COLLATE "C";

-- The history is readable by pg_monitor and by no one else
SELECT c.relname,
       has_table_privilege('pg_monitor', c.oid, 'SELECT') AS pg_monitor_reads,
       has_table_privilege('pg_monitor', c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE') AS pg_monitor_writes,
       has_table_privilege('public', c.oid, 'SELECT') AS public_reads
  FROM pg_class c
 WHERE c.relname IN ('ranread_results', 'ranread_summary', 'ranread_targets', 'ranread_intervals',
                     'ranread_summary_full', 'ranread_process_summary')
   AND c.relnamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'ranread')
 ORDER BY c.relname;
