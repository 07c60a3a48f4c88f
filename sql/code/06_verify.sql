-- 1.1, verified writes and reads (docs/writes-and-durability.md, "Verified
-- writes"): the bad blocks a batch's verify found, and ranread_verify, which
-- checks a whole target once.


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
