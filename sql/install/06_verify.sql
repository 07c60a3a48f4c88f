-- 1.1, verified writes and reads (README, "Verified writes"): the bad
-- blocks a batch's verify found, and ranread_verify, which checks a whole
-- target once.  New in 1.1, so the upgrade script includes this file whole.

-- The first bad blocks (at most 100) of every batch that verified, and of
-- every ranread_verify call (batch and grp NULL; the rows of one call share
-- its start time, at).  kind: corrupt (no ranread stamp, or the page's
-- checksum does not match), wrong_block (a whole page of another block or
-- target: a misdirected write), lost (older than a write the batch had
-- acknowledged before the read), missing (past the end of a truncated file).
CREATE TABLE @extschema@.ranread_verify_errors (
    batch          bigint,
    grp            integer,
    target         name NOT NULL,
    block          bigint NOT NULL,
    kind           text NOT NULL CHECK (kind IN ('corrupt', 'wrong_block', 'lost', 'missing')),
    expected       text NOT NULL,
    found          text NOT NULL,
    at             timestamptz NOT NULL
);
CREATE INDEX ranread_verify_errors_batch ON @extschema@.ranread_verify_errors (batch);

SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_verify_errors', '');

-- Read a whole target once (O_DIRECT) and check every block's stamp and
-- checksum: one row of counts.  Lost writes need a batch's acknowledgements:
-- ranread_run(..., verify => true) finds those.
CREATE OR REPLACE FUNCTION @extschema@.ranread_verify(
    target name DEFAULT 'ranread',
    OUT blocks bigint,
    OUT errors bigint,
    OUT corrupt bigint,
    OUT wrong_block bigint,
    OUT missing bigint,
    OUT no_checksum bigint,
    OUT newest_batch bigint,
    OUT max_sequence bigint,
    OUT seconds numeric)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_verify'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
