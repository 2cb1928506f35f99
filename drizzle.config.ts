import { defineConfig } from 'drizzle-kit';

// Every module declares its tables in its own `*.table.ts` files (in sub-folders too); drizzle-kit reads
// them all. `DRIZZLE_OUT` (a relative path) is only for the drift check (scripts/check-migration-drift.sh),
// which generates into a throwaway copy of the migrations.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/modules/**/*.table.ts',
  out: process.env.DRIZZLE_OUT ?? './migrations',
  casing: 'snake_case',
});
