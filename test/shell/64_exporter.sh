#!/bin/bash
# The watch's metrics through the real prometheus-postgres-exporter
# (metrics/ranread_postgres_exporter.yaml, installed beside the extension's
# scripts): the exporter started against the test cluster on a loopback
# port with the installed queries file, /metrics scraped with curl.
#  - until ranread_probe is in (sql/code/61_probe.sql), a probe here is
#    what it makes: a small paced QD1 read batch and its row in
#    ranread_probes, inserted by this test
#  - the installed file is the one in the source tree
#  - ranread_probe_latency_seconds{tablespace, percentile} and
#    ranread_baseline_latency_seconds give the last probe's and the
#    baseline's p50 and p99 in seconds, as ranread_health has them in ms
#  - ranread_probe_iops, ranread_probe_baseline_ratio, ranread_probe_slower,
#    ranread_probe_timestamp_seconds and ranread_probe_health_level are the
#    figures of ranread_health; ranread_health_status{state} is 1 for the
#    tablespace's status only
# Needs the Debian packages prometheus-postgres-exporter and curl.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

EXPORTER=$(command -v prometheus-postgres-exporter || command -v postgres_exporter || true)
if [ -z "$EXPORTER" ] || ! command -v curl >/dev/null; then
  echo "1..0 # SKIP prometheus-postgres-exporter or curl is not installed"; exit 0
fi
EPID=
cleanup() {
  [ -n "$EPID" ] && kill "$EPID" 2>/dev/null
  faults_cleanup
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_exporter" >/dev/null 2>&1
}
trap cleanup EXIT

setup_db rr_exporter
q "SELECT ranread_setup('32MB')" >/dev/null
q "SELECT ranread_health_set('pg_default', baseline_probes => 2)" >/dev/null
for i in 1 2 3; do
  b=$(q "SELECT batch FROM ranread_run(1, duration => '1s', rate_iops => 200)")
  q "INSERT INTO ranread_probes (batch, tablespace) VALUES ($b, 'pg_default')" >/dev/null
done
is "$(q "SELECT count(*) FROM ranread_probe_verdicts WHERE verdict IS NOT NULL")" 3 "three probes judged"

YAML="$(/usr/lib/postgresql/15/bin/pg_config --sharedir)/extension/ranread_postgres_exporter.yaml"
[ -n "${RANREAD_DESTDIR:-}" ] && YAML="$RANREAD_DESTDIR$YAML"
cmp -s "$YAML" "$(dirname "$0")/../../metrics/ranread_postgres_exporter.yaml"
ok $? "the queries file is installed beside the extension's scripts ($YAML)"

SOCK=$(q "SELECT split_part(current_setting('unix_socket_directories'), ',', 1)")
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# the exporter's own environment only (lib/pq refuses some PG* variables
# pg_virtualenv sets, such as PGSYSCONFDIR)
DSN="host=${PGHOST:-$SOCK} port=${PGPORT:-5432} dbname=$DB user=$(q "SELECT current_user") sslmode=disable"
env -i PATH="$PATH" PGPASSWORD="${PGPASSWORD:-}" DATA_SOURCE_NAME="$DSN" "$EXPORTER" --web.listen-address="127.0.0.1:$PORT" --extend.query-path="$YAML" \
  --disable-default-metrics --disable-settings-metrics --no-collector.database --no-collector.bgwriter > "$WORK/exporter.log" 2>&1 &
EPID=$!
M="$WORK/metrics.txt"
deadline=$((SECONDS + 20))
until curl -sf "http://127.0.0.1:$PORT/metrics" > "$M" && grep -q '^ranread_probe_iops' "$M"; do
  [ $SECONDS -lt $deadline ] || break
  sleep 0.5
