# A loop-mounted ext4 filesystem for a test that needs a small or a
# differently mounted one (a full disk, a reserve, data=journal, a WAL
# filesystem).  Source it after lib.sh; call loopfs_cleanup in the test's
# EXIT trap.
#
#   loopfs_make SIZE DIR [OPTIONS]  an ext4 filesystem of SIZE (truncate's
#                                   spelling) in the file DIR.img, mounted on
#                                   DIR (made) with -o loop[,OPTIONS] and
#                                   readable by all; status 1 where this
#                                   machine cannot (the test then skips)
#   loopfs_cleanup                  unmounts what loopfs_make mounted (lazily
#                                   when it is still busy)

LOOPFS_MOUNTS=()

loopfs_make() {
  local size=$1 dir=$2 opts=${3:-}
  mkdir -p "$dir" && truncate -s "$size" "$dir.img" && mkfs.ext4 -q -m 0 "$dir.img" &&
    mount -o "loop${opts:+,$opts}" "$dir.img" "$dir" 2>/dev/null || return 1
  LOOPFS_MOUNTS+=("$dir")
  chmod 755 "$dir"
}

loopfs_cleanup() {
  local m
  for m in "${LOOPFS_MOUNTS[@]}"; do
    if mountpoint -q "$m"; then umount "$m" 2>/dev/null || umount -l "$m"; fi
  done
}
