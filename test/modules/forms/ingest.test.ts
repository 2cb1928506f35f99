import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { makeEntity } from '../../helpers/factories.js';
import { captureEvents } from '../../helpers/interactions.js';
import { queryRows } from '../../../src/db/client.js';

let t: TestContext;
let entityId: number;
const ingest = (payload: object) => t.app.inject({ method: 'POST', url: '/api/interactions/forms/ingest', payload });

beforeAll(async () => {
  t = await createTestApp();
  entityId = (await makeEntity(t.database.db)).id;
  await t.database.executeSql(`insert into form_key (entity_id, key, name) values ($1, 'key-1', 'Website')`, [entityId]);
});
afterAll(async () => t.close());

describe('POST /api/interactions/forms/ingest', () => {
  it('creates a contact in the entity of the form key, idempotently by submission id', async () => {
    const seen = captureEvents(t.app, ['contact.created']);
    const body = { form_key: 'key-1', submission_id: 'sub-1', name: 'Ana', email: 'ANA@example.com', phone: '5555 1234' };
    const first = await ingest(body);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ entity_id: entityId, created: true, duplicate: false });
    const again = await ingest(body);
    expect(again.json()).toMatchObject({ contact_id: first.json().contact_id, created: false, duplicate: true });
    const other = await ingest({ ...body, submission_id: 'sub-2', email: 'ana@example.com' });
    expect(other.json()).toMatchObject({ contact_id: first.json().contact_id, created: false, duplicate: false });
    const channels = await queryRows<{ type: string; identifier: string }>(
      t.database.db,
      sql`select type::text as type, identifier from contact_channel order by type::text`,
    );
    expect(channels).toEqual([
      { type: 'email', identifier: 'ana@example.com' },
      { type: 'phone', identifier: '+50255551234' },
    ]);
    expect(seen.map((e) => e.payload.source)).toEqual(['form']);
  });

  it('answers 401 invalid_form_key for an unknown key and 400 without a way to reach the person', async () => {
    expect((await ingest({ form_key: 'nope', submission_id: 's', name: 'x', email: 'x@example.com' })).json()).toMatchObject({
      status: 401,
      code: 'invalid_form_key',
    });
    expect((await ingest({ form_key: 'key-1', submission_id: 's', name: 'x' })).json()).toMatchObject({ status: 400, code: 'validation_failed' });
    expect((await ingest({ form_key: 'key-1', submission_id: 's', name: 'x', email: 'not-an-email' })).json().errors).toEqual([
      { field: '/body/email', message: expect.any(String) },
    ]);
    expect((await ingest({ form_key: 'key-1', name: 'x' })).statusCode).toBe(400);
  });
});
