-- ranread_setup and ranread_purge refuse bad arguments before touching any
-- file, with an error that names the argument, the value and what is
-- allowed (docs/design.md, "Bad input").  Errors that depend on the
-- machine (free space, tmpfs) are in test/shell/.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ranread;
\set VERBOSITY default

-- size: pg_size_bytes syntax, at least 1 MB
SELECT * FROM ranread_setup(NULL);
SELECT * FROM ranread_setup('');
SELECT * FROM ranread_setup('lots');
SELECT * FROM ranread_setup('1 GiB');
SELECT * FROM ranread_setup('-1GB');
SELECT * FROM ranread_setup('0');
SELECT * FROM ranread_setup('1048575');
SELECT * FROM ranread_setup('100kB');

-- tablespace: an existing one that can hold relations
SELECT * FROM ranread_setup('1MB', NULL);
SELECT * FROM ranread_setup('1MB', '');
SELECT * FROM ranread_setup('1MB', 'no_such_tablespace');
SELECT * FROM ranread_setup('1MB', 'pg_global');

-- target: a non-empty name
SELECT * FROM ranread_setup('1MB', target => NULL);
SELECT * FROM ranread_setup('1MB', target => '');

-- none of them made a target
SELECT count(*) AS targets FROM ranread_targets;
SELECT count(*) AS target_relations
  FROM pg_class c
  JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread'
 WHERE c.relpersistence = 'u';

-- ranread_purge: a non-empty name of an existing target
SELECT ranread_purge(NULL);
SELECT ranread_purge('');
SELECT ranread_purge('no_such_target');
SELECT ranread_purge();

-- A failed re-setup keeps the target it would have replaced
SET client_min_messages = error;
SELECT target, tablespace, size_bytes FROM ranread_setup('2MB', target => 'kept');
SET client_min_messages = warning;
SELECT * FROM ranread_setup('1kB', target => 'kept');
SELECT * FROM ranread_setup('2MB', 'no_such_tablespace', 'kept');
SELECT target, tablespace, size_bytes, state FROM ranread_targets;
SELECT ranread_purge('kept');
SELECT ranread_purge('kept');
SELECT count(*) AS targets FROM ranread_targets;
