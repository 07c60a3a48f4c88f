-- ranread_grant and ranread_revoke given what is not a role or not a kind
-- of use (README, "Privileges"): every refusal names the function, the
-- argument and the value, with its SQLSTATE, and nothing is granted:
--  - a regrole given as a number that is no role (0, which prints as '-',
--    and an OID no role has): 42704 naming the OID, not a syntax error of
--    the GRANT statement built from it
--  - a kind of use 100,000 characters long: the message quotes its first
--    100 characters, not all of it
--  - PUBLIC is not a role ranread_grant takes (42704 from regrole)
--  - a role granted 'run' may not grant itself more, nor revoke another's
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(11);
\ir lib/util.psql

CREATE ROLE tap_bad_runner;
CREATE ROLE tap_bad_reporter;
SELECT count(*) FROM ranread_grant('tap_bad_runner', 'run');
SELECT count(*) FROM ranread_grant('tap_bad_reporter', 'report');

SELECT is(pg_temp.error_of($$SELECT ranread_grant(0, 'run')$$),
    '42704: role of ranread_grant does not exist: OID 0', 'ranread_grant(0, ...): no such role, naming the OID');
SELECT is(pg_temp.error_of($$SELECT ranread_revoke(4294967295::oid::regrole, 'report')$$),
    '42704: role of ranread_revoke does not exist: OID 4294967295', 'ranread_revoke of an OID no role has: alike');
SELECT is(pg_temp.error_of($$SELECT ranread_grant(0, 'run', verbose => true)$$),
    '42704: role of ranread_grant does not exist: OID 0', '... with verbose too');
SELECT is(pg_temp.error_of($$SELECT ranread_grant('tap_bad_reporter', repeat('x', 100000))$$),
    format('22023: invalid what for ranread_grant: ''%s...''', repeat('x', 100)),
    'a kind of use of 100,000 characters: the message quotes its first 100');
SELECT is(pg_temp.error_of($$SELECT ranread_grant('public', 'report')$$),
    '42704: role "public" does not exist', 'PUBLIC is no role ranread_grant takes');

SET LOCAL ROLE tap_bad_runner;
SELECT is(pg_temp.error_of($$SELECT ranread_grant('tap_bad_runner', 'export')$$),
    '42501: permission denied for function ranread_grant', 'a role granted ''run'' may not grant itself ''export''');
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_role_change(true, 'tap_bad_runner', 'export')$$),
    '42501: permission denied for function ranread_role_change', '... nor through the internal function');
RESET ROLE;
SELECT ok(NOT pg_has_role('tap_bad_runner', 'pg_write_server_files', 'MEMBER'), '... and it holds no more than before');

-- revoking a kind a reader does not hold takes nothing it has
SELECT ok(ranread_internal.ranread_role_holds('tap_bad_reporter', 'report'), 'a role granted ''report'' reads');
SELECT count(*) FROM ranread_revoke('tap_bad_reporter', 'export');
SELECT count(*) FROM ranread_revoke('tap_bad_reporter', 'run');
SELECT ok(ranread_internal.ranread_role_holds('tap_bad_reporter', 'report'),
    '... and still does after ranread_revoke of ''export'' and of ''run'', which it never held');
SELECT count(*) FROM ranread_revoke('tap_bad_runner', 'run');
SELECT ok(NOT ranread_internal.ranread_role_holds('tap_bad_runner', 'report'),
    'revoking ''run'' from a role granted ''run'' takes its reading too (''run'' includes ''report'')');

SELECT * FROM finish();
ROLLBACK;
