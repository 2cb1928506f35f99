#!/usr/bin/env bash
# Fails when the tables declared in `src/modules/**/*.table.ts` differ from what the committed migrations
# build: drizzle-kit generates into a throwaway copy of `migrations/` (no database needed), and any file it
# writes there is a schema change without a migration. `drizzle-kit check` does not do this (it only checks
# that the snapshots in migrations/meta are consistent with each other), and drizzle-kit exits 0 even on
# its own errors, so its output is judged here.
set -euo pipefail
cd "$(dirname "$0")/.."

work=tmp/migration-drift
rm -rf "$work"
mkdir -p "$work"
cp -R migrations "$work/migrations"
# drizzle-kit prefixes `--out` with `./`: it must be relative. stdin closed: a rename prompt fails fast.
if ! output=$(DRIZZLE_OUT="$work/migrations" timeout 120 npx drizzle-kit generate </dev/null 2>&1); then
  printf '%s\n' "$output"
  echo "drizzle-kit generate failed (a question about renames means a column or table was renamed without a migration): run npm run db:generate"
  exit 1
fi
if ! printf '%s\n' "$output" | grep -q 'No schema changes'; then
  printf '%s\n' "$output"
  diff -ru migrations "$work/migrations" | head -n 60 || true
  echo "the schema in src/modules/**/*.table.ts has changes the committed migrations lack: run npm run db:generate and commit the migration"
  exit 1
fi
if ! diff -rq migrations "$work/migrations" >/dev/null; then
  diff -ru migrations "$work/migrations" | head -n 60 || true
  echo "drizzle-kit rewrote migrations/ although it reported no change"
  exit 1
fi
rm -rf "$work"
echo "migrations match the schema: no drift"
