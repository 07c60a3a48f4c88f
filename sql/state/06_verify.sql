-- State, verified writes and reads (1.1, docs/writes-and-durability.md
-- "Verified writes"): the bad blocks a batch's verify or ranread_verify found.

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
