#!/bin/bash
# Released scripts stay as released:
#  - every script in sql/versions/ is recorded in sql/versions/SHA256SUMS
#    (written by scripts/freeze-release) and unchanged since
#  - while the Makefile's EXTVERSION is a released version, sql/state/ and
#    sql/code/ assemble to exactly its released install script: a change to
#    the SQL surface starts the next version (sql/README.md) instead of
#    changing what users of the released one installed
#  - the server offers the released scripts as they are in sql/versions/
. "$(dirname "$0")/lib/lib.sh"
cd "$(dirname "$0")/../.."

sums=sql/versions/SHA256SUMS
ok "$([ -s "$sums" ]; echo $?)" "sql/versions/SHA256SUMS records the released scripts"
out=$(cd sql/versions && sha256sum --quiet -c SHA256SUMS 2>&1)
ok $? "every released script is unchanged since its release${out:+: $out}"
for f in sql/versions/ranread--*.sql; do
  b=${f##*/}
  ok "$(grep -q "  $b\$" "$sums"; echo $?)" "$b is recorded as released"
done

version=$(sed -n 's/^EXTVERSION = //p' Makefile)
if [ -e "sql/versions/ranread--$version.sql" ]; then
  sh scripts/assemble install | cmp -s - "sql/versions/ranread--$version.sql"
  ok $? "sql/state/ and sql/code/ assemble to the released ranread--$version.sql: the current version is released, so a change to the surface starts the next one"
else
  diag "EXTVERSION $version is not released yet: sql/state/ and sql/code/ are where it is written"
fi

share=$(psql -qAtX -d postgres -c "SELECT setting FROM pg_config WHERE name = 'SHAREDIR'")
ext="${RANREAD_DESTDIR:-}$share/extension"
for f in sql/versions/ranread--*.sql; do
  cmp -s "$f" "$ext/${f##*/}"
  ok $? "the installed ${f##*/} is the released one"
done
done_testing
