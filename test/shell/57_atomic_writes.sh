#!/bin/bash
# Atomic writes (docs/writes-and-durability.md, "Does the storage keep what it
# flushes?"): what ranread says of atomic 8 kB writes on a tablespace is what
# statx (STATX_WRITE_ATOMIC) says of a file there, read here independently (a
# Python probe of the raw syscall) and against the device's own queue limit in
# /sys; ranread_server_info and ranread_advise's full_page_writes row say the
# same.  On most machines (a virtio disk, ext4) the answer is "not guaranteed";
# the advisor's rows for both answers are test/tap/advise_durability.sql.
. "$(dirname "$0")/lib/lib.sh"

setup_db rr_atomic
DD=$(data_dir)
TS=$(pg_owned_dir rr_atomic_ts)
q "CREATE TABLESPACE rr_atomic_ts LOCATION '$TS'" >/dev/null
q "SELECT ranread_setup('8MB', 'rr_atomic_ts', 'atomic_t')" >/dev/null

probe() {  # FILE: "reported unit_min unit_max segments_max" from statx, raw
  python3 - "$1" <<'PY'
import ctypes, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(256)
if libc.syscall(332, -100, sys.argv[1].encode(), 0, 0x10000, buf) != 0:  # statx, x86-64
    print("f"); sys.exit(0)
mask, = struct.unpack_from("<I", buf.raw, 0)
if not mask & 0x10000:
    print("f"); sys.exit(0)
print("t %d %d %d" % struct.unpack_from("<III", buf.raw, 0xa8))
PY
}

for ts in pg_default rr_atomic_ts; do
  IFS='|' read -r asked reported umin umax segs atomic note < <(q "SELECT * FROM ranread_internal.ranread_atomic_writes('$ts')")
  case "$asked" in /*) file=$asked ;; *) file=$DD/$asked ;; esac
  [ -f "$file" ]
  ok $? "$ts: ranread asks statx of a relation's file there ($asked)"
  want=$(probe "$file")
  got=$( [ "$reported" = t ] && echo "t $umin $umax $segs" || echo f )
  is "$got" "$want" "$ts: the atomic write units ranread reports are statx's, read independently ($want)"
  dev="/sys/dev/block/$(stat -c '%Hd:%Ld' "$file")"
  qmax=$(cat "$dev/queue/atomic_write_unit_max_bytes" 2>/dev/null || cat "$dev/../queue/atomic_write_unit_max_bytes" 2>/dev/null || echo unknown)
  diag "$ts: device $(readlink -f "$dev") atomic_write_unit_max_bytes $qmax; $note"
  if [ "$qmax" = 0 ]; then
    is "$atomic" f "$ts: a device that guarantees no atomic write unit (queue limit 0) is not said to guarantee 8 kB"
  fi
  expect_atomic=$( [ "$reported" = t ] && [ "$umin" -gt 0 ] && [ "$umin" -le 8192 ] && [ "$umax" -ge 8192 ] && echo t || echo f)
  is "$atomic" "$expect_atomic" "$ts: atomic 8 kB writes are guaranteed exactly when statx's unit covers 8 kB"
  case "$note" in "atomic 8 kB writes guaranteed"*) [ "$atomic" = t ]; r=$? ;; "atomic 8 kB writes not guaranteed"*) [ "$atomic" = f ]; r=$? ;; *) r=1 ;; esac
  ok $r "$ts: the note says so ($note)"
done

info=$(q "SELECT value FROM ranread_server_info() WHERE item = 'target atomic_t'")
case "$info" in *"; atomic 8 kB writes "*) r=0 ;; *) r=1; diag "$info" ;; esac
ok $r "ranread_server_info says of the target's filesystem whether atomic 8 kB writes are guaranteed"
note=$(q "SELECT note FROM ranread_internal.ranread_atomic_writes('rr_atomic_ts')")
IFS='|' read -r sugg figures < <(q "SELECT suggested, figures FROM ranread_advise('rr_atomic_ts', cache_hit_ratio => 0) WHERE setting = 'full_page_writes'")
case "$figures" in "rr_atomic_ts: $note; pg_default: "*) r=0 ;; *) r=1; diag "$figures" ;; esac
ok $r "ranread_advise's full_page_writes row names what statx says of the tablespace and of the database's default one"
if [ "$(q "SELECT (SELECT atomic_8k FROM ranread_internal.ranread_atomic_writes('rr_atomic_ts')) AND (SELECT atomic_8k FROM ranread_internal.ranread_atomic_writes('pg_default'))")" != t ]; then
  is "$sugg" on "... not guaranteed here: keep full_page_writes = on"
  case "$figures" in *": not guaranteed: keep full_page_writes = on"*) r=0 ;; *) r=1 ;; esac
  ok $r "... and says so"
fi
# the data directory and pg_wal: what statx says of a file on each, and the
# same reason for the same filesystem (the data directory was asked as a
# directory, which no filesystem answers for, and blamed a kernel before 6.11)
KERNEL=$(uname -r)
for item in "data directory" pg_wal; do
  v=$(q "SELECT value FROM ranread_server_info() WHERE item = '$item'")
  note=${v#*; }
  eval "NOTE_${item// /_}=\$note"
  case "$KERNEL" in
    [0-5].* | 6.[0-9].* | 6.10.*) ok 0 "$item: # SKIP kernel $KERNEL is before 6.11" ;;
    *) case "$note" in *"kernel before 6.11"*) r=1 ;; *) r=0 ;; esac
       ok $r "$item: kernel $KERNEL is not blamed as a kernel before 6.11 ($note)" ;;
  esac
  case "$note" in "atomic 8 kB writes "*) r=0 ;; *) r=1 ;; esac
  ok $r "$item: ranread_server_info says whether atomic 8 kB writes are guaranteed"
done
if [ "$(stat -c %d "$DD")" = "$(stat -c %d "$DD/pg_wal/")" ]; then
  is "$NOTE_pg_wal" "$NOTE_data_directory" "the data directory and pg_wal, on one filesystem: the same answer, for the same reason"
else
  ok 0 "# SKIP pg_wal is on another filesystem than the data directory"
fi
want=$(probe "$DD/PG_VERSION")
case "$want" in
  f) case "$NOTE_data_directory" in *"does not report atomic write units"* | *"kernel before 6.11"*) r=0 ;; *) r=1 ;; esac ;;
  "t 0 "*) case "$NOTE_data_directory" in *"no atomic write unit"*) r=0 ;; *) r=1 ;; esac ;;
  *) case "$NOTE_data_directory" in *"statx: "*) r=0 ;; *) r=1 ;; esac ;;
esac
ok $r "the data directory's answer is statx's for a regular file there ($want: $NOTE_data_directory)"

is "$(q_err "SELECT * FROM ranread_internal.ranread_atomic_writes('no_such_ts')")" 'tablespace "no_such_ts" does not exist' \
  "a tablespace that does not exist is refused, named"
q "SELECT ranread_purge('atomic_t')" >/dev/null
q "DROP TABLESPACE rr_atomic_ts" >/dev/null
done_testing
