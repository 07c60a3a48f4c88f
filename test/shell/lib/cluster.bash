# Helpers for shell tests that need a PostgreSQL cluster of their own beside
# the one test/run gives them (a data directory on a small filesystem, a hot
# standby, settings that need a restart), sourced after lib.sh.  Not a test
# itself.
#
#   cluster_init DIR [initdb options]      initdb as postgres (trust auth)
#   cluster_conf DIR 'name = value' ...     append settings to its postgresql.conf
#   cluster_start DIR PORT                  start it, sockets in DIR, wait until up
#   cluster_stop DIR [MODE]                 stop it (fast by default); quiet if down
#   cluster_log DIR                         its server log
#   free_port                               a TCP port nobody listens on
#   qc DIR PORT DB SQL                      like q, in database DB of that cluster
#   qc_all DIR PORT DB SQL                  every message of it, verbose, and its rows
#
# Every cluster started here is stopped by cluster_stop_all, which the test
# must call from its EXIT trap.  When test/run tests an extension installed
# under RANREAD_DESTDIR, the clusters here load it from there too.

PGBIN=/usr/lib/postgresql/15/bin
CLUSTERS=()

cluster_init() {
  local dir=$1
  shift
  mkdir -p "$dir"
  chown postgres:postgres "$dir"
  chmod 700 "$dir"
  runuser -u postgres -- "$PGBIN/initdb" -D "$dir" -A trust -U postgres --no-sync "$@" >"$dir.initdb.log" 2>&1
}

cluster_conf() {
  local dir=$1 line
  shift
  for line in "$@"; do echo "$line" >> "$dir/postgresql.conf"; done
}

cluster_start() {
  local dir=$1 port=$2
  if [ -n "${RANREAD_DESTDIR:-}" ] && ! grep -q '^extension_destdir' "$dir/postgresql.conf"; then
    cluster_conf "$dir" "extension_destdir = '$RANREAD_DESTDIR'" \
      "dynamic_library_path = '$RANREAD_DESTDIR$($PGBIN/pg_config --pkglibdir):\$libdir'"
  fi
  CLUSTERS+=("$dir")
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=''" start >/dev/null
}

cluster_stop() {
  [ -f "$1/postmaster.pid" ] || return 0
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$1" -m "${2:-fast}" -w -t 60 stop >/dev/null 2>&1
}

cluster_stop_all() {
  local d
  for d in "${CLUSTERS[@]}"; do cluster_stop "$d" immediate; done
}

cluster_log() { echo "$1/server.log"; }

free_port() {
  local p
  # from a random start: lanes side by side each look for one
  local start=$((55432 + RANDOM % 900))
  for p in $(seq "$start" $((start + 100))); do
    if ! ss -ltn 2>/dev/null | grep -q ":$p\b" && [ ! -e "/tmp/.s.PGSQL.$p" ]; then echo "$p"; return 0; fi
  done
  return 1
}

# the socket directory of a cluster started here is its data directory
qc() { _q strict "$3" "$4" -h "$1" -p "$2" -U postgres; }
qc_all() { psql -qAtX -h "$1" -p "$2" -U postgres -d "$3" -v VERBOSITY=verbose -c "$4" 2>&1; }
