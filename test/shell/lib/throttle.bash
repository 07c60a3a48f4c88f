# Helpers for shell tests on a disk with known figures: cgroup v1 blkio
# throttling caps the reads of the test cluster's postmaster and of every
# child it forks after the move (ranread's workers among them).  Sourced
# after lib.sh.  Not a test itself.
#
#   throttle_skip_unless_available   "1..0 # SKIP" and exit without cgroup v1 blkio
#   throttle_server NAME IOPS [BYTES_PER_S]
#                                    cap the device under the data directory;
#                                    sets THROTTLE_DEV and THROTTLE_MAJMIN; the
#                                    cgroup is removed when the test exits

CG_ROOT=/sys/fs/cgroup/blkio

throttle_skip_unless_available() {
  if [ ! -w "$CG_ROOT" ] || [ ! -e "$CG_ROOT/blkio.throttle.read_iops_device" ]; then
    echo "1..0 # SKIP cgroup v1 blkio throttling is not available"
    exit 0
  fi
}

throttle_cleanup() {
  if [ -d "$THROTTLE_CG" ]; then
    for p in $(cat "$THROTTLE_CG/cgroup.procs" 2>/dev/null); do echo "$p" > "$CG_ROOT/cgroup.procs" 2>/dev/null; done
    rmdir "$THROTTLE_CG" 2>/dev/null
  fi
}

throttle_server() {
  local name=$1 iops=$2 bps=${3:-} datadir parent
  datadir=$(data_dir)
  THROTTLE_DEV=$(findmnt -no SOURCE -T "$datadir")
  parent=$(lsblk -no PKNAME "$THROTTLE_DEV" 2>/dev/null | head -1)
  [ -n "$parent" ] && THROTTLE_DEV="/dev/$parent"
  THROTTLE_MAJMIN=$(lsblk -dno MAJ:MIN "$THROTTLE_DEV" | tr -d ' ')
  THROTTLE_CG="$CG_ROOT/${name}_$$"
  trap throttle_cleanup EXIT
  mkdir "$THROTTLE_CG"
  echo "$THROTTLE_MAJMIN $iops" > "$THROTTLE_CG/blkio.throttle.read_iops_device"
  [ -z "$bps" ] || echo "$THROTTLE_MAJMIN $bps" > "$THROTTLE_CG/blkio.throttle.read_bps_device"
  head -1 "$datadir/postmaster.pid" > "$THROTTLE_CG/cgroup.procs"
}
