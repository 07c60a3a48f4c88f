#!/bin/bash
# Verified writes and reads (docs/writes-and-durability.md, "Verified writes"),
# on a real target whose segment file is changed behind ranread's back (dd,
# with the server's buffer cache not involved: ranread reads its own files with
# O_DIRECT).
#  - ranread_verify on a fresh target finds every block whole: setup's fill
#    stamps its pages
#  - a verify batch on a healthy target finds 0 bad blocks and records its
#    counts in ranread_batches and ranread_groups
#  - a block overwritten with other bytes is found as corrupt, by
#    ranread_verify and by a verify batch, with its block number
#  - a block's page copied to another offset (a misdirected write) is found
#    as wrong_block there, naming the block it belongs to
#  - an acknowledged write replaced by the block's older page (a lost
#    write) is found as lost by the verify batch that acknowledged it
#  - a truncated file: ranread_verify counts the missing blocks, a batch is
#    refused with a clear error, nothing crashes
#  - block numbers run on across segment files
#  - ranread_verify holds the cluster's claim for its whole read: a batch or
#    a second check started meanwhile is refused, naming it; a cancel, a
#    terminate or ranread_stop ends it and gives the claim back; a check
#    asked for while a batch runs is refused
#  - verify's per-block words cover only the verified region, and a batch
#    whose words would pass ranread.verify_max_memory is refused
#  - a read held in flight across 256 or 65536 writes of its block counts
#    as raced (the count of writes begun does not wrap)
#  - bad input: a non-boolean verify, a missing target, verify with a block
#    size of part of a page, a group that writes a verified target unverified
. "$(dirname "$0")/lib/lib.sh"

setup_db rr_verify
q "SELECT ranread_setup('8MB', target => 'v')" >/dev/null
F="$(data_dir)/$(target_path v)"
TMP=$(mktemp -d "$TMPDIR_TEST/rr-verify.XXXXXX")
chmod 755 "$TMP"
blk() { dd if="$F" of="$TMP/$2" bs=8192 skip="$1" count=1 status=none; }
put() { dd if="$TMP/$2" of="$F" bs=8192 seek="$1" count=1 conv=notrunc oflag=direct status=none; }
LOG_MARK=$(log_mark)

# --- a fresh target
is "$(q "SELECT blocks || '/' || errors || '/' || newest_batch || '/' || max_sequence FROM ranread_verify('v')")" "1024/0/0/0" \
  "ranread_verify on a fresh target: 1024 blocks, 0 bad, the newest stamp setup's (batch 0, sequence 0)"

# --- a healthy target, verified writes and reads
B=$(q "SELECT batch FROM ranread_run(2, target => 'v', duration => '2s', write_pct => 30, queue_depth => 8, verify => true)")
is "$(q "SELECT status || '/' || verify || '/' || verify_errors || '/' || verify_corrupt || '/' || verify_wrong_block || '/' || verify_lost FROM ranread_batches WHERE batch = $B")" \
  "completed/true/0/0/0/0" "a verify batch on a healthy target completes with 0 bad blocks, each kind counted"
cmp_ok "$(q "SELECT verify_checked FROM ranread_batches WHERE batch = $B")" '>' 500 \
  "... and counts the pages it read and checked"
is "$(q "SELECT g.verify_checked = b.verify_checked AND g.verify_skipped = b.verify_skipped AND g.verify_errors = 0 AND g.verify
           FROM ranread_groups g JOIN ranread_batches b USING (batch) WHERE batch = $B")" t \
  "... its group's row has the same counts"
is "$(q "SELECT count(*) FROM ranread_verify_errors WHERE batch = $B")" 0 "... and no bad block is recorded"
is "$(q "SELECT errors || '/' || newest_batch FROM ranread_verify('v')")" "0/$B" \
  "ranread_verify after it: 0 bad blocks, the newest stamp the batch's"
cmp_ok "$(q "SELECT max_sequence FROM ranread_verify('v')")" '>' 0 "... with the batch's write sequence"
P=$(q "SELECT batch FROM ranread_run(1, 500, target => 'v', write_pct => 50)")
is "$(q "SELECT coalesce(verify::text, 'null') || '/' || coalesce(verify_checked::text, 'null') FROM ranread_batches WHERE batch = $P")" "false/null" \
  "a batch without verify records verify false and no counts"
