# bench/lib.sh: what the side-by-side benchmarks of 1.1 share (bench/mix,
# bench/study, bench/commit, bench/fleet).  Sourced, not run.
#
#   bench_enter SCRIPT ARGS...   outside a cluster: check root and fio,
#                                snapshot the installed extension, and run
#                                SCRIPT again inside a throwaway pg_virtualenv
#                                cluster that loads the snapshot (so a
#                                `make install` meanwhile changes nothing),
#                                with max_worker_processes BENCH_MAX_WORKERS
#                                (16)
#   bench_target NAME SIZE       make a target; sets SEGS (fio's --filename)
#   fio_groups JSON              per job section of a fio JSON output:
#                                "name iops mbps avg_ms" lines
#   bench_huge_fio               sets HUGE_FIO to fio's option for buffers in
#                                2 MB huge pages (--iomem=mmaphuge on a private
#                                hugetlbfs, 64 pages reserved and given back at
#                                exit), like ranread's (src/run/iobuf.c); empty
#                                when the kernel gives none
#   ratio A B                    A / B, 2 decimals
#   median N...                  the median of numbers
#
# The report goes to bench/RESULTS-<name>.md; raw output to bench/out/.

bench_enter() {
  local script=$1
  shift
  [ "$(id -u)" -eq 0 ] || { echo "$script: run as root" >&2; exit 1; }
  command -v fio >/dev/null || apt-get install -y -qq fio >/dev/null || { echo "$script: fio is missing" >&2; exit 1; }
  local pgbin=/usr/lib/postgresql/15/bin pkglib sharedir src snap
  pkglib=$($pgbin/pg_config --pkglibdir)
  sharedir=$($pgbin/pg_config --sharedir)
  src="${RANREAD_DESTDIR:-}"
  [ -f "$src$pkglib/ranread.so" ] || { echo "$script: the extension is not installed: make && make install" >&2; exit 1; }
  snap=$(mktemp -d /tmp/ranread-bench-ext.XXXXXX)
  trap 'rm -rf "$snap"' EXIT
  mkdir -p "$snap$pkglib" "$snap$sharedir/extension"
  cp -p "$src$pkglib/ranread.so" "$snap$pkglib/"
  cp -p "$src$sharedir"/extension/ranread.control "$src$sharedir"/extension/ranread--*.sql "$snap$sharedir/extension/"
  chmod -R a+rX "$snap"
  export RANREAD_BENCH_CLUSTER=1
  export BENCH_BUILD="ranread.so md5 $(md5sum "$src$pkglib/ranread.so" | cut -c1-12); tree at $(git -C "$(dirname "$script")/.." log -1 --format=%h 2>/dev/null)"
  pg_virtualenv -t -v 15 -o "extension_destdir=$snap" -o "dynamic_library_path=$snap$pkglib:\$libdir" \
    -o "max_worker_processes=${BENCH_MAX_WORKERS:-16}" bash "$script" "$@"
  exit $?
}

bench_huge_fio() {
  local pool=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
  HUGE_FIO=""
  BENCH_HP0=$(cat "$pool" 2>/dev/null) || return 0
  BENCH_HUGEDIR=$(mktemp -d /tmp/ranread-bench-huge.XXXXXX)
  trap 'umount "$BENCH_HUGEDIR" 2>/dev/null; rmdir "$BENCH_HUGEDIR"; echo "$BENCH_HP0" > '"$pool" EXIT
  echo $((BENCH_HP0 + 64)) 2>/dev/null > "$pool" || return 0
  if [ "$(cat "$pool")" -ge $((BENCH_HP0 + 16)) ] &&
     mount -t hugetlbfs -o pagesize=2M none "$BENCH_HUGEDIR" 2>/dev/null; then
    HUGE_FIO="--iomem=mmaphuge:$BENCH_HUGEDIR/fio"
  else
    echo "$BENCH_HP0" > "$pool"
  fi
}

bq() { psql -XAtq -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "$1"; }

bench_target() {
  local name=$1 size=$2 rel dd
  bq "SELECT ranread_setup('$size', target => '$name')" >/dev/null
  dd=$(bq "SHOW data_directory")
  rel="$dd/$(bq "SELECT pg_relation_filepath(relid) FROM ranread_target_catalog WHERE target = '$name'")"
  SEGS="$rel"
  local i=1
  while [ -e "$rel.$i" ]; do SEGS="$SEGS:$rel.$i"; i=$((i + 1)); done
}

fio_groups() {
  python3 - "$1" <<'EOF'
import json, sys
for j in json.load(open(sys.argv[1]))["jobs"]:
    r, w = j["read"], j["write"]
    n = r["lat_ns"]["N"] + w["lat_ns"]["N"]
    lat = (r["lat_ns"]["mean"] * r["lat_ns"]["N"] + w["lat_ns"]["mean"] * w["lat_ns"]["N"]) / n / 1e6 if n else 0
    print(j["jobname"], round(r["iops"] + w["iops"], 1),
          round((r["bw_bytes"] + w["bw_bytes"]) / 1048576.0, 2), round(lat, 4))
EOF
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
