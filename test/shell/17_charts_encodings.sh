#!/bin/bash
# The charts of the history are the same document in every server encoding:
#  - ranread_chart and ranread_timeline in a UTF8, a LATIN1 and an
#    SQL_ASCII database holding the same history (a target named with an
#    e acute) return byte for byte the same SVG, plain ASCII, with the
#    quotation marks, middle dots and dashes of their titles (characters
#    LATIN1 lacks) as character references
#  - ranread_svg draws a title with a {"char": code point} part alike
. "$(dirname "$0")/lib/lib.sh"

# history.sql TARGET: a sweep of three steps and a batch's seconds
history() {
  cat <<EOF
INSERT INTO ranread_batches (batch, run_at, target, processes, duration, block_size, queue_depth,
    write_pct, pattern, region_start, region_end, seed, workers, engine, reads, writes, seconds,
    iops, mbps, avg_ms, p99_ms, max_ms, status, sweep)
SELECT 100 + i, timestamptz '2024-05-02 14:00:00+00' + i * interval '31 s', $1, p, '30s',
       8192, 1, 0, 'random', 0, 100, 1, 2, 'io_uring', (iops * 30)::bigint, 0, 30, iops,
       iops * 8192 / 1e6, avg, p99, mx, 'completed', 7
  FROM (VALUES (0, 10, 4210.0, 2.37, 6.1, 14.2), (1, 20, 8120, 2.46, 6.8, 17.9),
               (2, 40, 15010, 2.66, 8.2, 22.4)) v(i, p, iops, avg, p99, mx);
INSERT INTO ranread_intervals (batch, second, reads, writes, iops, avg_ms, max_ms)
SELECT 101, s, 9000 - 100 * s, 0, 9000 - 100 * s, 2 + s, 40 FROM generate_series(0, 4) s;
EOF
}

# draw DB ENCODING TARGET: the two charts of that history in a new database
draw() {
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS $1" \
       -c "CREATE DATABASE $1 ENCODING '$2' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0" >/dev/null
  psql -qX -d "$1" -v ON_ERROR_STOP=1 -c "CREATE EXTENSION ranread" -c "$(history "$3")" >/dev/null || return 1
  psql -qAtX -d "$1" -c "SET TimeZone = 'UTC'" -c "SELECT ranread_chart(7)" > "$WORK/$1_chart.svg" &&
    psql -qAtX -d "$1" -c "SET TimeZone = 'UTC'" -c "SELECT ranread_timeline(101)" > "$WORK/$1_timeline.svg"
}

WORK=$(mktemp -d)
draw rr_enc_utf8 UTF8 "E'cible_\\u00e9'"
ok $? "the charts of a UTF8 database are drawn"
draw rr_enc_latin1 LATIN1 "E'cible_\\u00e9'"
ok $? "... and of a LATIN1 database"
# SQL_ASCII stores the bytes it is given: the UTF-8 of e acute
draw rr_enc_ascii SQL_ASCII "E'cible_\\xc3\\xa9'"
ok $? "... and of an SQL_ASCII database"

grep -q '<title>IOPS and latency vs processes: random 8 KiB reads on target &#x201C;cible_&#xE9;&#x201D;</title>' "$WORK/rr_enc_utf8_chart.svg"
ok $? "the sweep chart's title names the target between quotation marks, as character references"
grep -q 'Sweep 7 &#xB7; 2024-05-02 14:00&#x2013;14:01 UTC &#xB7; 3 batches' "$WORK/rr_enc_utf8_chart.svg"
ok $? "... and its subtitle has middle dots and an en dash"
LC_ALL=C grep -q '[^[:print:][:space:]]' "$WORK/rr_enc_utf8_chart.svg" "$WORK/rr_enc_utf8_timeline.svg"
ok $((! $?)) "both charts are plain ASCII"
for chart in chart timeline; do
  cmp -s "$WORK/rr_enc_utf8_$chart.svg" "$WORK/rr_enc_latin1_$chart.svg"
  ok $? "ranread_$chart in LATIN1 is the same document as in UTF8"
  cmp -s "$WORK/rr_enc_utf8_$chart.svg" "$WORK/rr_enc_ascii_$chart.svg"
  ok $? "ranread_$chart in SQL_ASCII is the same document as in UTF8"
done

for db in rr_enc_latin1 rr_enc_ascii; do
  is "$(psql -qAtX -d $db -c "SELECT substring(ranread_svg('{\"title\": [\"a \", {\"char\": 8220}, \"b\", {\"char\": 8804}]}') FROM '<title>([^<]*)</title>')")" \
    'a &#x201C;b&#x2264;' "in $db, a {\"char\": code point} part is that character, whether the encoding has it or not"
done

psql -qX -d postgres -c "DROP DATABASE rr_enc_utf8" -c "DROP DATABASE rr_enc_latin1" -c "DROP DATABASE rr_enc_ascii" >/dev/null 2>&1
rm -rf "$WORK"
done_testing