is "$(q "SELECT errors FROM ranread_verify('v')")" 0 "pages written without verify are stamped too: ranread_verify finds none bad"

# a read-only pass over every block, one process: "status|corrupt|wrong|lost|message"
scan() {
  local b
  b=$(q "SELECT batch FROM ranread_run(1, 1024, target => 'v', pattern => 'sequential', verify => true)")
  q "SELECT status || '|' || verify_corrupt || '|' || verify_wrong_block || '|' || verify_lost || '|' || coalesce(message, '')
       FROM ranread_batches WHERE batch = $b"
}

# --- corrupt: other bytes in block 100
blk 100 b100
head -c 8192 /dev/urandom > "$TMP/junk"
put 100 junk
is "$(q "SELECT errors || '/' || corrupt || '/' || wrong_block || '/' || missing FROM ranread_verify('v')")" "1/1/0/0" \
  "a block overwritten behind ranread's back: ranread_verify finds 1 corrupt block"
is "$(q "SELECT block || '/' || kind || '/' || found FROM ranread_verify_errors WHERE batch IS NULL ORDER BY at DESC LIMIT 1")" "100/corrupt/no ranread stamp" \
  "... recorded with its block number (batch NULL)"
row=$(scan)
is "$(echo "$row" | cut -d'|' -f1-4)" "failed|1|0|0" "a verify batch reading it fails with 1 corrupt block"
echo "$row" | cut -d'|' -f5 | grep -q 'verify found 1 bad block.*block 100 of target "v", corrupt'
ok $? "... and its message names the block and the kind"
is "$(q "SELECT string_agg(block || '/' || kind || '/' || grp, ',') FROM ranread_verify_errors WHERE batch = (SELECT max(batch) FROM ranread_batches)")" "100/corrupt/1" \
  "... which ranread_verify_errors records with the batch and group"
put 100 b100
is "$(q "SELECT errors FROM ranread_verify('v')")" 0 "the block put back: no bad block"

# --- three damaged blocks, each read about 20 times by one batch: 3 bad
# blocks, in the columns, the rows of ranread_verify_errors, the message and
# the WARNING at the end (each bad read counted, it said about 60)
for b in 10 20 30; do blk $b b$b; put $b junk; done
out=$(psql -qAtX -d "$DB" -c "SELECT batch FROM ranread_run(1, 20000, target => 'v', verify => true)" 2>&1)
M=$(echo "$out" | grep -E '^[0-9]+$' | tail -1)
is "$(q "SELECT status || '/' || verify_errors || '/' || verify_corrupt || '/' || verify_wrong_block || '/' || verify_lost FROM ranread_batches WHERE batch = ${M:-0}")" \
  "failed/3/3/0/0" "20000 random reads of a target with 3 damaged blocks: verify_errors and verify_corrupt count 3 bad blocks, each once"
cmp_ok "$(q "SELECT verify_checked FROM ranread_batches WHERE batch = ${M:-0}")" '>=' 20000 "... while verify_checked counts every page read (20000 or more)"
is "$(q "SELECT verify_errors || '/' || verify_corrupt FROM ranread_groups WHERE batch = ${M:-0}")" "3/3" "... and so does its group's row"
is "$(q "SELECT string_agg(block::text, ',' ORDER BY block) FROM ranread_verify_errors WHERE batch = ${M:-0}")" "10,20,30" \
  "... ranread_verify_errors has each bad block once"
q "SELECT message FROM ranread_batches WHERE batch = ${M:-0}" | grep -Eq '^verify found 3 bad blocks in [0-9]+ pages read and checked \(3 corrupt, 0 wrong block, 0 lost\)'
ok $? "... the batch's message says 3 bad blocks in the pages read and checked" || q "SELECT message FROM ranread_batches WHERE batch = ${M:-0}" | sed 's/^/#   /'
echo "$out" | grep -Eq "WARNING:  ranread batch ${M:-0} verify: 3 bad blocks \(3 corrupt, 0 wrong block, 0 lost\) in [0-9]+ pages read and checked"
ok $? "... and so does the WARNING at its end" || echo "$out" | grep verify | sed 's/^/#   /'
for b in 10 20 30; do put $b b$b; done
is "$(q "SELECT errors FROM ranread_verify('v')")" 0 "the blocks put back: no bad block"

