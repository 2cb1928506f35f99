import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdentityService } from '../../../src/modules/identity/identity.service.js';
import { DEFAULT_ENTITY_TIME_ZONE, entity } from '../../../src/modules/identity/entity.table.js';
import { makeEntity } from '../../helpers/factories.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';

describe("an entity's time zone", () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase();
  });
  afterAll(async () => {
    await testDb.close();
  });

  it('is the entity column, America/Guatemala by default, and the same default for an entity that does not exist', async () => {
    const { db } = testDb.database;
    const identity = createIdentityService({ database: testDb.database });
    const fresh = await makeEntity(db);
    const madrid = await makeEntity(db);
    await db.update(entity).set({ timeZone: 'Europe/Madrid' }).where(eq(entity.id, madrid.id));

    expect(DEFAULT_ENTITY_TIME_ZONE).toBe('America/Guatemala');
    expect(await identity.timeZoneOf(fresh.id)).toBe(DEFAULT_ENTITY_TIME_ZONE);
    expect(await identity.timeZoneOf(madrid.id)).toBe('Europe/Madrid');
    expect(await identity.timeZoneOf(2_000_000_000)).toBe(DEFAULT_ENTITY_TIME_ZONE);
  });
});
