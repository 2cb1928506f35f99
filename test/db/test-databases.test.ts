/**
 * The suite's own isolation: a file's database reaches the next file in the migrated state, whether it is a
 * new one or (PGlite) the worker's previous one restored (test/helpers/test-db.ts).
 */
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/test-db.js';
import { makeEntity } from '../helpers/factories.js';

const count = async (db: Awaited<ReturnType<typeof createTestDatabase>>, table: string) =>
  Number((await db.database.executeSql(`select count(*)::int as n from ${table}`)).rows[0]!.n);

describe('test databases', () => {
  it('start the next file migrated: no rows, sequence positions or session settings of the file before', async () => {
    const first = await createTestDatabase();
    const permissions = await count(first, 'permission');
    const roles = await count(first, 'role');
    expect(permissions).toBeGreaterThan(0);
    const firstEntity = await makeEntity(first.database.db, 'Left behind');
    await makeEntity(first.database.db, 'Also left behind');
    await first.database.executeSql(`delete from permission_implication`);
    await first.database.executeSql(`set statement_timeout = 1234`);
    await first.close();

    const next = await createTestDatabase();
    try {
      expect(await count(next, 'entity')).toBe(0);
      expect(await count(next, 'permission')).toBe(permissions);
      expect(await count(next, 'role')).toBe(roles);
      expect(await count(next, 'permission_implication')).toBeGreaterThan(0);
      expect((await makeEntity(next.database.db, 'First again')).id).toBe(firstEntity.id);
      expect((await next.database.executeSql('show statement_timeout')).rows[0]!.statement_timeout).toBe('0');
    } finally {
      await next.close();
    }
  });

  it('never hand on a schema a file changed', async () => {
    const first = await createTestDatabase();
    await first.database.executeSql(`create function left_behind() returns int language sql as 'select 1'`);
    await first.close();
    const next = await createTestDatabase();
    try {
      expect((await next.database.executeSql(`select count(*)::int as n from pg_proc where proname = 'left_behind'`)).rows[0]!.n).toBe(0);
    } finally {
      await next.close();
    }
  });
});
