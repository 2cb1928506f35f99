import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeContact, makeGroup } from '../../helpers/records-factories.js';
import { makeMedia } from '../media/media-factories.js';

let t: TestContext;
let entityA: number;
let entityB: number;
let admin: string;
let editor: string;
let overrider: string;
let contactId: number;
let groupId: number;
const fields: Record<string, number> = {};

const CONFIG = ['custom_field_types.view', 'custom_field_groups.create', 'custom_field_groups.edit', 'custom_fields.create', 'custom_fields.edit'];

beforeAll(async () => {
  t = await createTestApp();
  entityA = (await makeEntity(t.database.db)).id;
  entityB = (await makeEntity(t.database.db)).id;
  admin = await tokenFor(t.app, await makeMember(t.database.db, { entityId: entityA, codes: CONFIG }));
  editor = await tokenFor(t.app, await makeMember(t.database.db, { entityId: entityA, codes: ['contacts.edit', 'groups.edit'] }));
  overrider = await tokenFor(t.app, await makeMember(t.database.db, { entityId: entityA, codes: ['contacts.edit', 'roles.edit'] }));
  contactId = (await makeContact(t.database.db, { entityId: entityA })).id;
  groupId = (await makeGroup(t.database.db, entityA)).id;

  const post = async (url: string, payload: object) => {
    const res = await t.app.inject({ method: 'POST', url, headers: bearer(admin), payload });
    if (res.statusCode !== 201) throw new Error(res.body);
    return res.json<{ id: number }>().id;
  };
  const contactFields = await post('/custom-field-groups', { name: 'Datos', record_type: 'contact' });
  const groupFields = await post('/custom-field-groups', { name: 'Perfil', record_type: 'group' });
  fields.groupSectionContact = contactFields;
  fields.groupSectionGroup = groupFields;
  const kinds = ['text', 'number', 'date', 'boolean', 'currency', 'department', 'municipality', 'image', 'video', 'pdf'] as const;
  for (const [i, type] of kinds.entries()) fields[type] = await post('/custom-fields', { custom_field_group_id: contactFields, name: type, type, position: i });
  fields.select = await post('/custom-fields', {
    custom_field_group_id: contactFields,
    name: 'Canal',
    type: 'select',
    options: ['WhatsApp', 'Correo'],
    position: 20,
  });
  fields.locked = await post('/custom-fields', {
    custom_field_group_id: contactFields,
    name: 'Código ERP',
    type: 'text',
    settings: { readonly: true, override_permission_code: 'roles.edit', contexts: ['cartera', 'detail'] },
    position: 21,
  });
  fields.lockedNoOverride = await post('/custom-fields', {
    custom_field_group_id: contactFields,
    name: 'Fijo',
    type: 'text',
    settings: { readonly: true },
    position: 22,
  });
  fields.groupDate = await post('/custom-fields', { custom_field_group_id: groupFields, name: 'Desde', type: 'date' });
});
afterAll(async () => t.close());

const put = (url: string, values: { custom_field_id: number; value: unknown }[], tk = editor) =>
  t.app.inject({ method: 'PUT', url, headers: bearer(tk), payload: { values } });
const get = (url: string, tk = admin) => t.app.inject({ method: 'GET', url, headers: bearer(tk) });

