# slowfs.sh - slow storage for ranread's tests, as a bash library to source.
#
# slowfs (slowfs.c beside this file) is a FUSE passthrough filesystem whose
# reads and writes each take a set time, with at most max_background (12 by
# default) requests in flight: the kernel makes whoever submits the next
# O_DIRECT read wait, inside pread or inside io_uring_submit, until one
# completes.  See README.md beside this file for the measurements.
#
#   . test/rig/slowfs.sh
#   slowfs_build || { echo "1..0 # SKIP $SLOWFS_WHY"; exit 0; }
#   trap slowfs_umount_all EXIT
#   slowfs_mount "$backing" "$mnt" read_delay_us=2000
#   dir=$(slowfs_pg_dir "$mnt" spc)      # for CREATE TABLESPACE ... LOCATION
#   ...
#   slowfs_stats "$mnt" reads            # READ requests the daemon served
#
# Needs root (allow_other, chown of what callers create), /dev/fuse, the
# fuse3 and libfuse3-dev packages, pkg-config and gcc; slowfs_submit_blocks
# also liburing-dev.  Every wait here is bounded.

SLOWFS_SRC_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SLOWFS_BIN=""            # the daemon, once slowfs_build has run
SLOWFS_PROBE=""          # uring_probe, when liburing-dev is there
SLOWFS_WHY=""            # why slowfs_build failed, for a TAP skip line
declare -gA SLOWFS_PIDS=()   # mountpoint -> daemon PID, for slowfs_umount

# slowfs_build [OUTDIR]: compile slowfs (and uring_probe when liburing is
# there) into OUTDIR, by default a new directory under $RANREAD_TEST_TMP or
# /tmp.  Sets SLOWFS_BIN and SLOWFS_PROBE.  Returns non-zero and puts the
# reason in SLOWFS_WHY (also printed on stderr) when FUSE cannot be used
# here: no /dev/fuse, no fusermount3, no fuse3 headers, not root.
slowfs_build() {
  local out=${1:-} err
  SLOWFS_WHY=""
  if [ "$(id -u)" -ne 0 ]; then
    SLOWFS_WHY="slowfs needs root (allow_other, chown)"
  elif [ ! -c /dev/fuse ]; then
    SLOWFS_WHY="no /dev/fuse (FUSE is not available here)"
  elif ! command -v fusermount3 >/dev/null 2>&1; then
    SLOWFS_WHY="no fusermount3 (Debian package fuse3)"
  elif ! command -v gcc >/dev/null 2>&1 || ! command -v pkg-config >/dev/null 2>&1; then
    SLOWFS_WHY="gcc or pkg-config is missing"
  elif ! pkg-config --exists fuse3; then
    SLOWFS_WHY="no fuse3 headers (Debian package libfuse3-dev)"
  fi
  if [ -z "$SLOWFS_WHY" ]; then
    [ -n "$out" ] || out=$(mktemp -d "${RANREAD_TEST_TMP:-/tmp}/slowfs-bin.XXXXXX")
    mkdir -p "$out"
    # shellcheck disable=SC2046
    if ! err=$(gcc -Wall -Wextra -O2 -o "$out/slowfs" "$SLOWFS_SRC_DIR/slowfs.c" \
                 $(pkg-config --cflags --libs fuse3) 2>&1); then
      SLOWFS_WHY="slowfs does not compile: $(echo "$err" | head -3 | tr '\n' ' ')"
    fi
  fi
  if [ -n "$SLOWFS_WHY" ]; then
    echo "slowfs: $SLOWFS_WHY" >&2
    return 1
  fi
  SLOWFS_BIN="$out/slowfs"
  SLOWFS_PROBE=""
  if gcc -Wall -Wextra -O2 -o "$out/uring_probe" "$SLOWFS_SRC_DIR/uring_probe.c" -luring 2>/dev/null; then
    SLOWFS_PROBE="$out/uring_probe"
  fi
  return 0
}