# --- misdirected: block 200's page written at block 300
blk 200 b200
blk 300 b300
put 300 b200
is "$(q "SELECT errors || '/' || wrong_block FROM ranread_verify('v')")" "1/1" \
  "a block's page copied to another offset: ranread_verify finds 1 wrong block"
is "$(q "SELECT block || '/' || kind || '/' || expected || '/' || found FROM ranread_verify_errors WHERE batch IS NULL ORDER BY at DESC LIMIT 1")" \
  "300/wrong_block/block 300/block 200" "... at block 300, holding block 200's page"
row=$(scan)
is "$(echo "$row" | cut -d'|' -f1-4)" "failed|0|1|0" "a verify batch reading it fails with 1 wrong block"
echo "$row" | cut -d'|' -f5 | grep -q 'block 300 of target "v", wrong_block: expected block 300, found block 200'
ok $? "... and says where it was and whose page it held"
put 300 b300

# --- another target's page in its place
q "SELECT ranread_setup('8MB', target => 'w')" >/dev/null
# a page whose bytes are its own but one bit flipped (the fill's page: it has a checksum)
WF="$(data_dir)/$(target_path w)"
dd if="$WF" of="$TMP/w7" bs=8192 skip=7 count=1 status=none
python3 - "$TMP/w7" "$TMP/flip" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[5000] ^= 0x10
open(sys.argv[2], 'wb').write(b)
EOF
dd if="$TMP/flip" of="$WF" bs=8192 seek=7 count=1 conv=notrunc oflag=direct status=none
is "$(q "SELECT corrupt FROM ranread_verify('w')")/$(q "SELECT block || ':' || (found LIKE 'checksum %') FROM ranread_verify_errors WHERE batch IS NULL ORDER BY at DESC LIMIT 1")" "1/7:true" \
  "one bit flipped in a page of setup's fill: found corrupt by its checksum"
dd if="$TMP/w7" of="$WF" bs=8192 seek=7 count=1 conv=notrunc oflag=direct status=none
dd if="$(data_dir)/$(target_path w)" of="$TMP/w5" bs=8192 skip=5 count=1 status=none
blk 5 b5
put 5 w5
q "SELECT errors FROM ranread_verify('v')" >/dev/null
q "SELECT found FROM ranread_verify_errors WHERE batch IS NULL ORDER BY at DESC LIMIT 1" | grep -q '^block 5 of another target (relation [0-9]*)$'
ok $? "block 5 of another target in its place: wrong_block, naming the other target's relation"
put 5 b5

# --- lost writes: a verify batch writes the first 16 blocks; meanwhile they
# are put back to their older pages again and again, as a device that drops
# acknowledged writes would
dd if="$F" of="$TMP/old16" bs=8192 count=16 status=none
bg_lost() {
  sleep 1
  for _ in $(seq 1 40); do
    dd if="$TMP/old16" of="$F" bs=8192 count=16 conv=notrunc oflag=direct status=none
    sleep 0.05
  done
}
bg_lost &
LP=$!
L=$(q "SELECT batch FROM ranread_run(1, target => 'v', duration => '4s', write_pct => 50, region_end => 1.5625, verify => true)")
row=$(q "SELECT status || '|' || verify_lost || '|' || coalesce(message, '') FROM ranread_batches WHERE batch = $L")
wait "$LP"
is "$(echo "$row" | cut -d'|' -f1)" failed "a verify batch whose acknowledged writes are undone behind its back fails"
cmp_ok "$(echo "$row" | cut -d'|' -f2)" '>' 0 "... with lost writes counted"
cmp_ok "$(q "SELECT count(*) FROM ranread_verify_errors WHERE batch = $L AND kind = 'lost' AND block < 16
                                                       AND expected LIKE 'write % of batch $L or a later one (acknowledged)'")" '>' 0 \
  "... each recorded with its block, the acknowledged write and what was found"
