-- State, the power-loss durability check (1.1, src/advise/durability.c;
-- docs/writes-and-durability.md, "Does the storage keep what it flushes?").

CREATE SEQUENCE @extschema@.ranread_durability_seq;
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_durability_seq', '');

-- One row per durability test: what ranread_durability_start wrote and the
-- log of it (acknowledged: the last write the storage acknowledged, each
-- committed to this server's WAL on other storage as soon as acknowledged),
-- then what ranread_durability_check read back.
CREATE TABLE @extschema@.ranread_durability (
    durability     bigint PRIMARY KEY DEFAULT pg_catalog.nextval('@extschema@.ranread_durability_seq'),
    started        timestamptz NOT NULL DEFAULT pg_catalog.now(),
    tablespace     name NOT NULL,
    method         text NOT NULL,
    duration       interval NOT NULL,
    blocks         bigint NOT NULL,
    log            text,
    status         text NOT NULL DEFAULT 'running'
                   CHECK (status IN ('running', 'written', 'checked')),
    acknowledged   bigint NOT NULL DEFAULT 0,
    last_ack       timestamptz,
    stop_requested boolean NOT NULL DEFAULT false,
    written_until  timestamptz,
    ended_by       text,        -- why the writes ended before their duration (NULL: they did not)
    checked        timestamptz,
    checked_writes bigint,
    lost           bigint,
    torn           bigint,
    unacknowledged bigint,
    first_lost     bigint,
    verdict        text
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_durability', '');
