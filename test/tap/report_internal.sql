-- The report's helpers (HTML and CSV pieces, the study charts' rules and
-- spec builders, the report's sections) live in schema ranread_internal,
-- out of the users' schema; the functions users call stay where they were
-- and still work for readers of the history (pg_monitor).
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(10);

SELECT is((SELECT e.extname FROM pg_namespace n
             JOIN pg_depend d ON d.classid = 'pg_namespace'::regclass AND d.objid = n.oid AND d.deptype = 'e'
             JOIN pg_extension e ON e.oid = d.refobjid
            WHERE n.nspname = 'ranread_internal'), 'ranread'::name,
    'schema ranread_internal belongs to the extension');
SELECT ok(obj_description('ranread_internal'::regnamespace, 'pg_namespace') ~ 'internal',
    'and says what it holds');

CREATE TEMP TABLE helpers (name text);
INSERT INTO helpers VALUES ('ranread_html'), ('ranread_html_table'), ('ranread_html_svg'),
    ('ranread_csv_field'), ('ranread_study_csv'), ('ranread_study_json'), ('ranread_report_study'),
    ('ranread_report_sweep'), ('ranread_report_head'), ('ranread_report_server'),
    ('ranread_report_batches'), ('ranread_report_figures'), ('ranread_iops_at_bound'),
    ('ranread_chart_latency'), ('ranread_fmt_figure'), ('ranread_curves_spec'),
    ('ranread_study_curves'), ('ranread_study_caption'), ('ranread_study_points_axes'), ('ranread_sweep_known');
SELECT is((SELECT count(*) FROM helpers h
             JOIN pg_proc p ON p.proname = h.name AND p.pronamespace = 'ranread_internal'::regnamespace),
    (SELECT count(*) FROM helpers), 'every helper of the reports and study charts is in ranread_internal');
SELECT is((SELECT count(*) FROM pg_proc p
            WHERE p.pronamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'ranread')
              AND (p.proname IN (SELECT name FROM helpers) OR p.proname = 'ranread_fmt_count')),
    0::bigint, 'and none is left in the extension''s schema');
SELECT is((SELECT count(*) FROM pg_proc p
            WHERE p.pronamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'ranread')
              AND p.proname IN ('ranread_report', 'ranread_export_study', 'ranread_export_sweep',
                                'ranread_server_info', 'ranread_svg', 'ranread_chart', 'ranread_timeline',
                                'ranread_study_chart', 'ranread_compare_chart', 'ranread_study_heat')),
    10::bigint, 'the report and chart functions users call stay in the extension''s schema');

-- The report tables' figure format is not the renderer's count, and is named apart
SELECT is(ARRAY(SELECT ranread_internal.ranread_fmt_figure(v) FROM unnest(ARRAY[1.234, 12.34, 1234.5]::float8[]) v),
    ARRAY['1.23', '12.3', '1,235'], 'ranread_fmt_figure prints three significant digits below 100, a count above');
SELECT is(substring(ranread_svg('{"title": [{"count": 1.234}, " ", {"count": 12.34}]}') FROM '<title>([^<]*)</title>'),
    '1 12', 'where the renderer''s count rounds every figure to a whole number');

-- Readers of the history use the helpers through the functions they call
CREATE ROLE ranread_test_internal_monitor IN ROLE pg_monitor;
DO $$
BEGIN
    EXECUTE format('GRANT USAGE ON SCHEMA %s TO ranread_test_internal_monitor',
                   (SELECT extnamespace::regnamespace FROM pg_extension WHERE extname = 'ranread'));
END
$$;
SET LOCAL ROLE ranread_test_internal_monitor;
SELECT ok(ranread_report() ~ '^<!DOCTYPE html>.*Server and targets.*<h2>Advice</h2>.*<h2>Health of watched tablespaces</h2>.*<h2>Commit tests</h2>.*<h2>Durability checks</h2>.*<h2>Verify errors</h2>.*The latest batches.*</html>'
          AND ranread_report() !~ 'permission denied',
    'a member of pg_monitor writes the report of the history, every section of it (the advice too, without a permission error)');
SELECT ok(ranread_internal.ranread_html('<a>') = '&lt;a&gt;',
    'and may call the pure helpers, as the functions it calls do on its behalf');
SELECT lives_ok($$SELECT count(p99_ms) FROM ranread_percentiles_over_time$$,
    'and reads each second''s percentiles (ranread_percentiles_over_time merges histograms for it)');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