is "$(q "SELECT count(*) <= 100 FROM ranread_verify_errors WHERE batch = $L")" t "... at most 100 per batch"
# the dd above may have torn a page it wrote beside ranread's own writes: start afresh
q "SELECT ranread_setup('8MB', target => 'v')" >/dev/null
F="$(data_dir)/$(target_path v)"

# --- truncated
truncate -s $((512 * 8192 + 100)) "$F"
is "$(q "SELECT errors || '/' || missing FROM ranread_verify('v')")" "512/512" \
  "a truncated file: ranread_verify counts the 512 blocks past its end as missing"
is "$(q "SELECT block || '/' || kind || '/' || found FROM ranread_verify_errors WHERE batch IS NULL AND kind = 'missing' ORDER BY at DESC LIMIT 1")" \
  "512/missing/100 bytes: the file ends before it" "... the first with how much of it is left"
err=$(q_err "SELECT * FROM ranread_run(1, 100, target => 'v', verify => true)")
echo "$err" | grep -q 'ranread target "v" has 4194304 bytes on disk, not the 8388608 it was made with'
ok $? "... and a verify batch on it is refused with a clear error ($err)"
no_crash "$LOG_MARK" "nothing crashed (the server log has no PANIC, no process terminated by a signal)"
q "SELECT ranread_setup('8MB', target => 'v')" >/dev/null

# --- a target of two segment files: block numbers run on across them
q "SELECT ranread_setup('1100MB', target => 'big')" >/dev/null
is "$(q "SELECT blocks || '/' || errors FROM ranread_verify('big')")" "140800/0" \
  "ranread_verify on a fresh two-segment target: every block of both segments whole"
G=$(q "SELECT batch FROM ranread_run(2, target => 'big', duration => '1s', write_pct => 30, queue_depth => 8, region_start => 95, verify => true)")
is "$(q "SELECT status || '/' || verify_errors || '/' || (verify_checked > 0) FROM ranread_batches WHERE batch = $G")" "completed/0/true" \
  "a verify batch in the second segment checks its pages and finds none bad"
is "$(q "SELECT errors || '/' || newest_batch FROM ranread_verify('big')")" "0/$G" \
  "... and ranread_verify then finds its pages, stamped for their blocks, whole"
# verify's per-block words (12 bytes a block) cover only the verified region:
# the whole of 'big' needs 140800 x 12 bytes (1650 kB), its last 5% 7040 x 12 (82.5 kB)
R=$(q "SET ranread.verify_max_memory = '100kB'; SELECT batch FROM ranread_run(1, 2000, target => 'big', write_pct => 30, region_start => 95, verify => true)")
is "$(q "SELECT status || '/' || verify_errors FROM ranread_batches WHERE batch = $R")" "completed/0" "a verify batch on the last 5% of a target takes words for its region only: it fits in ranread.verify_max_memory = 100kB"
err=$(q_err "SET ranread.verify_max_memory = '100kB'; SELECT * FROM ranread_run(1, 2000, target => 'big', verify => true)")
is "$err" 'verify of ranread_run would take 1650 kB of shared memory for target "big" of 1100 MB, more than ranread.verify_max_memory (100 kB)' \
  "a verify batch on the whole target is refused above ranread.verify_max_memory, naming verify, the memory, the target's size and the limit"
detail=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET client_min_messages = error" -c "SET ranread.verify_max_memory = '100kB'" \
  -c "SELECT * FROM ranread_run(1, 2000, target => 'big', region_start => 50, verify => true)" 2>&1 >/dev/null)
echo "$detail" | grep -q 'DETAIL:  verify keeps 12 bytes per block it verifies: here 70400 blocks of the target, from block 70400\.'
ok $? "... and says how many blocks of the region need words, and from where"
echo "$detail" | grep -q 'HINT:  Verify a smaller region (region_start, region_end) or a smaller target'
ok $? "... with a hint: a smaller region or a smaller target"
err=$(q_err "SET ranread.verify_max_memory = '100kB'; SELECT * FROM ranread_mix('[{\"label\": \"a\", \"processes\": 1, \"verify\": true, \"region_end\": 3}, {\"label\": \"b\", \"processes\": 1, \"verify\": true, \"region_start\": 97}]', target => 'big', duration => '1s')")
echo "$err" | grep -q '^verify of ranread_mix would take 1650 kB of shared memory for target "big"'
ok $? "two verifying groups at both ends of a target need words from the first region's start to the last one's end ($err)"

