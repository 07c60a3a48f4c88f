-- 1.1, atomic writes (src/target/fsinfo.c, fsinfo_atomic): does the storage under
-- a tablespace guarantee that an 8 kB write is written whole or not at all?

-- What statx (STATX_WRITE_ATOMIC, Linux 6.11+) says of a file of the
-- tablespace (NULL: the database's own): the atomic write sizes and
-- segments, whether 8 kB is one of them, and a phrase for a person.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_atomic_writes(tablespace name,
    OUT asked text, OUT reported boolean, OUT unit_min integer, OUT unit_max integer,
    OUT segments_max integer, OUT atomic_8k boolean, OUT note text)
AS 'MODULE_PATHNAME', 'ranread_atomic_writes'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- ranread_advise's row on full_page_writes from the facts, pure so that its
-- tests can feed either answer: places are the tablespaces the setting
-- covers (the advised one and the database's default, where the catalogs
-- are), atomic whether statx guarantees atomic 8 kB writes there, notes
-- what it said.  Not guaranteed on every one: keep it on.  Guaranteed: the
-- current value stays, with the conditions under which off is safe.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_full_page_writes(
    places name[], atomic boolean[], notes text[], current text,
    OUT suggested text, OUT figures text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN a.all_atomic THEN $4 ELSE 'on' END,
           a.facts || CASE
               WHEN a.all_atomic
               THEN ': atomic 8 kB writes guaranteed: full_page_writes = off is safe only if every page write reaches that storage as one such write: '
                    'the guarantee is for a single aligned write issued with RWF_ATOMIC and O_DIRECT, and PostgreSQL 15 writes pages through the page cache without RWF_ATOMIC, '
                    'which may split them; and only if every tablespace, pg_wal''s backups and any standby''s storage give the same guarantee. Otherwise keep it on'
               ELSE ': not guaranteed: keep full_page_writes = on (a page torn by a power cut or a crash mid-write is repaired from the full page image in the WAL; without it the page is corrupt)'
           END
      FROM (SELECT coalesce(bool_and(coalesce(u.a, false)), false) AND count(*) > 0 AS all_atomic,
                   string_agg(format('%s: %s', u.p, coalesce(u.n, 'unknown')), '; ' ORDER BY u.i) AS facts
              FROM unnest($1, $2, $3) WITH ORDINALITY AS u(p, a, n, i)) a
$$;