describe('custom field types, groups and fields', () => {
  it('lists the eleven value kinds', async () => {
    const codes = (await get('/custom-field-types')).json().data.map((x: { code: string }) => x.code);
    expect(codes).toEqual(['text', 'number', 'date', 'boolean', 'select', 'currency', 'department', 'municipality', 'image', 'video', 'pdf']);
  });

  it('pages groups and fields with a default limit of 10 and filters by record_type and custom_field_group_id', async () => {
    const groups = (await get('/custom-field-groups?record_type=group')).json();
    expect(groups.data.map((g: { id: number }) => g.id)).toEqual([fields.groupSectionGroup]);
    const page = (await get(`/custom-fields?custom_field_group_id=${fields.groupSectionContact}`)).json();
    expect(page.pagination).toEqual({ limit: 10, offset: 0, total: 13 });
    expect(page.data).toHaveLength(10);
    expect((await get('/custom-fields?limit=200&offset=10')).json().data).toHaveLength(4);
    expect((await get('/custom-fields?limit=201')).json()).toMatchObject({ code: 'validation_failed' });
  });

  it('returns the settings readonly, override_permission_code and contexts as stored', async () => {
    const f = (await get(`/custom-fields/${fields.locked}`)).json();
    expect(f.settings).toEqual({ readonly: true, override_permission_code: 'roles.edit', contexts: ['cartera', 'detail'] });
    const edited = await t.app.inject({
      method: 'PATCH',
      url: `/custom-fields/${fields.locked}`,
      headers: bearer(admin),
      payload: { settings: { contexts: [] }, name: 'ERP' },
    });
    expect(edited.json()).toMatchObject({ name: 'ERP', settings: { readonly: true, override_permission_code: 'roles.edit', contexts: [] } });
  });

  it('answers 400 for a select without options, an unknown permission code, a foreign group and a bad type', async () => {
    const post = (payload: object) => t.app.inject({ method: 'POST', url: '/custom-fields', headers: bearer(admin), payload });
    const g = fields.groupSectionContact;
    expect((await post({ custom_field_group_id: g, name: 's', type: 'select' })).json().errors[0].field).toBe('/body/options');
    expect(
      (await post({ custom_field_group_id: g, name: 'x', type: 'text', settings: { override_permission_code: 'nope.code' } })).json().errors[0].field,
    ).toBe('/body/settings/override_permission_code');
    const foreign = await t.database.executeSql(`insert into custom_field_group (entity_id, name, record_type) values ($1, 'F', 'contact') returning id`, [
      entityB,
    ]);
    const foreignId = Number(foreign.rows[0]!.id);
    expect((await post({ custom_field_group_id: foreignId, name: 'x', type: 'text' })).json().errors[0].field).toBe('/body/custom_field_group_id');
    expect((await post({ custom_field_group_id: g, name: 'x', type: 'color' })).statusCode).toBe(400);
    expect((await get(`/custom-field-groups/${foreignId}`)).json()).toMatchObject({ code: 'not_found' });
    expect((await t.app.inject({ method: 'PATCH', url: `/custom-field-groups/${foreignId}`, headers: bearer(admin), payload: { name: 'x' } })).statusCode).toBe(
      404,
    );
    expect((await get('/custom-field-groups?limit=200')).json().data.every((x: { id: number }) => x.id !== foreignId)).toBe(true);
    const foreignField = await t.database.executeSql(
      `insert into custom_field (entity_id, custom_field_group_id, name, type) values ($1, $2, 'FF', 'text') returning id`,
      [entityB, foreignId],
    );
    const foreignFieldId = Number(foreignField.rows[0]!.id);
    expect((await get(`/custom-fields/${foreignFieldId}`)).json()).toMatchObject({ code: 'not_found' });
    expect((await t.app.inject({ method: 'PATCH', url: `/custom-fields/${foreignFieldId}`, headers: bearer(admin), payload: { name: 'x' } })).statusCode).toBe(
      404,
    );
    expect((await get('/custom-fields?limit=200')).json().data.every((x: { id: number }) => x.id !== foreignFieldId)).toBe(true);
    expect((await put(`/contacts/${contactId}/custom-field-values`, [{ custom_field_id: foreignFieldId, value: 'x' }])).json().errors[0].field).toBe(
      '/body/values/0/custom_field_id',
    );
  });
});

