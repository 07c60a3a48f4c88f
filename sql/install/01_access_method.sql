-- 1.1: the table access method of targets.

-- src/target_am.c: VACUUM, VACUUM FULL,
-- ANALYZE and anti-wraparound autovacuum leave a target alone.
CREATE FUNCTION @extschema@.ranread_target_handler(internal)
RETURNS table_am_handler
AS 'MODULE_PATHNAME', 'ranread_target_handler'
LANGUAGE C;

CREATE ACCESS METHOD ranread_target TYPE TABLE HANDLER @extschema@.ranread_target_handler;
COMMENT ON ACCESS METHOD ranread_target IS 'ranread targets: benchmark data that maintenance leaves alone';

