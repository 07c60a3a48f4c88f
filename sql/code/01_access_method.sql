-- The guard that keeps privileges off targets (their access method and
-- schema are state: sql/state/01_targets.sql).

COMMENT ON ACCESS METHOD ranread_target IS 'ranread targets: benchmark data that maintenance leaves alone';
COMMENT ON SCHEMA ranread_target IS 'ranread targets: benchmark data that ranread_setup makes and ranread_purge drops; no privileges';

-- Targets take no privileges: pg_dump never dumps a target (an extension
-- member made after CREATE EXTENSION) but would dump a grant on one, and
-- the restore of that grant would fail.  A GRANT that reaches a target is
-- refused, and so is a REVOKE that leaves one with other than its owner's
-- default privileges; ranread_setup takes default privileges off a new one.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_target_grant_check()
RETURNS event_trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rel regclass;
BEGIN
    SELECT c.oid INTO rel
      FROM pg_class c
     WHERE (c.relnamespace = to_regnamespace('ranread_target')
            OR c.relam = (SELECT a.oid FROM pg_am a WHERE a.amname = 'ranread_target'))
       AND c.relacl IS NOT NULL
       AND c.relacl <> acldefault('r', c.relowner)
     LIMIT 1;
    IF rel IS NOT NULL THEN
        RAISE EXCEPTION 'ranread target relation % takes no privileges', rel
            USING ERRCODE = 'invalid_grant_operation',
                  DETAIL = 'A target is benchmark data that only ranread reads. pg_dump never dumps a target, so it would dump the grant without the relation, and the restore would fail.',
                  HINT = 'Targets are in schema ranread_target, apart from every other schema: grant on the tables of the other schemas only. A role that runs ranread needs EXECUTE on its functions, and pg_monitor reads ranread_targets.';
    END IF;
END
$$;

-- (made once: an event trigger has no CREATE OR REPLACE)
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_event_trigger
                    WHERE evtname OPERATOR(pg_catalog.=) 'ranread_target_grants') THEN
        CREATE EVENT TRIGGER ranread_target_grants ON ddl_command_end
            WHEN TAG IN ('GRANT', 'REVOKE')
            EXECUTE FUNCTION ranread_internal.ranread_target_grant_check();
    END IF;
END
$$;
-- also under session_replication_role = replica (a restore, a replica's apply)
ALTER EVENT TRIGGER ranread_target_grants ENABLE ALWAYS;
