#!/bin/bash
# A host name whose lookup hangs holds no fleet call: ranread looks host
# names up itself, without blocking, so that a cancel, a statement_timeout
# or a terminate ends the call at once, and the connect timeout bounds the
# lookup; a name that resolves is connected to, through the address found.
# The coordinator is a cluster of its own started in a mount namespace
# (unshare -m) whose /etc/resolv.conf names a name server on 127.0.0.2:53
# that never answers (options timeout:30 attempts:2: glibc's getaddrinfo
# waits a minute per name).  Skipped where unshare or the listener cannot
# be had.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/lib/cluster.bash"
DNS_PID=""
trap '[ -n "$DNS_PID" ] && kill "$DNS_PID" 2>/dev/null; faults_cleanup; cluster_stop_all' EXIT

command -v unshare >/dev/null && command -v python3 >/dev/null ||
  { echo "1..0 # SKIP unshare or python3 is not available"; exit 0; }
unshare -m true 2>/dev/null || { echo "1..0 # SKIP unshare -m is not permitted here"; exit 0; }

# a name server that reads every question and never answers (UDP and TCP)
python3 - > "$WORK/dns.log" 2>&1 <<'EOF' &
import socket, select
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
u.bind(("127.0.0.2", 53))
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("127.0.0.2", 53))
t.listen(64)
print("listening", flush=True)
held = []
while True:
    r, _, _ = select.select([u, t] + held, [], [])
    for s in r:
        if s is u:
            u.recvfrom(4096)
        elif s is t:
            c, _ = t.accept()
            held.append(c)
        else:
            if not s.recv(4096):
                held.remove(s)
                s.close()
EOF
DNS_PID=$!
for _ in $(seq 50); do grep -q listening "$WORK/dns.log" && break; sleep 0.1; done
grep -q listening "$WORK/dns.log" || { echo "1..0 # SKIP cannot listen on 127.0.0.2:53: $(tail -1 "$WORK/dns.log")"; exit 0; }

RESOLV="$WORK/resolv.conf"
printf 'nameserver 127.0.0.2\noptions timeout:30 attempts:2\n' > "$RESOLV"
chmod 644 "$RESOLV"
NAME=node1.ranread-dns.test
# the repro holds: in that namespace a lookup hangs
unshare -m bash -c "mount --bind '$RESOLV' /etc/resolv.conf && timeout 3 getent ahosts $NAME" >/dev/null 2>&1
[ $? = 124 ] || { echo "1..0 # SKIP a lookup in the namespace does not hang (nsswitch or resolver differ)"; exit 0; }

C="$WORK/coord"
cluster_init "$C"
cluster_conf "$C" "shared_buffers = 16MB" "max_worker_processes = 16" "fsync = off"
CP=$(free_port)
if [ -n "${RANREAD_DESTDIR:-}" ]; then
  cluster_conf "$C" "extension_destdir = '$RANREAD_DESTDIR'" \
    "dynamic_library_path = '$RANREAD_DESTDIR$($PGBIN/pg_config --pkglibdir):\$libdir'"
fi
CLUSTERS+=("$C")
unshare -m bash -c "mount --bind '$RESOLV' /etc/resolv.conf &&
  runuser -u postgres -- $PGBIN/pg_ctl -D '$C' -l '$C/server.log' -w -t 60 \
    -o \"-p $CP -k $C -c listen_addresses=127.0.0.1\" start" >/dev/null
export PGHOST="$C" PGPORT="$CP" PGUSER=postgres
DB=dns
psql -qX -d postgres -c "CREATE DATABASE dns" >/dev/null
q "CREATE EXTENSION ranread" >/dev/null
is "$(q "SELECT 1")" 1 "a coordinator whose resolver never answers, on port $CP"

HANG="ARRAY['host=$NAME port=5432 connect_timeout=60', 'host=node2.ranread-dns.test port=5432 connect_timeout=60', 'host=node3.ranread-dns.test,node4.ranread-dns.test port=5432 connect_timeout=60']"
CONNECT="SELECT ranread_internal.ranread_remote_connect(ARRAY['a', 'b', 'c'], $HANG)"

