# Helpers of the multi-session and fault tests (30_stop.sh ... 80_honest_counts.sh),
# sourced after lib.sh.  Not a test itself: prove runs test/shell/*.sh only.
#
# Every wait here is bounded, every background psql is remembered and killed
# (by its PID) when the test exits, and no batch is left running for the next
# test file.

BG_PIDS=()
WORK=$(mktemp -d "$TMPDIR_TEST/$(basename "$0" .sh).XXXXXX")
chmod 755 "$WORK"

now_ms() { date +%s%3N; }

# seconds between two now_ms readings, for diagnostics
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1000 }'; }

# q_in DB SQL: like q, in another database
q_in() { _q strict "$1" "$2"; }

# q_state SQL: "SQLSTATE: message" of the statement's error (empty if none)
q_state() {
  psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET client_min_messages = error" -c "$1" 2>&1 >/dev/null |
    sed -n 's/^ERROR:  //p' | head -1
}

# q_all SQL: every message (errors, hints, notices) of a statement, and its rows
q_all() { psql -qAtX -d "$DB" -c "$1" 2>&1; }

# bg_psql NAME SQL...: run statements in one background session whose
# application_name is NAME; output in $WORK/NAME.out, PID in BG_PID
bg_psql() {
  local name=$1 s
  local args=()
  shift
  for s in "$@"; do args+=(-c "$s"); done
  PGAPPNAME=$name psql -qAtX -d "$DB" "${args[@]}" > "$WORK/$name.out" 2>&1 &
  BG_PID=$!
  BG_PIDS+=("$BG_PID")
}

# kill_client PID: SIGKILL one of our background psql clients, quietly
kill_client() {
  kill -9 "$1" 2>/dev/null
  wait "$1" 2>/dev/null
}

# end_session NAME PID: end a background session for good: terminate its
# backend (a killed psql leaves the backend running, and holding its locks,
# until it next talks to the client) and kill its client
end_session() {
  _q strict postgres "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '$1'" >/dev/null
  kill_client "$2"
}

# bg_output NAME: what a background session printed
bg_output() { cat "$WORK/$1.out" 2>/dev/null; }

# pid_alive PID: the process exists and is not a zombie
pid_alive() {
  [ -n "$1" ] && [ -e "/proc/$1" ] || return 1
  ! awk '{ exit !($3 == "Z") }' "/proc/$1/stat" 2>/dev/null
}

# wait_pid PID SECONDS: wait until a process has exited; false on timeout
wait_pid() {
  [ -n "$1" ] || return 1
  local deadline=$(( $(now_ms) + $2 * 1000 ))
  while pid_alive "$1"; do
    [ "$(now_ms)" -ge "$deadline" ] && return 1
    sleep 0.05
  done
  wait "$1" 2>/dev/null
  return 0
}

# session_pid NAME [MODE]: backend PID of the client session named NAME
# (MODE: as _q's, strict by default)
session_pid() {
  _q "${2:-strict}" postgres "SELECT pid FROM pg_stat_activity WHERE application_name = '$1' AND backend_type = 'client backend' LIMIT 1"
}

# wait_session SECONDS NAME: until that session's backend exists
wait_session() {
  local deadline=$(( $(now_ms) + $1 * 1000 ))
  while [ -z "$(session_pid "$2" poll)" ]; do
    [ "$(now_ms)" -ge "$deadline" ] && return 1
    sleep 0.05
  done
}

# ranread_workers [MODE]: ranread background workers alive in the cluster
ranread_workers() {
  _q "${1:-strict}" postgres "SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE '%ranread%'"
}

# worker_pids: their PIDs, one a line
worker_pids() {
  _q strict postgres "SELECT pid FROM pg_stat_activity WHERE backend_type LIKE '%ranread%' ORDER BY pid"
}

# wait_running SECONDS: until a batch of $DB is running and has done I/O
# (its workers report progress in pg_stat_activity once a second)
wait_running() {
  local deadline=$(( $(now_ms) + $1 * 1000 ))
  while :; do
    [ "$(_q poll "$DB" "SELECT EXISTS (SELECT FROM ranread_batches WHERE status = 'running')
             AND EXISTS (SELECT FROM pg_stat_activity
                          WHERE backend_type LIKE '%ranread%' AND query ~ ' [1-9][0-9]* I/Os')")" = t ] && return 0
    [ "$(now_ms)" -ge "$deadline" ] && return 1
    sleep 0.1
  done
}