# --- ranread_verify holds the cluster's claim, as a batch does, for its whole
# read: its backend, stopped (SIGSTOP) in the middle of a long check, holds it
# while the other sessions try
check_start() {
  psql -qAtX -d "$DB" -c "SET application_name = 'rr_check'" \
    -c "SELECT count(*) FROM generate_series(1, 500), LATERAL ranread_verify('big')" >"$TMP/check.out" 2>&1 &
  CP=$!
  wait_for 30 "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE application_name = 'rr_check' AND state = 'active')"
  VPID=$(q "SELECT pid FROM pg_stat_activity WHERE application_name = 'rr_check'")
  # reading, with its claim on the target (on a loaded machine the session
  # is active well before that)
  wait_for 30 "SELECT EXISTS (SELECT FROM ranread_progress_full WHERE pid = ${VPID:-0} AND kind = 'verify' AND bytes_done > 0)"
}
# the status of the batch a call runs
batch_status() { q "SELECT status FROM ranread_batches WHERE batch = $(q "SELECT batch FROM $1")"; }
trap '[ -n "$VPID" ] && kill -CONT "$VPID" 2>/dev/null' EXIT
check_start
kill -STOP "$VPID"
is "$(q_err "SELECT * FROM ranread_run(1, 100, target => 'v', write_pct => 50, verify => true)")" \
  'ranread_verify is checking target "big" of database "rr_verify"' \
  "a batch started while ranread_verify reads a target is refused, naming the check"
is "$(q_err "SELECT * FROM ranread_run(1, 100, target => 'big', write_pct => 50)")" \
  'ranread_verify is checking target "big" of database "rr_verify"' "... a writing batch on the target being checked too"
is "$(q_err "SELECT * FROM ranread_verify('v')")" \
  'ranread_verify cannot check target "v" while ranread_verify checks target "big" of database "rr_verify"' \
  "... and so is a second ranread_verify"
q "SELECT pg_cancel_backend($VPID)" >/dev/null
kill -CONT "$VPID"
wait "$CP"
grep -q 'canceling statement due to user request' "$TMP/check.out"
ok $? "ranread_verify is cancelled in the middle of its read"
is "$(batch_status "ranread_run(1, 100, target => 'big', write_pct => 50, verify => true)")" completed \
  "... and its claim is given back: a batch on the target runs"
check_start
kill -STOP "$VPID"
q "SELECT pg_terminate_backend($VPID)" >/dev/null
kill -CONT "$VPID"
wait "$CP"
is "$(batch_status "ranread_run(1, 100, target => 'big', write_pct => 50, verify => true)")" completed \
  "a terminated ranread_verify gives its claim back too"
check_start
is "$(q "SELECT ranread_stop()")" 1 "ranread_stop() stops a ranread_verify, as it stops a batch (one process)"
wait "$CP"
grep -q 'ranread_verify of target "big" was stopped by ranread_stop() at block [0-9]*' "$TMP/check.out"
ok $? "... which ends with an error saying so"
is "$(batch_status "ranread_run(1, 100, target => 'big', verify => true)")" completed \
  "... and gives its claim back"
VPID=
# the reverse: a check asked for while a batch runs
psql -qAtX -d "$DB" -c "SELECT * FROM ranread_run(1, target => 'v', duration => '8s', write_pct => 50, verify => true)" >/dev/null 2>&1 &
RP=$!
wait_for 30 "SELECT EXISTS (SELECT FROM ranread_batches WHERE status = 'running' AND ranread_internal.ranread_batch_live(batch))"
RB=$(q "SELECT batch FROM ranread_batches WHERE status = 'running'")
is "$(q_err "SELECT * FROM ranread_verify('v')")" "ranread_verify cannot check target \"v\" while batch $RB runs" \
  "ranread_verify asked for while a batch runs is refused, naming the batch"