done
grep -q '^ranread_probe_iops' "$M"
rc=$?
ok $rc "the exporter serves ranread's metrics on 127.0.0.1:$PORT/metrics"
[ $rc = 0 ] || { tail -20 "$WORK/exporter.log" | sed 's/^/# /'; grep '^ranread\|^pg_' "$M" | head -20 | sed 's/^/# /'; }
! grep -q 'pg_exporter_user_queries_load_error{.*} 1' "$M"
ok $? "... and loaded the queries file without error"

# value NAME LABELS: the value of the series NAME whose labels include LABELS
value() { grep "^$1{" "$M" | grep -F "$2" | head -1 | awk '{ print $NF }'; }
# same A B: A and B are the same number, to 1e-9 relative
same() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = (b < 0 ? -b : b); exit !(a != "" && d <= 1e-9 * (m > 1 ? m : 1)) }'; }

IFS='|' read -r p50 p99 bp50 bp99 iops ratio ts level slower <<< "$(q "SELECT p50_ms::float8 / 1000, p99_ms::float8 / 1000,
    baseline_p50_ms::float8 / 1000, baseline_p99_ms::float8 / 1000, iops, change, extract(epoch FROM last_probe_at)::float8,
    CASE status WHEN 'ok' THEN 0 WHEN 'slower' THEN 1 WHEN 'degraded' THEN 2 WHEN 'critical' THEN 3 ELSE -1 END,
    CASE WHEN verdict = 'slower' THEN 1 ELSE 0 END
    FROM ranread_health WHERE tablespace = 'pg_default'")"
same "$(value ranread_probe_latency_seconds 'percentile="50"')" "$p50"
ok $? "ranread_probe_latency_seconds{percentile=\"50\"} is the last probe's p50 in seconds ($p50)"
same "$(value ranread_probe_latency_seconds 'percentile="99"')" "$p99"
ok $? "ranread_probe_latency_seconds{percentile=\"99\"} is its p99 in seconds ($p99)"
grep '^ranread_probe_latency_seconds{' "$M" | grep -q 'tablespace="pg_default"'
ok $? "... labelled with the tablespace"
same "$(value ranread_baseline_latency_seconds 'percentile="99"')" "$bp99" && same "$(value ranread_baseline_latency_seconds 'percentile="50"')" "$bp50"
ok $? "ranread_baseline_latency_seconds gives the baseline's p50 and p99 in seconds"
same "$(value ranread_probe_iops 'tablespace="pg_default"')" "$iops"
ok $? "ranread_probe_iops is the last probe's IOPS ($iops)"
same "$(value ranread_probe_baseline_ratio 'tablespace="pg_default"')" "$ratio"
ok $? "ranread_probe_baseline_ratio is its p99 over the baseline's ($ratio)"
same "$(value ranread_probe_timestamp_seconds 'tablespace="pg_default"')" "$ts"
ok $? "ranread_probe_timestamp_seconds is when it ran, Unix time"
same "$(value ranread_probe_health_level 'tablespace="pg_default"')" "$level" && same "$(value ranread_probe_slower 'tablespace="pg_default"')" "$slower"
ok $? "ranread_probe_health_level and ranread_probe_slower are its status ($level) and verdict"
st=$(q "SELECT status FROM ranread_health WHERE tablespace = 'pg_default'")
is "$(grep '^ranread_health_status{' "$M" | grep 'tablespace="pg_default"' | awk '$NF == 1' | sed 's/.*state="\([a-z]*\)".*/\1/')" "$st" \
  "ranread_health_status{state} is 1 for the tablespace's status ($st) only"
is "$(grep -c '^ranread_health_status{.*tablespace="pg_default"' "$M")" 5 "... with a series for each of the five states"
grep -q '^# TYPE ranread_probe_latency_seconds gauge' "$M"
ok $? "the series are gauges, with their help"
! grep '^ranread_' "$M" | grep -q 'quantile='
ok $? "no ranread series has a quantile label (Prometheus keeps it for summaries): the percentiles are labelled percentile"

kill "$EPID" 2>/dev/null; EPID=
done_testing
