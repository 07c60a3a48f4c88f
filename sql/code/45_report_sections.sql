-- The sections of the report of the history (ranread_report, 44_report.sql;
-- docs/charts-and-reports.md, "The report") that are not about studies and
-- sweeps: the latest advice with its evidence, the health of every watched
-- tablespace, the commit tests, the durability checks and the errors verify
-- found.  Each is a <section> whose id the page's contents link to; each
-- says so when there is nothing yet, and names the call that makes some.
-- They read what a role granted 'report' may read (95_roles.sql); none
-- measures or writes anything.

-- The latest advice, from the history only (ranread_advise without
-- measuring): each setting's suggestion beside its evidence (the figures it
-- stands on, the formula), what to measure and its warning.  Advice that
-- cannot be given (no target, a history it cannot use) is said, with the
-- error's words, rather than failing the report.  Its NOTICE and WARNING
-- are not the report's: their substance is in the table.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_advice()
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET client_min_messages = error
AS $$
DECLARE
    rows      jsonb;
    evidence  text;
    n         bigint;
BEGIN
    BEGIN
        WITH a AS MATERIALIZED (SELECT row_number() OVER () AS k, x.* FROM @extschema@.ranread_advise() x)
        SELECT jsonb_agg(jsonb_build_array(a.setting, a.server_value, a.tablespace_value, a.suggested, a.scope,
                                           CASE WHEN nullif(a.warning, '') IS NOT NULL THEN 'yes' ELSE '' END) ORDER BY a.k),
               string_agg(format('<li><b>%s</b><ul>%s%s%s%s</ul></li>', ranread_internal.ranread_html(a.setting),
                                 CASE WHEN nullif(a.figures, '') IS NOT NULL THEN '<li>Evidence: ' || ranread_internal.ranread_html(a.figures) || '</li>' ELSE '' END,
                                 CASE WHEN nullif(a.formula, '') IS NOT NULL THEN '<li>Formula: ' || ranread_internal.ranread_html(a.formula) || '</li>' ELSE '' END,
                                 CASE WHEN nullif(a.to_measure, '') IS NOT NULL THEN '<li>To measure: <code>' || ranread_internal.ranread_html(a.to_measure) || '</code></li>' ELSE '' END,
                                 CASE WHEN nullif(a.warning, '') IS NOT NULL THEN '<li class="bad">Warning: ' || ranread_internal.ranread_html(a.warning) || '</li>' ELSE '' END),
                          '' ORDER BY a.k),
               count(*)
          INTO rows, evidence, n
          FROM a;
    EXCEPTION WHEN OTHERS THEN
        RETURN '<section id="advice"><h2>Advice</h2>'
               || format('<p class="bad">ranread_advise() gave no advice: %s</p>', ranread_internal.ranread_html(SQLERRM))
               || '</section>';
    END;
    RETURN '<section id="advice"><h2>Advice</h2>'
           || '<p>What <code>SELECT * FROM ranread_advise();</code> says now from the history, measuring nothing: '
           || 'each suggestion (n/a: none), then the figures and the formula it stands on. It applies nothing; '
           || '<code>apply_sql</code> in its result does.</p>'
           || CASE WHEN coalesce(n, 0) = 0 THEN '<p class="muted">No advice: the history holds nothing it can use.</p>'
                   ELSE ranread_internal.ranread_html_table(
                            ARRAY['setting', 'server', 'tablespace', 'suggested', 'scope', 'warning'], rows)
                        || '<h3>The evidence</h3><ul class="evidence">' || evidence || '</ul>' END
           || '</section>';
END
$$;

-- The health of every watched tablespace (ranread_health) and the chart of
-- its probes (ranread_probe_chart) for the 8 worst off.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_health()
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    h     text := '<section id="health"><h2>Health of watched tablespaces</h2>';
    ts    name;
