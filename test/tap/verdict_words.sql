-- The verdicts a run and a sweep end with, each one definition, on known
-- numbers (no I/O): SNIA's steady state (ranread_steady_verdict: the rule
-- stated, the part that failed named, a fall worded as a fall, a run too
-- short to judge said so), the all-flash guidance (ranread_flash_guidance:
-- average at most 2 ms and no I/O above 5 ms, the failing part named) and
-- the sweep's stop reasons (ranread_sweep_next: IOPS that fell are said to
-- fall).  docs/design.md, "One definition per verdict"; docs/sweeps-and-studies.md, "The sweep".
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(18);
\ir lib/util.psql

-- SNIA's steady state
SELECT is((SELECT steady::text || ' ' || round(excursion::numeric, 3) || ' ' || round(slope::numeric, 3)
             FROM ranread_steady_verdict('{1000,1010,990,1005,995}', 6)),
    'true 0.020 -0.006', 'rounds within 2% of each other: steady, excursion and slope as fractions of the mean');
SELECT is((SELECT verdict FROM ranread_steady_verdict('{1000,1010,990,1005,995}', 6)),
    'steady (SNIA''s rule: five rounds whose IOPS range over at most 20% of their mean, with a trend across them within 10% of it): the rounds'' IOPS range over 2.0% of their mean and their trend across the rounds is a fall of 0.6% of their mean',
    '... said with the rule and both figures (a fall of 0.6%)');
SELECT is((SELECT verdict FROM ranread_steady_verdict('{1100,1050,1000,950,900}', 6)),
    'not steady (SNIA''s rule: five rounds whose IOPS range over at most 20% of their mean, with a trend across them within 10% of it): their trend across the rounds is a fall of 20.0% of their mean, more than 10% (the rounds'' IOPS range over 20.0% of their mean, within 20%)',
    'IOPS that fall steadily: not steady by the trend, worded as a fall, the range named as within');
SELECT is((SELECT verdict FROM ranread_steady_verdict('{900,950,1000,1050,1100}', 6)),
    'not steady (SNIA''s rule: five rounds whose IOPS range over at most 20% of their mean, with a trend across them within 10% of it): their trend across the rounds is a rise of 20.0% of their mean, more than 10% (the rounds'' IOPS range over 20.0% of their mean, within 20%)',
    '... and IOPS that rise, as a rise');
SELECT is((SELECT verdict FROM ranread_steady_verdict('{1000,1000,1300,1000,1000}', 6)),
    'not steady (SNIA''s rule: five rounds whose IOPS range over at most 20% of their mean, with a trend across them within 10% of it): the rounds'' IOPS range over 28.3% of their mean, more than 20% (their trend across the rounds is no change of their mean, within 10%)',
    'one round 30% above the others: not steady by the range, the trend named as within');
SELECT is((SELECT steady::text FROM ranread_steady_verdict('{8085,6413,2562,630,1102}', 2)), 'false',
    'the rounds of a run on a loaded machine (8085 to 630 IOPS): not steady');
SELECT matches((SELECT verdict FROM ranread_steady_verdict('{8085,6413,2562,630,1102}', 2)),
    ': the rounds'' IOPS range over 198\.4% of their mean, more than 20%, and their trend across the rounds is a fall of 210\.2% of their mean, more than 10%$',
    '... both parts failing, named, the fall a fall (not "raised")');
SELECT is((SELECT coalesce(steady::text, 'NULL') || ' ' || verdict FROM ranread_steady_verdict('{8085,6413,2562,630,1102}', 1)),
    'NULL too short to judge steadiness (SNIA''s rule: five rounds whose IOPS range over at most 20% of their mean, with a trend across them within 10% of it, each of at least 2 s and 100 I/Os): its rounds would be 1.0 s',
    'the same rounds of 1 s each (a 5 s run): too short to judge, said so, not "not steady"');
