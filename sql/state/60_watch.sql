-- State, keeping watch on the storage (1.1, docs/keeping-watch.md "Keeping
-- watch"): probes (small paced batches of a tablespace, each beside its batch
-- in ranread_batches), the thresholds a tablespace is judged by, its baseline,
-- and the verdict of every probe.

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

-- What a probe of a tablespace is judged by: the p99 above which its
-- status is degraded and critical, the change that counts as slower, how
-- many first probes make its baseline when none is pinned, the tests'
-- significance level, and (1.2) how many probes in a row must show a
-- status before the tablespace takes it.  A tablespace without a row has
-- the defaults (5 ms, 10 ms, 1.25, 5, 0.001, 3).
CREATE TABLE @extschema@.ranread_health_thresholds (
    tablespace       name PRIMARY KEY,
    p99_degraded_ms  float8 NOT NULL DEFAULT 5,
    p99_critical_ms  float8 NOT NULL DEFAULT 10,
    slower_factor    float8 NOT NULL DEFAULT 1.25,
    baseline_probes  integer NOT NULL DEFAULT 5,
    alpha            float8 NOT NULL DEFAULT 0.001,
    hold_probes      integer NOT NULL DEFAULT 3
                     CONSTRAINT ranread_health_thresholds_hold_probes CHECK (hold_probes BETWEEN 2 AND 100),
    CHECK (p99_degraded_ms > 0 AND p99_critical_ms > p99_degraded_ms),
    CHECK (slower_factor >= 1 AND slower_factor <= 1000),
    CHECK (baseline_probes BETWEEN 1 AND 1000),
    CHECK (alpha > 0 AND alpha < 1)
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_health_thresholds', '');

-- The baseline of a tablespace: the batches it merges and their merged
-- histogram; pinned by ranread_baseline_set, or else the first
-- baseline_probes probes since "since" (the tablespace's first probe, or
-- its last ranread_baseline_reset).  1.2: the probes of an automatic
-- baseline that differ from the rest of them (a stall) are left out of its
-- histogram, named in left_out, with why.
CREATE TABLE @extschema@.ranread_baselines (
    tablespace  name PRIMARY KEY,
    batches     bigint[] NOT NULL DEFAULT '{}',
    histogram   bytea,
    pinned      boolean NOT NULL DEFAULT false,
    since       timestamptz NOT NULL DEFAULT pg_catalog.now(),
    set_at      timestamptz,
    left_out    bigint[] NOT NULL DEFAULT '{}',
    left_out_reason text
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_baselines', '');

-- A verdict per probe: the probe's figures, its baseline's, the comparison
-- and the status.  verdict 'baseline': the probe is one of the first that
-- make the baseline; NULL: its batch has no latency histogram.  1.2:
-- probe_status is what the probe alone shows, status the tablespace's
-- after it (a change needs hold_probes probes in a row: probes), test and
-- effect the test that decided the probe's reading and its effect with an
-- interval (factor_low, factor_high for a comparison's factor).
CREATE TABLE @extschema@.ranread_probe_verdicts (
    batch            bigint PRIMARY KEY,
    tablespace       name NOT NULL,
    probed_at        timestamptz NOT NULL,
    ios              bigint,
    iops             float8,
    p50_ms           float8,
    p99_ms           float8,
    baseline_p50_ms  float8,
    baseline_p99_ms  float8,
    p50_factor       float8,
    p99_factor       float8,
    verdict          text CHECK (verdict IN ('baseline', 'same', 'slower', 'faster')),
    factor           float8,
    confidence       float8,
    status           text NOT NULL CHECK (status IN ('ok', 'slower', 'degraded', 'critical', 'unknown')),
    previous_status  text,
    reason           text,
    probe_status     text CHECK (probe_status IN ('ok', 'slower', 'degraded', 'critical', 'unknown')),
    test             text,
    effect           text,
    factor_low       float8,
    factor_high      float8,
    probes           bigint[]
);
CREATE INDEX ranread_probe_verdicts_tablespace ON @extschema@.ranread_probe_verdicts (tablespace, probed_at);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_probe_verdicts', '');