# wait_workers_gone SECONDS: until no ranread worker is left; sets GONE_MS to
# the milliseconds it took (from the call)
wait_workers_gone() {
  local t0 deadline
  t0=$(now_ms)
  deadline=$(( t0 + $1 * 1000 ))
  while [ "$(ranread_workers poll)" != 0 ]; do
    if [ "$(now_ms)" -ge "$deadline" ]; then GONE_MS=$(( $(now_ms) - t0 )); return 1; fi
    sleep 0.05
  done
  GONE_MS=$(( $(now_ms) - t0 ))
}

# latest_batch: the newest batch of $DB
latest_batch() { q "SELECT max(batch) FROM ranread_batches"; }

# batch_row BATCH: status|reads|has_message of one batch
batch_row() { q "SELECT status || '|' || coalesce(reads, -1) || '|' || (message IS NOT NULL) FROM ranread_batches WHERE batch = $1"; }

# checkpointer_pid [MODE]: changes when the server crash-restarts (the
# postmaster keeps its start time, every child is new)
checkpointer_pid() {
  _q "${1:-strict}" postgres "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'"
}

# wait_restarted SECONDS OLD_CHECKPOINTER_PID: until the server answers again
# with a new checkpointer, i.e. the crash restart is over
wait_restarted() {
  local deadline=$(( $(now_ms) + $1 * 1000 )) c
  while :; do
    c=$(checkpointer_pid poll)
    [ -n "$c" ] && [ "$c" != "$2" ] && return 0
    [ "$(now_ms)" -ge "$deadline" ] && return 1
    sleep 0.2
  done
}

# the postmaster's PID, from the data directory
postmaster_pid() { head -1 "$(data_dir)/postmaster.pid"; }

# setup_target [SIZE] [TARGET]: make a target in $DB, quietly
setup_target() {
  q "SELECT target FROM ranread_setup('${1:-64MB}', target => '${2:-ranread}')" >/dev/null
}

faults_cleanup() {
  local p
  for p in "${BG_PIDS[@]}"; do
    pid_alive "$p" && kill_client "$p"
  done
  # no batch may outlive this file
  [ -n "${DB:-}" ] && psql -qAtX -d "$DB" -c "SELECT ranread_stop()" >/dev/null 2>&1
  return 0
}
trap faults_cleanup EXIT

# dsm_control: the /dev/shm file of this cluster's dynamic shared memory
# control segment (the postmaster maps it; its header starts with the magic
# number 0x9a503d32)
dsm_control() {
  local pm f
  pm=$(postmaster_pid)
  for f in $(grep -o '/dev/shm/PostgreSQL\.[0-9]*' "/proc/$pm/maps" | sort -u); do
    perl -e 'open my $f, "<", $ARGV[0] or exit 1; binmode $f; read($f, my $h, 4) == 4 or exit 1;
             exit(unpack("L", $h) == 0x9a503d32 ? 0 : 1)' "$f" && { echo "$f"; return 0; }
  done
  return 1
}

# dsm_segments: "LIVE FILES": segments this cluster's control segment lists
# as in use (refcnt >= 1), and how many of them exist as /dev/shm files
dsm_segments() {
  local ctl
  ctl=$(dsm_control) || { echo "? ?"; return; }
  perl -e '
    open my $f, "<", $ARGV[0] or die; binmode $f; local $/; my $d = <$f>;
    my ($magic, $n) = unpack("L2", $d);
    my ($live, $files) = (0, 0);
    for my $i (0 .. $n - 1) {
      # PG 15 dsm_control_item: handle, refcnt, first_page, npages, pm handle, pinned = 40 bytes
      my ($h, $ref) = unpack("L2", substr($d, 16 + 40 * $i, 8));
      next unless $ref >= 1;
      $live++;
      $files++ if -e "/dev/shm/PostgreSQL.$h";
    }
    print "$live $files\n";' "$ctl"
}
