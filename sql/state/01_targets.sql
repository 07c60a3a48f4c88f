-- State: targets are relations of ranread's own table access method
-- (src/target/target_am.c: VACUUM, VACUUM FULL, ANALYZE and anti-wraparound
-- autovacuum leave a target alone), in a schema of their own.  The
-- handler function is part of the access method (it names a C symbol and
-- never changes), so it lives here with it; the guard that keeps
-- privileges off targets is code (sql/code/01_access_method.sql).

-- src/target/target_am.c: VACUUM, VACUUM FULL,
-- ANALYZE and anti-wraparound autovacuum leave a target alone.
CREATE FUNCTION ranread_internal.ranread_target_handler(internal)
RETURNS table_am_handler
AS 'MODULE_PATHNAME', 'ranread_target_handler'
LANGUAGE C;

CREATE ACCESS METHOD ranread_target TYPE TABLE HANDLER ranread_internal.ranread_target_handler;


-- Where targets live: a schema of the extension's own, on nobody's
-- search_path, with no privilege for anyone but the extension's owner.
-- GRANT ... ON ALL TABLES IN SCHEMA of the users' schemas never reaches a
-- target there, and no other role can name (or lock) one.  (src/target/target.c)
CREATE SCHEMA ranread_target;
