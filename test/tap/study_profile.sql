-- The profiles end to end on a small target with short runs: each is a
-- study of fixed points, reported as the tool it imitates.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(16);

SELECT lives_ok($$SELECT ranread_setup('64MB')$$, 'a small target');

-- The definitions (pure)
SELECT results_eq($$SELECT p -> 'point' ->> 'test', p -> 'point' ->> 'mode'
                      FROM jsonb_array_elements(ranread_internal.ranread_profile_points('crystaldiskmark', passes => 1)) p$$,
    $$VALUES ('SEQ1M Q8T1', 'read'), ('SEQ1M Q1T1', 'read'), ('RND4K Q32T1', 'read'), ('RND4K Q1T1', 'read'),
             ('SEQ1M Q8T1', 'write'), ('SEQ1M Q1T1', 'write')$$,
    'CrystalDiskMark: its four tests read, then those writes ranread can do (whole pages)');
SELECT is((SELECT p -> 'groups' -> 0 FROM jsonb_array_elements(ranread_internal.ranread_profile_points('crystaldiskmark-nvme', passes => 1)) p
            WHERE p -> 'point' ->> 'test' = 'RND4K Q32T16' LIMIT 1),
    '{"target": "ranread", "pattern": "random", "processes": 16, "write_pct": 0, "block_size": 4096, "queue_depth": 32}',
    'the NVMe preset''s RND4K Q32T16 is 16 processes of 4 KiB random reads at queue depth 32');
SELECT results_eq($$SELECT p ->> 'warmup' FROM jsonb_array_elements(ranread_internal.ranread_profile_points('crystaldiskmark-real', duration => '5s', passes => 3)) p
                     WHERE p -> 'point' ->> 'test' = 'SEQ1M Q1T1' AND p -> 'point' ->> 'mode' = 'read'$$,
    $$VALUES ('00:00:05'), ('00:00:00'), ('00:00:00')$$,
    'a test''s first pass has an unmeasured preparing run as long as a pass, then passes follow');
SELECT is(jsonb_array_length(ranread_internal.ranread_profile_points('orion-normal', num_disks => 2)), 11 * 5 - 1,
    'orion-normal: small loads 0 to 5 x num_disks by large loads 0 to 2 x num_disks, but 0/0');
SELECT is(jsonb_array_length(ranread_internal.ranread_profile_points('snia-latency')), 5,
    'snia-latency: 0.5, 4 and 8 KiB reads, and the 65/35 and 0/100 mixes where whole pages allow');

-- CrystalDiskMark
CREATE TEMP TABLE cdm AS SELECT * FROM ranread_profile('crystaldiskmark', duration => '0.2s', passes => 1);
SELECT results_eq($$SELECT test, mode, CASE WHEN test IS NULL THEN result END FROM cdm$$,
    $$VALUES (NULL, 'read', '[Read]'), ('SEQ1M Q8T1', 'read', NULL), ('SEQ1M Q1T1', 'read', NULL),
             ('RND4K Q32T1', 'read', NULL), ('RND4K Q1T1', 'read', NULL),
             (NULL, 'write', '[Write]'), ('SEQ1M Q8T1', 'write', NULL), ('SEQ1M Q1T1', 'write', NULL)$$,
    'CrystalDiskMark''s lines, in its order, under its [Read] and [Write] headings (rows without a test)');
SELECT is((SELECT count(*)::integer FROM cdm
            WHERE result ~ '^  (SEQ|RND) +[0-9]+[KM]iB \(Q= *[0-9]+, T= *[0-9]+\): +[0-9]+\.[0-9]{3} MB/s \[ +[0-9]+\.[0-9] IOPS\] < +[0-9]+\.[0-9]{2} us>$'),
    6, 'each line reads as CrystalDiskMark''s: MB/s, [IOPS], <latency us>');
SELECT is((SELECT result FROM cdm WHERE test = 'RND4K Q32T1'),
    (SELECT ranread_internal.ranread_cdm_line('RND4K Q32T1', 4096, 32, 1, r.iops, r.avg_us)
       FROM ranread_internal.ranread_profile_report_raw((SELECT min(study) FROM cdm)) r WHERE r.test = 'RND4K Q32T1'),
    'RND4K Q32T1 is one process at queue depth 32, in decimal MB/s');
SELECT is((SELECT kind FROM ranread_studies WHERE study = (SELECT min(study) FROM cdm)), 'crystaldiskmark',
    'a profile is a study of its kind');
SELECT ok(xml_is_well_formed_document(ranread_profile_chart((SELECT min(study) FROM cdm))), 'its bars are a well-formed SVG');

-- ORION
CREATE TEMP TABLE oltp AS SELECT * FROM ranread_profile('orion-oltp', duration => '0.2s');
SELECT results_eq($$SELECT test FROM oltp WHERE mode = 'point'$$,
    $$VALUES ('Small=1 Large=0'), ('Small=2 Large=0'), ('Small=3 Large=0'), ('Small=4 Large=0'), ('Small=5 Large=0')$$,
    'orion-oltp runs small loads 1 to 5 (one disk) with no large I/O');
SELECT matches((SELECT result FROM oltp WHERE test = 'Maximum Small IOPS'),
    '^Maximum Small IOPS=[0-9]+\.[0-9]{2} @ Small=[1-5] and Large=0$', 'and ends with ORION''s summary lines');
CREATE TEMP TABLE dss AS SELECT * FROM ranread_profile('orion-dss', duration => '0.2s');
SELECT matches((SELECT result FROM dss WHERE test = 'Maximum Large MBPS'),
    '^Maximum Large MBPS=[0-9]+\.[0-9]{2} @ Small=0 and Large=[12]$', 'orion-dss finds the maximum MB/s of large random I/O');

-- SNIA
CREATE TEMP TABLE snia AS SELECT * FROM ranread_profile('snia-latency', duration => '0.2s');
SELECT ok((SELECT bool_and(result ~ '^RND [0-9.]+KiB R/W [0-9]+/[0-9]+ QD1 T1: avg [0-9.]+ us, 99\.999% [0-9.]+ us, max [0-9.]+ us')
                  AND bool_and(p99999_us <= max_us AND avg_us <= p99999_us) FROM snia),
    'snia-latency reports average, 99.999% and maximum latency per block size and mix');
SELECT ok(xml_is_well_formed_document(ranread_profile_chart((SELECT min(study) FROM snia))), 'and charts them');

SELECT * FROM finish();
ROLLBACK;
