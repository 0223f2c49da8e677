#!/bin/bash
# What PostgreSQL alone can answer on this machine, without the service: pgbench runs the store's
# own 20-note listing query (migration 2's stored JSON joined in list order), its account read by
# id and add-note's INSERT (durable: synchronous_commit as the server has it, the row triggers of
# migration 4 included), as prepared statements, for 6 s each at 8 and 32 clients; then the literal
# search's candidate query over a 1 000-note user, one client (its latency is PostgreSQL's own
# share of one search). The service can serve no more of each per second than PostgreSQL answers
# here, so for example the listing's ratio to the node:http ceiling (the bench's report) is bounded
# by this rate divided by the ceiling's, and add-note by the insert row.
#
# Usage: bench/postgres-floor.sh [ADMIN_URL]   (default postgres://postgres@127.0.0.1:5432/test)
# Creates a database notes_floor_<pid> with the project's migrations (`notes-service migrate`,
# built output: run npm run build first), 1 000 users with 20 notes each, and drops it at the end.
set -euo pipefail
admin=${1:-postgres://postgres@127.0.0.1:5432/test}
here=$(cd "$(dirname "$0")/.." && pwd)
db=notes_floor_$$
url=${admin%/*}/$db
scripts=$(mktemp -d "${TMPDIR:-/tmp}/notes-floor-XXXXXX")
cleanup() {
  psql -q "$admin" -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
  rm -rf "$scripts"
}
trap cleanup EXIT
psql -q "$admin" -c "CREATE DATABASE $db"
DATABASE_URL=$url ACCESS_TOKEN_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n') \
  "$here/bin/notes-service" migrate >/dev/null
psql -q "$url" <<'SQL'
INSERT INTO users SELECT 'u' || i, 'Name ' || i, 'e' || i || '@example.com', 'e' || i || '@example.com', 'h', '2026-01-01T00:00:00.000Z'
  FROM generate_series(1, 1000) i;
INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
  SELECT md5(i::text), 'u' || (i % 1000 + 1), 'Note ' || i || ': some words',
    'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor. incididunt ut labore.',
    '{a,b}', i % 7 = 0, to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    '2026-01-01T00:00:00.000Z'
  FROM generate_series(1, 20000) i;
-- The search user: 1 000 notes, every 10th mentioning the grocery list (as bench/seed.ts).
INSERT INTO users VALUES ('searcher', 'Searcher', 's@example.com', 's@example.com', 'h', '2026-01-01T00:00:00.000Z');
INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
  SELECT 's' || md5(i::text), 'searcher', 'Note ' || i || ': some words',
    'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor. incididunt ut labore.'
      || CASE WHEN i % 10 = 3 THEN ' Grocery list: milk, eggs, bread.' ELSE '' END,
    '{a,b}', false, to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    '2026-01-01T00:00:00.000Z'
  FROM generate_series(1, 1000) i;
VACUUM ANALYZE;
SQL
# The listing query of src/store/postgres/notes.ts (listJsonOrNone) and the account read of users.ts.
cat >"$scripts/listing.sql" <<'SQL'
\set u random(1, 1000)
SELECT '[' || string_agg(json, ',' ORDER BY is_pinned DESC, created_on DESC, id DESC) || ']' AS json FROM notes WHERE user_id = 'u' || :u;
SQL
cat >"$scripts/account.sql" <<'SQL'
\set u random(1, 1000)
SELECT * FROM users WHERE id = 'u' || :u;
SQL
# add-note's INSERT of src/store/postgres/notes.ts, a new id each time (pgbench's own random).
cat >"$scripts/insert.sql" <<'SQL'
\set u random(1, 1000)
\set n random(1, 1000000000)
INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
  VALUES (md5(:n::text || clock_timestamp()::text), 'u' || :u, 'Bench note', 'Written by the benchmark, durably.', '{bench}', false,
    '2026-11-25T00:00:00.000Z', '2026-11-25T00:00:00.000Z');
SQL
# The literal search's candidate query (notes.ts, candidates with HAS_RUNS), for "grocery".
cat >"$scripts/search.sql" <<'SQL'
SELECT title, content, json FROM notes WHERE user_id = 'searcher'
  AND (lower(title COLLATE "C") LIKE '%grocery%' OR lower(content COLLATE "C") LIKE '%grocery%'
  OR strpos(title, U&'\212A') > 0 OR strpos(content, U&'\212A') > 0
  OR strpos(title, U&'\017F') > 0 OR strpos(content, U&'\017F') > 0)
  ORDER BY is_pinned DESC, created_on DESC, id DESC;
SQL
run() { # clients script -> "tps latency_ms"
  pgbench -n -M prepared -c "$1" -j 2 -T 6 -f "$scripts/$2.sql" "$url" 2>/dev/null |
    sed -n -e 's/^latency average = \([0-9.]*\) ms.*/\1/p' -e 's/^tps = \([0-9]*\).*/\1/p' | tac | tr '\n' ' '
}
echo "| query | clients | per second (pgbench tps) | latency average, ms |"
echo "|---|---|---|---|"
for clients in 8 32; do
  for query in listing account insert; do
    read -r tps latency <<<"$(run "$clients" "$query")"
    echo "| $query | $clients | $tps | $latency |"
  done
done
read -r tps latency <<<"$(run 1 search)"
echo "| search \"grocery\", 1 000 notes | 1 | $tps | $latency |"
