-- 1.1, keeping watch on the storage (README, "Keeping watch"): probes are
-- small paced batches, each listed here beside its batch in ranread_batches.
-- New in 1.1, so the upgrade script includes this file whole.  The probe
-- itself, its cap and its schedule, and the baselines, comparisons and
-- health built on the probes, live in the files after this one.

-- One row per probe: which batch it was, the tablespace it watched, when it
-- ran, and the pg_cron job that ran it (NULL when called by hand).  No
-- foreign key to ranread_batches: ranread_reset is to remove both together,
-- and a dump restores either table without ordering them.  Only the probe
-- writes a row (as the extension's owner, 61_probe.sql), at the time its
-- batch ran: always a finite time (1.2), as a row at 'infinity' would stay
-- the latest of its tablespace for ever.
CREATE TABLE @extschema@.ranread_probes (
    batch          bigint PRIMARY KEY,
    tablespace     name NOT NULL,
    probed_at      timestamptz NOT NULL DEFAULT pg_catalog.now()
                   CONSTRAINT ranread_probes_probed_at_finite CHECK (pg_catalog.isfinite(probed_at)),
    job            text
);
CREATE INDEX ranread_probes_tablespace ON @extschema@.ranread_probes (tablespace, probed_at);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_probes', '');
COMMENT ON TABLE @extschema@.ranread_probes IS
    'ranread probes: the small paced batches that keep watch on a tablespace, one row per probe';
