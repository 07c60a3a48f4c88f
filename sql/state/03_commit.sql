-- State, the commit path (1.1, src/advise/commit.c): the ids of commit tests.

CREATE SEQUENCE @extschema@.ranread_commit_test_seq;
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_commit_test_seq', '');
