-- ranread 1.0 -> 1.1.  Everything 1.1 changes in the SQL surface, in the
-- order the changes landed; CHANGELOG.md says why.  History (batches,
-- processes, intervals, sweeps) is kept as it is.
--
-- test/shell/15_upgrade.sh checks that a database updated with this script
-- has the same objects, with the same definitions, as a fresh 1.1.

\echo Use "ALTER EXTENSION ranread UPDATE TO '1.1'" to load this file. \quit

-- buffer_pages was added to 1.0 after its first builds: installations made
-- from those lack the column, or have it without its check.  Bring both to
-- the released 1.0 shape first.
ALTER TABLE @extschema@.ranread_batches ADD COLUMN IF NOT EXISTS buffer_pages text;
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_constraint
                    WHERE conrelid OPERATOR(pg_catalog.=) '@extschema@.ranread_batches'::pg_catalog.regclass
                      AND conname OPERATOR(pg_catalog.=) 'ranread_batches_buffer_pages_check') THEN
        ALTER TABLE @extschema@.ranread_batches ADD CONSTRAINT ranread_batches_buffer_pages_check
            CHECK (buffer_pages IN ('huge', 'small', 'mixed'));
    END IF;
END
$$;

-- Charts: one renderer draws every chart; ranread_svg(spec jsonb) gives it
-- to SQL (sql/install/30_charts.sql).  ranread_chart and ranread_timeline
-- keep their definitions; their C now draws through the renderer.
CREATE FUNCTION @extschema@.ranread_svg(spec jsonb)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_svg'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
REVOKE ALL ON FUNCTION @extschema@.ranread_svg(jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.ranread_svg(jsonb) TO pg_monitor;