BEGIN
    IF NOT EXISTS (SELECT FROM @extschema@.ranread_health) THEN
        RETURN h || '<p class="muted">No tablespace is watched: <code>SELECT ranread_probe_schedule(''pg_default'', ''0 3 * * *'');</code> '
                 || 'probes one every day (docs/keeping-watch.md).</p></section>';
    END IF;
    h := h || ranread_internal.ranread_html_table(
                  ARRAY['tablespace', 'status', 'since', 'last probe', 'probes', 'p50 ms', 'p99 ms',
                        'baseline p50 ms', 'baseline p99 ms', 'change', 'why'],
                  (SELECT jsonb_agg(jsonb_build_array(x.tablespace, x.status,
                                                      to_char(x.since, 'YYYY-MM-DD HH24:MI'),
                                                      to_char(x.last_probe_at, 'YYYY-MM-DD HH24:MI'), x.probes,
                                                      x.p50_ms, x.p99_ms, x.baseline_p50_ms, x.baseline_p99_ms,
                                                      CASE WHEN x.change IS NOT NULL THEN x.change || 'x' END,
                                                      x.reason)
                                    ORDER BY x.tablespace)
                     FROM @extschema@.ranread_health x));
    FOR ts IN
        SELECT x.tablespace FROM @extschema@.ranread_health x
         ORDER BY CASE x.status WHEN 'critical' THEN 0 WHEN 'degraded' THEN 1 WHEN 'slower' THEN 2 ELSE 3 END,
                  x.tablespace
         LIMIT 8
    LOOP
        h := h || ranread_internal.ranread_html_svg(@extschema@.ranread_probe_chart(ts));
    END LOOP;
    RETURN h || '</section>';
END
$$;

-- The latest 3 commit tests (ranread_commit_summary): a row per test,
-- method and size of write, its rounds summed up (the median round's operations per second
-- and latency, the slowest write of any round), whether it wrote with
-- O_DIRECT.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_commit()
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<section id="commit-tests"><h2>Commit tests</h2>'
           || CASE WHEN NOT EXISTS (SELECT FROM ranread_internal.ranread_commit_summary_raw)
                   THEN '<p class="muted">No commit test has run: <code>SELECT * FROM ranread_commit_test();</code> '
                        || 'times the WAL''s write and sync on pg_wal, by each wal_sync_method.</p>'
                   ELSE '<p>What a commit waits for, on the tablespace of each test: WAL writes and their sync, '
                        || 'a row per test, method and size of write with the median of its rounds (each round: '
                        || '<code>SELECT * FROM ranread_commit_summary</code>).</p>'
                        || ranread_internal.ranread_html_table(
                               ARRAY['commit test', 'run at', 'where', 'test', 'method', 'O_DIRECT', 'write kB',
                                     'rounds', 'ops/s', 'avg ms', 'p99 ms', 'max ms', 'batches', 'status'],
                               (SELECT jsonb_agg(jsonb_build_array(c.commit_test, to_char(c.run_at, 'YYYY-MM-DD HH24:MI:SS'),
                                                                   c.place, c.test, c.method,
                                                                   CASE WHEN c.direct THEN 'yes' WHEN NOT c.direct THEN 'no' ELSE '' END,
                                                                   c.write_kb, c.rounds, ranread_internal.ranread_fmt_figure(c.ops_per_s),
                                                                   to_char(c.avg_ms, 'FM999990.000'),
                                                                   to_char(c.p99_ms, 'FM999990.000'),
                                                                   to_char(c.max_ms, 'FM999990.000'),
                                                                   CASE WHEN c.rounds <= 3 THEN c.batches
                                                                        ELSE c.first || ' to ' || c.last END,
                                                                   c.status)
                                                 ORDER BY c.commit_test DESC, c.first)
                                  FROM (SELECT x.commit_test, min(x.run_at) AS run_at,
                                               min(x.tablespace || coalesce(' (' || x.filesystem || ')', '')) AS place,
                                               x.test, x.method, x.direct, x.write_kb, count(*) AS rounds,
                                               string_agg(x.batch::text, ', ' ORDER BY x.batch) AS batches,
                                               percentile_cont(0.5) WITHIN GROUP (ORDER BY x.ops_per_s) AS ops_per_s,
                                               percentile_cont(0.5) WITHIN GROUP (ORDER BY x.avg_ms) AS avg_ms,
                                               percentile_cont(0.5) WITHIN GROUP (ORDER BY x.p99_ms) AS p99_ms,
                                               max(x.max_ms) AS max_ms, min(x.batch) AS first, max(x.batch) AS last,
                                               string_agg(DISTINCT x.status, ', ') AS status
                                          FROM ranread_internal.ranread_commit_summary_raw x
                                         WHERE x.commit_test IN (SELECT DISTINCT y.commit_test
                                                                   FROM ranread_internal.ranread_commit_summary_raw y
                                                                  ORDER BY y.commit_test DESC LIMIT 3)
                                         GROUP BY x.commit_test, x.test, x.method, x.direct, x.write_kb) c)) END
           || '</section>'
