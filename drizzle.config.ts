import { defineConfig } from 'drizzle-kit';

// Every module declares its tables in its own `*.table.ts` files; drizzle-kit reads them all.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/modules/*/*.table.ts',
  out: './migrations',
  casing: 'snake_case',
});