describe('custom field values', () => {
  it('saves valid values of every kind and reports them on the contact', async () => {
    const url = `/contacts/${contactId}/custom-field-values`;
    const res = await put(url, [
      { custom_field_id: fields.text!, value: 'hola' },
      { custom_field_id: fields.number!, value: 12.5 },
      { custom_field_id: fields.date!, value: '2024-02-29' },
      { custom_field_id: fields.boolean!, value: true },
      { custom_field_id: fields.select!, value: 'Correo' },
      { custom_field_id: fields.currency!, value: { currency: 'GTQ', amount: 1500.75 } },
      { custom_field_id: fields.department!, value: { code: '09' } },
      { custom_field_id: fields.municipality!, value: { department_code: '09', code: '0901' } },
      { custom_field_id: fields.image!, value: { media_id: (await makeMedia(t.database.db, { entityId: entityA, kind: 'image' })).id } },
      { custom_field_id: fields.video!, value: { media_id: (await makeMedia(t.database.db, { entityId: entityA, kind: 'video' })).id } },
      { custom_field_id: fields.pdf!, value: { media_id: (await makeMedia(t.database.db, { entityId: entityA, kind: 'document' })).id } },
    ]);
    expect(res.statusCode).toBe(200);
    const byField = new Map(res.json().data.map((v: { custom_field_id: number; value: unknown }) => [v.custom_field_id, v.value]));
    expect(byField.get(fields.department)).toEqual({ code: '09', name: 'Quetzaltenango' });
    expect(byField.get(fields.municipality)).toMatchObject({ department_code: '09', code: '0901', name: 'Quetzaltenango' });
    expect(byField.get(fields.currency)).toEqual({ currency: 'GTQ', amount: 1500.75 });
    const contact = (await get(`/contacts/${contactId}`, editor)).json();
    expect(contact).toMatchObject({ hasCustomFieldValues: true, customFieldValuesCount: 11 });
    expect((await get(url, editor)).json().data).toHaveLength(11);
  });

  it('rejects a whole PUT with one bad value, naming each bad entry, and changes nothing', async () => {
    const url = `/contacts/${contactId}/custom-field-values`;
    const stored = (body: { data: { value: unknown }[] }) =>
      body.data.map((v) =>
        v.value !== null && typeof v.value === 'object' && 'url' in v.value ? { ...v, value: { ...v.value, url: undefined, expires_at: undefined } } : v,
      );
    const before = (await get(url, editor)).json();
    const res = await put(url, [
      { custom_field_id: fields.text!, value: 'changed' },
      { custom_field_id: fields.currency!, value: { currency: 'XYZ', amount: 1 } },
      { custom_field_id: fields.municipality!, value: { department_code: '01', code: '0901' } },
      { custom_field_id: fields.image!, value: { media_id: (await makeMedia(t.database.db, { entityId: entityB, kind: 'image' })).id } },
      { custom_field_id: fields.date!, value: '2023-02-29' },
      { custom_field_id: fields.select!, value: 'Fax' },
      { custom_field_id: fields.department!, value: { code: '23' } },
      { custom_field_id: fields.groupDate!, value: '2024-01-01' },
    ]);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('validation_failed');
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual([
      '/body/values/1/value',
      '/body/values/2/value',
      '/body/values/3/value',
      '/body/values/4/value',
      '/body/values/5/value',
      '/body/values/6/value',
      '/body/values/7/custom_field_id',
    ]);
    // Media values carry links signed at each read (their expiry moves with the clock): compare what is stored.
    expect(stored((await get(url, editor)).json())).toEqual(stored(before));
  });

  it('answers 403 readonly_field for a readonly field and changes nothing else in the same PUT', async () => {
    const url = `/contacts/${contactId}/custom-field-values`;
    const res = await put(url, [
      { custom_field_id: fields.text!, value: 'should not stick' },
      { custom_field_id: fields.locked!, value: 'C-1' },
    ]);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'readonly_field', permission: 'roles.edit', custom_field_ids: [fields.locked] });
    const values = (await get(url, editor)).json().data;
    expect(values.find((v: { custom_field_id: number }) => v.custom_field_id === fields.text).value).toBe('hola');
  });

  it("lets a caller holding the field's override_permission_code write it, but never a readonly field without one", async () => {
    const url = `/contacts/${contactId}/custom-field-values`;
    expect((await put(url, [{ custom_field_id: fields.locked!, value: 'C-1' }], overrider)).statusCode).toBe(200);
    expect((await put(url, [{ custom_field_id: fields.lockedNoOverride!, value: 'x' }], overrider)).json()).toMatchObject({ code: 'readonly_field' });
  });

  it('clears a value with null and keeps the count in step', async () => {
    const url = `/contacts/${contactId}/custom-field-values`;
    const before = (await get(`/contacts/${contactId}`, editor)).json().customFieldValuesCount;
    await put(url, [{ custom_field_id: fields.video!, value: null }]);
    expect((await get(`/contacts/${contactId}`, editor)).json().customFieldValuesCount).toBe(before - 1);
  });

  it('saves group values against group fields only', async () => {
    const url = `/groups/${groupId}/custom-field-values`;
    expect((await put(url, [{ custom_field_id: fields.groupDate!, value: '2021-03-15' }])).json().data).toEqual([
      expect.objectContaining({ custom_field_id: fields.groupDate, type: 'date', value: '2021-03-15' }),
    ]);
    expect((await put(url, [{ custom_field_id: fields.text!, value: 'x' }])).json().errors[0].field).toBe('/body/values/0/custom_field_id');
  });

  it("answers 404 for another entity's contact or group and 400 for a malformed body", async () => {
    const foreignContact = await makeContact(t.database.db, { entityId: entityB });
    expect((await get(`/contacts/${foreignContact.id}/custom-field-values`, editor)).json()).toMatchObject({ code: 'not_found' });
    expect((await put(`/contacts/${foreignContact.id}/custom-field-values`, [])).statusCode).toBe(404);
    expect((await put(`/groups/${foreignContact.groupId}/custom-field-values`, [])).statusCode).toBe(404);
    expect((await get(`/groups/${foreignContact.groupId}/custom-field-values`, editor)).json()).toMatchObject({ code: 'not_found' });
    const bad = await t.app.inject({
      method: 'PUT',
      url: `/contacts/${contactId}/custom-field-values`,
      headers: bearer(editor),
      payload: { values: [{ value: 1 }] },
    });
    expect(bad.json()).toMatchObject({ code: 'validation_failed' });
  });
});