SELECT is((SELECT coalesce(steady::text, 'NULL') || ' ' || verdict FROM ranread_steady_verdict('{10,10,10,10,10}', 6)),
    'NULL too short to judge steadiness (SNIA''s rule: five rounds whose IOPS range over at most 20% of their mean, with a trend across them within 10% of it, each of at least 2 s and 100 I/Os): a round held only 60 I/Os',
    'rounds of 60 I/Os (a paced run at 10 IOPS): too short to judge');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_steady_verdict('{1,2,3,4,NaN}')$$),
    '22023: round 5 of ranread_steady_verdict must be IOPS from 0 to 1e12, not NaN', 'a round that is not a number is refused by name');

-- the all-flash guidance
SELECT is((SELECT met::text || ' ' || verdict FROM ranread_flash_guidance(0.07, 4.1)),
    'true met (all-flash guidance: an average of at most 2 ms and no I/O above 5 ms): average 0.070 ms and the slowest I/O 4.100 ms',
    'average 0.07 ms, slowest 4.1 ms: met, the rule stated');
SELECT is((SELECT met::text || ' ' || verdict FROM ranread_flash_guidance(0.07, 23.4)),
    'false not met (all-flash guidance: an average of at most 2 ms and no I/O above 5 ms): the slowest I/O took 23.400 ms, above 5 ms (the average, 0.070 ms, is within 2 ms)',
    'average 0.07 ms but one I/O of 23.4 ms: not met, and it says the slowest I/O failed, not the average');
SELECT is((SELECT verdict FROM ranread_flash_guidance(3, 4)),
    'not met (all-flash guidance: an average of at most 2 ms and no I/O above 5 ms): the average, 3.000 ms, is above 2 ms (the slowest I/O, 4.000 ms, is within 5 ms)',
    'an average of 3 ms: the average failed');
SELECT is((SELECT met::text || ' ' || verdict FROM ranread_flash_guidance(2, 5)),
    'true met (all-flash guidance: an average of at most 2 ms and no I/O above 5 ms): average 2.000 ms and the slowest I/O 5.000 ms',
    'exactly 2 ms and 5 ms: met (at most)');
SELECT is((SELECT meets_flash_guidance FROM ranread_internal.ranread_sweep_judge(
              ARRAY[ROW(1, 10, 7, 77901, 0.07, 0.2, 23.4, 'completed')]::ranread_sweep_step[], 10)), false,
    'a sweep''s verdict uses the same definition (ranread_sweep_judge)');

-- the sweep's stop reasons
SELECT is((SELECT stop_reason FROM ranread_internal.ranread_sweep_next(
              ARRAY[ROW(1, 10, 1, 77901, 0.1, 0.2, 1, 'completed'), ROW(2, 20, 2, 33898, 0.5, 0.9, 3, 'completed')]::ranread_sweep_step[],
              10, 1280, 10)),
    'scaling: going from 10 to 20 processes lowered IOPS from 77901 to 33898, a fall of 56.5%; a step must gain at least 10% of the 77901 IOPS linear scaling would add',
    'IOPS that fell from 77901 to 33898: "lowered ... a fall of 56.5%", the rule stated');
SELECT is((SELECT stop_reason FROM ranread_internal.ranread_sweep_next(
              ARRAY[ROW(1, 10, 1, 10000, 0.1, 0.2, 1, 'completed'), ROW(2, 20, 2, 10500, 0.5, 0.9, 3, 'completed')]::ranread_sweep_step[],
              10, 1280, 10)),
    'scaling: going from 10 to 20 processes raised IOPS from 10000 to 10500, a gain of 500, 5.0% of linear scaling; a step must gain at least 10% of the 10000 IOPS linear scaling would add',
    'a gain of 5% of linear: "raised", with its share of linear scaling and the rule');
SELECT is((SELECT next_processes FROM ranread_internal.ranread_sweep_next(
              ARRAY[ROW(1, 10, 1, 10000, 0.1, 0.2, 1, 'completed'), ROW(2, 20, 2, 11000, 0.5, 0.9, 3, 'completed')]::ranread_sweep_step[],
              10, 1280, 10)), 40, 'a gain of exactly 10% of linear goes on, to 40 processes');

SELECT * FROM finish();
ROLLBACK;