wait "$RP"
is "$(q "SELECT ranread_internal.ranread_batch_live($RB)")" t "a check after a batch keeps the batch's identity: ranread_batch_live still knows it"
q "SELECT * FROM ranread_verify('v')" >/dev/null
is "$(q "SELECT ranread_internal.ranread_batch_live($RB)")" t "... once the check is over too"
q "SELECT ranread_purge('big')" >/dev/null

# --- the count of a block's writes begun, which tells a read held in flight
# that it raced them, does not wrap: 256 writes (the 8-bit count 1.1 kept in
# the word wrapped there) or 65536, one after another or each begun before
# the last completed (so that none raises the acknowledged sequence)
is "$(q "CREATE FUNCTION pg_temp.words_selftest(integer, boolean) RETURNS boolean LANGUAGE c STRICT
           AS 'ranread', 'ranread_verify_words_selftest';
         SELECT string_agg(n || (CASE WHEN c THEN ' chained' ELSE '' END) || ':' || pg_temp.words_selftest(n, c), ',' ORDER BY c, n)
           FROM unnest(ARRAY[0, 1, 255, 256, 512, 65536]) n, unnest(ARRAY[false, true]) c")" \
  "0:false,1:true,255:true,256:true,512:true,65536:true,0 chained:false,1 chained:true,255 chained:true,256 chained:true,512 chained:true,65536 chained:true" \
  "a read held in flight across any number of writes of its block, 256 and 65536 among them, counts as raced; across none, not"

# --- bad input
err=$(q_err "SELECT * FROM ranread_run_step('{\"groups\": [{\"processes\": 1, \"verify\": \"yes\"}], \"iterations\": 10, \"target\": \"v\"}')")
is "$err" "verify of ranread_run_step must be a boolean (true or false), not a string" "verify given a string in a spec is refused, naming the option"
err=$(q_err "SELECT * FROM ranread_run(1, 10, target => 'v', verify => 'maybe')")
echo "$err" | grep -q 'invalid input syntax for type boolean: "maybe"'
ok $? "verify => 'maybe' is refused as no boolean"
is "$(q_err "SELECT * FROM ranread_verify('nope')")" 'ranread target "nope" of ranread_verify does not exist' \
  "ranread_verify of a missing target: an error naming it"
is "$(q_err "SELECT * FROM ranread_verify(NULL)")" 'target of ranread_verify must be a non-empty name' \
  "ranread_verify(NULL): an error naming the argument"
is "$(q_err "SELECT * FROM ranread_run(1, 10, target => 'v', block_size => 4096, verify => true)")" \
  'block_size 4096 of ranread_run cannot be used with verify' "verify with 4 kB blocks is refused"
err=$(q_err "SELECT * FROM ranread_mix('[{\"label\": \"a\", \"processes\": 1, \"verify\": true}, {\"label\": \"b\", \"processes\": 1, \"write_pct\": 10}]', target => 'v', duration => '1s')")
is "$err" 'group "b" of ranread_mix writes target "v", which group "a" verifies, without verify' \
  "a mix with an unverified writer beside a verifying group is refused, naming both"
M=$(q "SELECT batch FROM ranread_mix('[{\"label\": \"a\", \"processes\": 1, \"verify\": true, \"write_pct\": 20}, {\"label\": \"b\", \"processes\": 1}]', target => 'v', duration => '1s') LIMIT 1")
is "$(q "SELECT string_agg(label || ':' || verify || ':' || coalesce(verify_errors::text, 'null'), ',' ORDER BY grp) FROM ranread_groups WHERE batch = $M")" \
  "a:true:0,b:false:null" "a mix's groups verify each as asked, and record it"

# --- ranread_reset takes the bad blocks with their batches, and ranread_verify's by their time
cmp_ok "$(q "SELECT count(*) FROM ranread_verify_errors")" '>' 0 "the history holds bad blocks"
q "SELECT ranread_reset(now() - interval '1 hour')" >/dev/null
cmp_ok "$(q "SELECT count(*) FROM ranread_verify_errors")" '>' 0 "ranread_reset(before) keeps those found since"
q "SELECT ranread_reset()" >/dev/null
is "$(q "SELECT count(*) FROM ranread_verify_errors")" 0 "ranread_reset() removes every one, with the batches"

rm -rf "$TMP"
done_testing
