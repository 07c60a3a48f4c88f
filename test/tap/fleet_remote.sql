-- The fleet's connections to other servers (src/fleet/), against this
-- server itself: connect, query, the node's errors, time bounds, waits,
-- a cancel over a fresh connection and over a spare made ahead, close; the rule for roles that are not
-- superusers; and the call's text without its passwords.
BEGIN;
SELECT plan(27);

CREATE TEMP TABLE self AS
SELECT format('host=%s port=%s dbname=%s', ranread_internal.ranread_conninfo_quote(split_part(current_setting('unix_socket_directories'), ',', 1)),
              current_setting('port'), ranread_internal.ranread_conninfo_quote(current_database())) AS ci;

SELECT is(ranread_internal.ranread_remote_connect(ARRAY['t1', 't2'], ARRAY[(SELECT ci FROM self), (SELECT ci FROM self)]), '{NULL,NULL}',
    'two connections to this server, opened at once');
SELECT is(ranread_internal.ranread_remote_query('t1', 'SELECT 41 + 1', 5000), '42', 'a query and its answer');
SELECT is(ranread_internal.ranread_remote_state('t1'), 'idle', '... and the connection is idle again');
SELECT throws_ok($$SELECT ranread_internal.ranread_remote_query('t1', 'SELECT 1/0', 5000)$$, '22012', 'division by zero',
    'the node''s error comes with its SQLSTATE and message');
SELECT throws_like($$SELECT ranread_internal.ranread_remote_query('t1', 'SELECT pg_sleep(10)', 200)$$,
    'the server did not answer within 200 ms', 'a query that does not answer in time is given up');
SELECT is(ranread_internal.ranread_remote_state('t1'), 'broken', '... and its connection closed');

-- await(cond, seconds): whether the query cond, on pg_stat_activity read
-- afresh each time, returns true within that many seconds
CREATE FUNCTION pg_temp.await(cond text, seconds int) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    met boolean;
BEGIN
    FOR i IN 1..seconds * 20 LOOP
        PERFORM pg_stat_clear_snapshot();
        EXECUTE cond INTO met;
        IF met THEN
            RETURN true;
        END IF;
        PERFORM pg_sleep(0.05);
    END LOOP;
    RETURN false;
END $$;
-- started(): the long query sent below runs on the server (a cancel that
-- comes before the query starts is no cancel of it)
CREATE FUNCTION pg_temp.started() RETURNS boolean LANGUAGE sql AS $$
SELECT pg_temp.await($q$SELECT EXISTS (SELECT FROM pg_stat_activity a WHERE a.state = 'active' AND a.query = 'SELECT pg_sleep(30)::text')$q$, 10)
$$;

SELECT is(ranread_internal.ranread_remote_send('t2', 'SELECT pg_sleep(2)::text'), NULL, 'a query sent without waiting');
SELECT is(ranread_internal.ranread_remote_wait(ARRAY['t2'], 20), '{}', 'a wait shorter than the query returns nothing ready');
SELECT is(ranread_internal.ranread_remote_wait(ARRAY['t2'], 5000), '{t2}', 'a longer one returns the connection whose answer came');
SELECT is(ranread_internal.ranread_remote_result('t2', 0)->>'state', 'ok', '... and its result is taken');

SELECT is(ranread_internal.ranread_remote_send('t2', 'SELECT pg_sleep(30)::text'), NULL, 'a long query sent');
SELECT pg_temp.started() AS started \gset
SELECT is(ranread_internal.ranread_remote_cancel(ARRAY['t2'], 5000), '{t}', 'a cancel over a fresh connection is taken by the server');
SELECT is(ranread_internal.ranread_remote_result('t2', 5000)->>'sqlstate', '57014', '... and the query ends cancelled');
-- a cancel over a spare connection made ahead: no session to start at the
-- cancel, and the spare stays for the next one until the outcome is taken
SELECT is(ranread_internal.ranread_remote_spare(ARRAY['t2', 'nosuch'], 5000), '{t,f}',
    'a spare connection made ahead to the server of a connection that is up (none for a name not open)');
SELECT pg_stat_clear_snapshot();
SELECT a.pid AS spare FROM pg_stat_activity a WHERE a.application_name = 'ranread'
 ORDER BY a.backend_start DESC LIMIT 1 \gset