$$;

-- The latest 10 durability checks (ranread_durability): what was
-- acknowledged, why the writes ended, and the check's verdict.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_durability()
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<section id="durability"><h2>Durability checks</h2>'
           || CASE WHEN NOT EXISTS (SELECT FROM @extschema@.ranread_durability)
                   THEN '<p class="muted">No durability check has run (docs/writes-and-durability.md: '
                        || '<code>ranread_durability_start</code>, a power cut, then <code>ranread_durability_check</code>).</p>'
                   ELSE ranread_internal.ranread_html_table(
                            ARRAY['check', 'started', 'tablespace', 'method', 'status', 'acknowledged', 'ended by',
                                  'checked', 'lost', 'torn', 'verdict'],
                            (SELECT jsonb_agg(jsonb_build_array(d.durability, to_char(d.started, 'YYYY-MM-DD HH24:MI'),
                                                                d.tablespace, d.method, d.status, d.acknowledged,
                                                                coalesce(d.ended_by, CASE WHEN d.status <> 'running' THEN 'its duration' END), to_char(d.checked, 'YYYY-MM-DD HH24:MI'),
                                                                d.lost, d.torn, d.verdict)
                                              ORDER BY d.durability DESC)
                               FROM (SELECT * FROM @extschema@.ranread_durability x
                                      ORDER BY x.durability DESC LIMIT 10) d)) END
           || '</section>'
$$;

-- What verify found (ranread_verify_errors): the count by batch and kind,
-- then the latest 20 errors.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_verify()
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<section id="verify"><h2>Verify errors</h2>'
           || CASE WHEN NOT EXISTS (SELECT FROM @extschema@.ranread_verify_errors)
                   THEN '<p class="good">No verify error is recorded (<code>SELECT * FROM ranread_verify_errors</code>).</p>'
                   ELSE '<p class="bad">Blocks that read back other than written:</p>'
                        || ranread_internal.ranread_html_table(ARRAY['batch', 'target', 'kind', 'blocks', 'first at'],
                               (SELECT jsonb_agg(jsonb_build_array(v.batch, v.target, v.kind, v.n,
                                                                   to_char(v.first_at, 'YYYY-MM-DD HH24:MI:SS'))
                                                 ORDER BY v.batch DESC NULLS LAST, v.kind)
                                  FROM (SELECT e.batch, e.target, e.kind, count(*) AS n, min(e.at) AS first_at
                                          FROM @extschema@.ranread_verify_errors e
                                         GROUP BY e.batch, e.target, e.kind) v))
                        || '<h3>The latest errors</h3>'
                        || ranread_internal.ranread_html_table(ARRAY['batch', 'target', 'block', 'kind', 'expected', 'found', 'at'],
                               (SELECT jsonb_agg(jsonb_build_array(e.batch, e.target, e.block, e.kind, e.expected, e.found,
                                                                   to_char(e.at, 'YYYY-MM-DD HH24:MI:SS'))
                                                 ORDER BY e.at DESC, e.block)
                                  FROM (SELECT * FROM @extschema@.ranread_verify_errors x ORDER BY x.at DESC, x.block LIMIT 20) e)) END
           || '</section>'
$$;
