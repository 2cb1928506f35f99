import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, login } from '../../helpers/factories.js';
import { seedDemo } from '../../../src/bootstrap/demo-seed.js';

let t: TestContext;

beforeAll(async () => {
  t = await createTestApp();
  await seedDemo(t.database.db);
  await seedDemo(t.database.db);
});
afterAll(async () => t.close());

describe('demo data for records, custom fields and cartera', () => {
  it('is idempotent and lets the demo admin try the records endpoints of entity 1 only', async () => {
    const token = await login(t.app, { email: 'admin@example.com', password: 'admin123', entityId: 1 });
    const groups = (await t.app.inject({ method: 'GET', url: '/groups', headers: bearer(token) })).json();
    // Other modules' demo data (invoices, conversations) add their own groups beside these four.
    expect(groups.data.map((g: { name: string }) => g.name)).toEqual(
      expect.arrayContaining(['Familia López', 'Comercial Hernández', 'Distribuidora Maya', 'Tienda El Sol']),
    );
    const first = groups.data.find((g: { name: string }) => g.name === 'Familia López');
    const contacts = (await t.app.inject({ method: 'GET', url: `/contacts?group_id=${first.id}`, headers: bearer(token) })).json();
    expect(contacts.data[0]).toMatchObject({ name: 'Ana López', hasCustomFieldValues: true, customFieldValuesCount: 4 });
    const cartera = (await t.app.inject({ method: 'GET', url: '/cartera/clients', headers: bearer(token) })).json();
    expect(cartera.data.map((i: { client: string }) => i.client)).toEqual(
      expect.arrayContaining(['Ana López', 'Comercial Hernández (central)', 'Distribuidora Maya']),
    );
    const recordsClients = cartera.data.filter((i: { client: string }) =>
      ['Ana López', 'Comercial Hernández (central)', 'Distribuidora Maya'].includes(i.client),
    );
    expect(recordsClients.every((i: { seller: unknown }) => i.seller !== null)).toBe(true);
    const fields = (await t.app.inject({ method: 'GET', url: '/custom-fields?limit=100', headers: bearer(token) })).json();
    expect(fields.pagination.total).toBe(10);
  });

  it('gives entity 2 its own few records', async () => {
    const token = await login(t.app, { email: 'admin@example.com', password: 'admin123', entityId: 2 });
    const leads = (await t.app.inject({ method: 'GET', url: '/leads', headers: bearer(token) })).json();
    const names = leads.data.map((l: { name: string }) => l.name);
    expect(names).toContain('Second Company Lead');
    const entity1 = (
      await t.app.inject({
        method: 'GET',
        url: '/leads?limit=200',
        headers: bearer(await login(t.app, { email: 'admin@example.com', password: 'admin123', entityId: 1 })),
      })
    ).json();
    for (const name of entity1.data.map((l: { name: string }) => l.name)) expect(names).not.toContain(name);
  });
});

describe('API documentation', () => {
  it('documents the records, custom field and cartera paths in /openapi.json', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths as Record<string, unknown>);
    for (const p of [
      '/groups',
      '/leads/{id}',
      '/contacts',
      '/group-assignments',
      '/custom-fields',
      '/contacts/{id}/custom-field-values',
      '/cartera/leads',
      '/cartera/export.xlsx',
    ]) {
      expect(paths).toContain(p);
    }
  });
});