# --- statement_timeout, cancel, terminate end the call at once
for how in timeout cancel terminate; do
  if [ "$how" = timeout ]; then
    bg_psql "dns_$how" "SET statement_timeout = '2s'" "$CONNECT"
    t0=$(( $(now_ms) + 2000 ))
  else
    bg_psql "dns_$how" "$CONNECT"
    sleep 1.5
    t0=$(now_ms)
    fn=pg_cancel_backend; [ "$how" = terminate ] && fn=pg_terminate_backend
    q "SELECT $fn(pid) FROM pg_stat_activity WHERE application_name = 'dns_$how'" >/dev/null
  fi
  client=$BG_PID
  if wait_pid "$client" 15; then took=$(( $(now_ms) - t0 )); else took=99999; kill "$client" 2>/dev/null; fi
  diag "lookups that hang, $how: the call ended $took ms after it; $(bg_output "dns_$how" | grep -E 'ERROR|FATAL' | head -1)"
  cmp_ok "$took" "<=" 2000 "host names whose lookup hangs: the call ends within 2 s of its $how"
  case $how in
    timeout) pat='canceling statement due to statement timeout' ;;
    cancel) pat='canceling statement due to user request' ;;
    terminate) pat='terminating connection due to administrator command' ;;
  esac
  bg_output "dns_$how" | grep -q "$pat"
  ok $? "... with the error of the $how"
done
is "$(q "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'dns_%'")" 0 "... and the sessions are gone"

# --- nobody intervening: the connect timeout bounds the lookup, named
t0=$(now_ms)
got=$(q "SELECT (ranread_internal.ranread_remote_connect(ARRAY['x', 'y'], ARRAY['host=$NAME port=5432 connect_timeout=2', 'host=node2.ranread-dns.test port=5432 connect_timeout=3']))::text")
took=$(( $(now_ms) - t0 ))
diag "connect_timeout 2 and 3: $took ms; $got"
cmp_ok "$took" "<" 4500 "the lookups of several names run at once, each within its connection's connect_timeout"
echo "$got" | grep -q "the lookup of host name \\\\\"$NAME\\\\\" did not finish within 2000 ms (its connect_timeout)"
ok $? "... and the connection says which name did not resolve, and within what"

# --- a fleet whose node's name hangs ends under statement_timeout
q "SELECT target FROM ranread_setup('16MB')" >/dev/null
t0=$(now_ms)
msg=$(psql -qAtX -d "$DB" -c "SET statement_timeout = '3s'" \
  -c "SELECT * FROM ranread_fleet(ARRAY['host=$NAME port=5432 dbname=dns', 'host=$C port=$CP dbname=dns'], 1, duration => '1s')" 2>&1 | grep ERROR | head -1)
took=$(( $(now_ms) - t0 ))
diag "ranread_fleet under statement_timeout 3 s: $took ms; $msg"
cmp_ok "$took" "<" 5000 "ranread_fleet with a node whose name does not resolve ends within 2 s of statement_timeout"

# --- names that resolve (from /etc/hosts) are connected to through the address found
got=$(q "SELECT (ranread_internal.ranread_remote_connect(ARRAY['l'], ARRAY['host=localhost port=$CP dbname=dns connect_timeout=5 hostaddr=']))[1] IS NULL,
                ranread_internal.ranread_remote_query('l', 'SELECT host(inet_client_addr())', 5000)")
is "$got" "t|127.0.0.1" "a host name that resolves is connected to at its address"
got=$(q "SELECT (ranread_internal.ranread_remote_connect(ARRAY['l'], ARRAY['host=localhost,$C port=1,$CP dbname=dns connect_timeout=5']))[1] IS NULL,
                ranread_internal.ranread_remote_query('l', 'SELECT inet_client_addr() IS NULL', 5000)")
is "$got" "t|t" "... and a host list with a name and a socket directory, with a port each, keeps its order and ports"

done_testing