SELECT is(ranread_internal.ranread_remote_send('t2', 'SELECT pg_sleep(30)::text'), NULL, 'a long query sent again');
SELECT pg_temp.started() AS started \gset
SELECT is(ranread_internal.ranread_remote_cancel(ARRAY['t2'], 5000), '{t}', 'a cancel over the spare is taken by the server');
SELECT pg_stat_clear_snapshot();
SELECT is((SELECT a.state || ': ' || (a.query LIKE '%pg_cancel_backend%') FROM pg_stat_activity a WHERE a.pid = :spare), 'idle: true',
    '... the spare asked it, and stays open for the next cancel');
SELECT is(ranread_internal.ranread_remote_result('t2', 5000)->>'sqlstate', '57014', '... the query ends cancelled');
SELECT ok(pg_temp.await(format('SELECT NOT EXISTS (SELECT FROM pg_stat_activity a WHERE a.pid = %s)', :spare), 5),
    '... and once its outcome is taken, the spare is closed');
-- over TCP, the cancel's connection finds the session by its pid and our end's port
-- (pg_virtualenv gives its clients the password of its cluster)
\getenv pgpw PGPASSWORD
SELECT (ranread_internal.ranread_remote_connect(ARRAY['t5'], ARRAY[format('host=127.0.0.1 port=%s dbname=%s password=%s', current_setting('port'),
        ranread_internal.ranread_conninfo_quote(current_database()), ranread_internal.ranread_conninfo_quote(:'pgpw'))], 5000))[1] IS NULL AS tcp \gset
\if :tcp
SELECT is(ranread_internal.ranread_remote_send('t5', 'SELECT pg_sleep(30)::text'), NULL, 'a long query sent over TCP');
SELECT pg_temp.started() AS started \gset
SELECT is(ranread_internal.ranread_remote_cancel(ARRAY['t5'], 5000), '{t}', '... a cancel finds its session by pid and client port');
SELECT is(ranread_internal.ranread_remote_result('t5', 5000)->>'sqlstate', '57014', '... and the query ends cancelled');
\else
SELECT skip('this server takes no TCP connection here without a password', 3);
\endif
SELECT is((SELECT x[1] ~ 'Connection refused|could not connect|failed' FROM ranread_internal.ranread_remote_connect(ARRAY['t3'], ARRAY['host=127.0.0.1 port=1']) x), true,
    'a server that refuses the connection: why, at once');
SELECT ranread_internal.ranread_remote_close(ARRAY['t1', 't2', 't3', 't5']);
SELECT is(ranread_internal.ranread_remote_state('t2'), NULL, 'closed connections are gone');

-- a role that is not a superuser must give a password, and the server must ask for it
CREATE ROLE ranread_remote_tester;
GRANT EXECUTE ON FUNCTION ranread_internal.ranread_remote_connect(text[], text[], integer, boolean) TO ranread_remote_tester;
GRANT SELECT ON self TO ranread_remote_tester;
GRANT USAGE ON SCHEMA ranread_internal TO ranread_remote_tester;
SET LOCAL ROLE ranread_remote_tester;
SELECT alike((ranread_internal.ranread_remote_connect(ARRAY['t4'], ARRAY[(SELECT ci FROM self)]))[1], 'a password is required%',
    'a role that is not a superuser cannot connect without a password (as the server''s operating-system user)');
RESET ROLE;

-- the call's text as logged and shown: without its passwords
SELECT is((SELECT strpos(current_query(), 'Hide' || 'Me7') FROM (SELECT ranread_internal.ranread_conninfo_hide(ARRAY['host=x password=HideMe7'])) h), 0,
    'ranread_conninfo_hide takes a password out of the statement''s text (current_query, the log''s STATEMENT, pg_stat_activity)');

SELECT is((SELECT strpos(current_query(), 'Hide' || 'Me8') + strpos(current_query(), 'Hide' || 'Me9') FROM
             (SELECT ranread_internal.ranread_conninfo_hide(ARRAY['=', 'host=x Password = HideMe8', 'postgresql:/u:HideMe9@h:1/db'])) h), 0,
    '... and strings libpq cannot read, whole, however short and whatever their order');

SELECT * FROM finish();
ROLLBACK;