# slowfs_mount BACKING MOUNTPOINT [OPTIONS]: mount slowfs over the directory
# BACKING (both made if missing) at MOUNTPOINT, with the -o OPTIONS given
# (comma-separated: read_delay_us=N, write_delay_us=N, read_tail_ppm=N,
# read_tail_us=N, fsync_delay_us=N, fdatasync_delay_us=N, max_background=N,
# congestion_threshold=N, max_threads=N, any libfuse option) plus
# allow_other,default_permissions.  Waits up to 10 s until the mount is
# there; the daemon's messages go to MOUNTPOINT's sibling file
# MOUNTPOINT.log.  Returns non-zero, with the log on stderr, if it fails or
# if MOUNTPOINT is a mount point already.
slowfs_mount() {
  local backing=$1 mnt=$2 opts=${3:-} pid deadline log
  [ -n "$SLOWFS_BIN" ] || slowfs_build "" || return 1
  mkdir -p "$backing" "$mnt" || return 1
  mnt=$(readlink -m "$mnt")
  if findmnt -rn -M "$mnt" >/dev/null 2>&1; then
    echo "slowfs: $mnt is already a mount point" >&2
    return 1
  fi
  log="$mnt.log"
  "$SLOWFS_BIN" "$backing" "$mnt" -f -o "allow_other,default_permissions${opts:+,$opts}" \
    < /dev/null > "$log" 2>&1 &
  pid=$!
  disown "$pid"   # not a job: a bare `wait` in the test must not wait for it
  SLOWFS_PIDS[$mnt]=$pid
  deadline=$((SECONDS + 10))
  while [ "$(findmnt -rno FSTYPE -M "$mnt" 2>/dev/null)" != "fuse.slowfs" ]; do
    if ! kill -0 "$pid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      echo "slowfs: mounting $mnt failed:" >&2
      cat "$log" >&2
      slowfs_umount "$mnt"
      return 1
    fi
    sleep 0.05
  done
  return 0
}

# slowfs_umount MOUNTPOINT: unmount and stop the daemon.  If files are
# still open there (busy), detaches the mount lazily: it leaves the namespace
# at once and the daemon serves the open files until they are closed.  A
# daemon still running 5 s later is sent SIGTERM, then SIGKILL (its PID
# only); processes still holding files there then get ENOTCONN.  Quiet and
# safe when nothing is mounted: use it in traps.
slowfs_umount() {
  local mnt pid deadline
  mnt=$(readlink -m "$1")
  if findmnt -rn -M "$mnt" >/dev/null 2>&1; then
    fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -uz "$mnt" 2>/dev/null ||
      umount -l "$mnt" 2>/dev/null
  fi
  pid=${SLOWFS_PIDS[$mnt]:-}
  unset "SLOWFS_PIDS[$mnt]"
  [ -n "$pid" ] || return 0
  deadline=$((SECONDS + 5))
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.05; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null
    deadline=$((SECONDS + 2))
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.05; done
    kill -KILL "$pid" 2>/dev/null
  fi
  return 0
}

# slowfs_umount_all: slowfs_umount every mount this shell made (for traps)
slowfs_umount_all() {
  local m
  for m in "${!SLOWFS_PIDS[@]}"; do slowfs_umount "$m"; done
  return 0
}

# slowfs_stats MOUNTPOINT [FIELD]: the daemon's counters, or one of them
# (reads, writes, in_flight, max_in_flight: READ and WRITE requests served
# since the mount, being served now, the most served at once; and the write
# cache's mode, cached_writes, cached_acked, flushes, dsync_writes, cuts,
# dropped_writes, dropped_acked, torn)
slowfs_stats() {
  if [ -n "${2:-}" ]; then
    awk -v f="$2" '$1 == f { print $2 }' "$1/.slowfs-stats"
  else
    cat "$1/.slowfs-stats"
  fi
}

# slowfs_control MOUNTPOINT COMMAND: send the daemon's write cache a command
# (honest, lying, cut, tear, writeback; mount with cache=honest or
# cache=lying); see slowfs.c's header.  Fails on an unknown command.
slowfs_control() {
  printf '%s\n' "$2" > "$1/.slowfs-control"
}

# slowfs_pg_dir MOUNTPOINT NAME: make MOUNTPOINT/NAME owned by postgres,
# mode 700, for CREATE TABLESPACE ... LOCATION; prints its path.  Makes the
# mount's root (the backing directory) traversable by all, which the
# postgres user needs.
slowfs_pg_dir() {
  local d="$1/$2"
  chmod a+x "$1" && mkdir -p "$d" && chown postgres:postgres "$d" && chmod 700 "$d" || return 1
  echo "$d"
}

# slowfs_submit_blocks FILE [N]: does io_uring_submit wait on FILE (on a
# slowfs mount with a read delay) once max_background reads are in flight?
# Submits N (default 64) O_DIRECT reads of 8 kB without reaping, and prints
# uring_probe's line ("submits=64 blocked=5 first_blocked=12 ...").  Returns
# 0 if some submits blocked, 1 if none did, 2 if the probe could not run
# (no liburing-dev, or FILE smaller than N x 8 kB).
slowfs_submit_blocks() {
  local line
  [ -n "$SLOWFS_PROBE" ] || { echo "slowfs: uring_probe not built (liburing-dev)" >&2; return 2; }
  line=$("$SLOWFS_PROBE" "$1" "${2:-64}" 8192) || return 2
  echo "$line"
  case "$line" in *" blocked=0 "*) return 1 ;; esac
  return 0
}
