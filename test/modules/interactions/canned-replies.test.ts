/**
 * Canned replies (issue 49): who sees and may use which (personal, queue, entity), search by shortcode and words
 * without accents, variables filled from the conversation's real records and prompted placeholders, sending
 * through the send path (the text, then each attachment; a template outside the window), usage counts, and bad
 * input refused whole; custom fields of the contact and the lead's group, named by id, written and read through the
 * custom fields API. Sends go to the communications simulator over HTTP.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { listen, waitForConversation } from '../../helpers/interactions.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';
import { startProviderSimulator, type ProviderSimulator } from '../../../sim/communications/provider.js';
import { mediaClient, processed } from '../media/media-client.js';
import { pdf, png } from '../media/media-files.js';

const API_KEY = 'sim-key-canned-0123456789';
let t: TestContext;
let sim: ProviderSimulator;
let manager: Member;
let managerToken: string;
let member: Member;
let memberToken: string;
let outsider: Member;
let outsiderToken: string;
let otherEntityToken: string;
let fieldsToken: string;
let otherFieldsToken: string;
let queueId: number;
let otherEntityQueueId: number;
let conversationId: number;
let staleConversationId: number;
let image: number;
let document: number;

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string, payload?: object) =>
  t.app.inject({ method, url: `/api/interactions${url}`, headers: bearer(token), ...(payload !== undefined ? { payload } : {}) });
const create = (token: string, body: object) => api('POST', '/canned-replies', token, body);
const idOf = async (res: Promise<{ statusCode: number; json(): { id: number } }>) => {
  const r = await res;
  expect(r.statusCode).toBe(201);
  return r.json().id;
};
const shortcodes = async (token: string, query = '') => {
  const res = await api('GET', `/canned-replies${query}`, token);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: { shortcode: string }[] }>().data.map((r) => r.shortcode);
};

beforeAll(async () => {
  sim = await startProviderSimulator({ apiKey: API_KEY });
  t = await createTestApp({ env: { COMMUNICATIONS_BASE_URL: sim.url, COMMUNICATIONS_API_KEY: API_KEY }, startQueue: true });
  const baseUrl = await listen(t.app);
  const e1 = (await makeEntity(t.database.db, 'Canned Company')).id;
  const e2 = (await makeEntity(t.database.db, 'Canned elsewhere')).id;
  await makeChannelAccount(t.database.db, { entityId: e1, externalAccountId: 'PN-CANNED' });
  manager = await makeMember(t.database.db, { entityId: e1, name: 'Marta Gestora', codes: ['canned_replies.manage', 'entity_channel_accounts.edit'] });
  managerToken = await tokenFor(t.app, manager);
  member = await makeMember(t.database.db, { entityId: e1, name: 'Ana Agente' });
  memberToken = await tokenFor(t.app, member);
  outsider = await makeMember(t.database.db, { entityId: e1, name: 'Otto Fuera' });
  outsiderToken = await tokenFor(t.app, outsider);
  const otherManager = await makeMember(t.database.db, { entityId: e2, codes: ['canned_replies.manage', 'entity_channel_accounts.edit'] });
  otherEntityToken = await tokenFor(t.app, otherManager);
  // Who defines custom fields and writes their values on contacts and groups.
  const fieldCodes = ['custom_field_groups.create', 'custom_fields.create', 'contacts.edit', 'groups.edit'];
  fieldsToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e1, codes: fieldCodes }));
  otherFieldsToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2, codes: fieldCodes }));
  queueId = (await api('POST', '/routing/queues', managerToken, { name: 'Ventas' })).json<{ id: number }>().id;
  expect((await api('POST', `/routing/queues/${queueId}/members`, managerToken, { employee_id: member.employeeId })).statusCode).toBe(201);
  otherEntityQueueId = (await api('POST', '/routing/queues', otherEntityToken, { name: 'Otra' })).json<{ id: number }>().id;
  const now = Math.floor(Date.now() / 1000);
  for (const [from, name, ts] of [
    ['50255520001', 'José Pérez', now],
    ['50255520002', 'Old Customer', now - 25 * 3600],
  ] as const) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/interactions/webhooks/communications',
      payload: whatsAppMessage({ phoneNumberId: 'PN-CANNED' }, { from, name, text: 'hola', timestamp: ts }),
    });
    expect(res.statusCode).toBe(200);
  }
  await t.app.interactionsWorker.idle();
  conversationId = (await waitForConversation(t.app, managerToken, '50255520001')).id;
  staleConversationId = (await waitForConversation(t.app, managerToken, '50255520002')).id;
  const media = mediaClient(baseUrl, managerToken);
  image = (await media.upload(await png(), { file_name: 'catalogo.png', content_type: 'image/png' })).id;
  document = (await media.upload(pdf(), { file_name: 'precios.pdf', content_type: 'application/pdf' })).id;
  await processed(t.app);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

describe('canned replies', () => {
  it('shows each caller the replies they may use: their own, their queues’, the entity’s', async () => {
    await idOf(create(managerToken, { shortcode: 'hola', title: 'Saludo', body: 'Hola, ¿en qué te ayudo?', scope: 'entity' }));
    await idOf(create(managerToken, { shortcode: 'ventas', title: 'Precios de ventas', body: 'Te paso precios', scope: 'queue', queue_id: queueId }));
    await idOf(create(memberToken, { shortcode: 'mio', title: 'Mi firma', body: 'Saludos, Ana', scope: 'personal' }));
    await idOf(create(outsiderToken, { shortcode: 'mio', title: 'Firma de Otto', body: 'Saludos, Otto', scope: 'personal' }));
    expect((await shortcodes(memberToken)).sort()).toEqual(['hola', 'mio', 'ventas']);
    expect((await shortcodes(outsiderToken)).sort()).toEqual(['hola', 'mio']);
    // A manager administers every queue's replies, never another's personal ones.
    expect((await shortcodes(managerToken)).sort()).toEqual(['hola', 'ventas']);
    expect(await shortcodes(otherEntityToken)).toEqual([]);
    // Not usable is not found, to read and to change.
    const ottoOwn = (await api('GET', '/canned-replies?q=otto', outsiderToken)).json<{ data: { id: number }[] }>().data[0]!.id;
    expect((await api('GET', `/canned-replies/${ottoOwn}`, memberToken)).statusCode).toBe(404);
    expect((await api('PATCH', `/canned-replies/${ottoOwn}`, managerToken, { title: 'x' })).statusCode).toBe(404);
    // Writing queue and entity replies needs the code; a personal one is its owner's.
    expect((await create(memberToken, { shortcode: 'x', title: 'x', body: 'x', scope: 'entity' })).json().code).toBe('permission_denied');
    const ventas = (await api('GET', '/canned-replies?q=ventas', memberToken)).json<{ data: { id: number }[] }>().data[0]!.id;
    expect((await api('PATCH', `/canned-replies/${ventas}`, memberToken, { title: 'Mío' })).statusCode).toBe(403);
    expect((await api('DELETE', `/canned-replies/${ventas}`, outsiderToken)).statusCode).toBe(404);
  });

  it('finds a reply by shortcode prefix and by words without accents, shortcode matches first', async () => {
    await idOf(create(managerToken, { shortcode: 'envio', title: 'Envío a domicilio', body: 'El envío tarda dos días hábiles', scope: 'entity' }));
    await idOf(create(managerToken, { shortcode: 'devolucion', title: 'Devoluciones', body: 'Para un envio de vuelta, llámanos', scope: 'entity' }));
    expect(await shortcodes(memberToken, '?q=/env')).toEqual(['envio']);
    // Words of the title and body, accents and case ignored; the title match ranks first.
    expect(await shortcodes(memberToken, `?q=${encodeURIComponent('ENVÍO')}`)).toEqual(['envio', 'devolucion']);
    expect(await shortcodes(memberToken, `?q=${encodeURIComponent('dias habiles')}`)).toEqual(['envio']);
    expect(await shortcodes(memberToken, '?q=nada%20parecido')).toEqual([]);
  });

  it('fills variables from the conversation’s records, reports a missing one, and asks for prompts', async () => {
    const id = await idOf(
      create(managerToken, {
        shortcode: 'pedido',
        title: 'Estado del pedido',
        body: 'Hola {{contact.name}}, soy {{agent.name}} de {{entity.name}}. Tu pedido {{?número de pedido}} va en camino. Correo: {{contact.email}}',
        scope: 'entity',
      }),
    );
    const rendered = await api('POST', `/canned-replies/${id}/render`, memberToken, { conversation_id: conversationId });
    expect(rendered.statusCode).toBe(200);
    expect(rendered.json()).toEqual({
      text: 'Hola José Pérez, soy Ana Agente de Canned Company. Tu pedido {{?número de pedido}} va en camino. Correo: {{contact.email}}',
      missing: ['contact.email'],
      prompts: ['número de pedido'],
      attachments: [],
      service_window_open: true,
      sends: 'text',
      template: null,
    });
    const answered = await api('POST', `/canned-replies/${id}/render`, memberToken, {
      conversation_id: conversationId,
      answers: { 'número de pedido': 'A-77' },
    });
    expect(answered.json()).toMatchObject({ prompts: [], missing: ['contact.email'] });
    expect(answered.json().text).toContain('Tu pedido A-77 va en camino');
    // Sending what is incomplete is refused, and nothing is sent.
    const before = sim.deliveries.length;
    const refused = await api('POST', `/canned-replies/${id}/send`, memberToken, { conversation_id: conversationId, answers: { 'número de pedido': 'A-77' } });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ code: 'canned_reply_incomplete', missing: ['contact.email'], prompts: [] });
    expect(sim.deliveries.length).toBe(before);
    // Another entity's conversation is not found.
    expect((await api('POST', `/canned-replies/${id}/render`, otherEntityToken, { conversation_id: conversationId })).statusCode).toBe(404);
  });

  it('sends the text and then each attachment through the send path, and counts the use', async () => {
    const id = await idOf(
      create(managerToken, {
        shortcode: 'catalogo',
        title: 'Catálogo y precios',
        body: 'Hola {{contact.name}}, te envío el catálogo',
        scope: 'queue',
        queue_id: queueId,
        attachments: [image, document],
      }),
    );
    const before = sim.deliveries.length;
    const sent = await api('POST', `/canned-replies/${id}/send`, memberToken, { conversation_id: conversationId });
    expect(sent.statusCode).toBe(202);
    // Stored in this order; each is then sent by its own job.
    expect(sent.json<{ sent: string; messages: { type: string }[] }>()).toMatchObject({
      sent: 'text',
      messages: [{ type: 'text' }, { type: 'image' }, { type: 'document' }],
    });
    const delivered = await sim.waitForDeliveries(before + 3, 15_000);
    const bodies = delivered.slice(before).map((d) => d.body);
    expect(bodies.map((b) => b.type).sort()).toEqual(['document', 'image', 'text']);
    expect((bodies.find((b) => b.type === 'text')!.text as { body: string }).body).toBe('Hola José Pérez, te envío el catálogo');
    const after = (await api('GET', `/canned-replies/${id}`, memberToken)).json();
    expect(after).toMatchObject({ usage_count: 1, my_usage_count: 1 });
    expect((await api('GET', `/canned-replies/${id}`, managerToken)).json()).toMatchObject({ usage_count: 1, my_usage_count: 0 });
  });

  it('outside the service window sends the template it names, and says so first', async () => {
    sim.setTemplateReview('APPROVED');
    const template = await api('POST', '/templates', managerToken, {
      name: 'seguimiento_simple',
      language: 'es',
      category: 'utility',
      components: [{ type: 'BODY', text: 'Hola, ¿seguimos con tu pedido?' }],
    });
    expect(template.statusCode).toBe(201);
    const withTemplate = await idOf(
      create(managerToken, {
        shortcode: 'seguimos',
        title: 'Seguimiento',
        body: '¿Seguimos?',
        scope: 'entity',
        template: { name: 'seguimiento_simple', language: 'es' },
      }),
    );
    const without = await idOf(create(managerToken, { shortcode: 'solo-texto', title: 'Solo texto', body: '¿Seguimos?', scope: 'entity' }));
    expect((await api('POST', `/canned-replies/${withTemplate}/render`, managerToken, { conversation_id: staleConversationId })).json()).toMatchObject({
      service_window_open: false,
      sends: 'template',
      template: { name: 'seguimiento_simple', language: 'es' },
    });
    expect((await api('POST', `/canned-replies/${without}/render`, managerToken, { conversation_id: staleConversationId })).json()).toMatchObject({
      sends: 'nothing',
    });
    const before = sim.deliveries.length;
    const sent = await api('POST', `/canned-replies/${withTemplate}/send`, managerToken, { conversation_id: staleConversationId });
    expect(sent.statusCode).toBe(202);
    expect(sent.json()).toMatchObject({ sent: 'template', messages: [{ type: 'template' }] });
    const [delivered] = (await sim.waitForDeliveries(before + 1, 15_000)).slice(before);
    expect(delivered!.body).toMatchObject({ type: 'template', template: { name: 'seguimiento_simple', language: { code: 'es' } } });
    expect((await api('POST', `/canned-replies/${without}/send`, managerToken, { conversation_id: staleConversationId })).json().code).toBe(
      'outside_service_window',
    );
  });

  it('refuses bad input whole: unknown variables, a shortcode twice in one scope, a long body, another entity’s queue or media', async () => {
    const unknown = await create(managerToken, { shortcode: 'raro', title: 'Raro', body: 'Hola {{contact.nickname}} {{ }}', scope: 'entity' });
    expect(unknown.statusCode).toBe(400);
    expect(JSON.stringify(unknown.json().errors)).toContain('unknown_variable: {{contact.nickname}}');
    await idOf(create(memberToken, { shortcode: 'dup', title: 'A', body: 'a', scope: 'personal' }));
    const twice = await create(memberToken, { shortcode: 'dup', title: 'B', body: 'b', scope: 'personal' });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().code).toBe('shortcode_taken');
    // The same shortcode in another scope (or another agent's personal one) is fine.
    await idOf(create(outsiderToken, { shortcode: 'dup', title: 'C', body: 'c', scope: 'personal' }));
    await idOf(create(managerToken, { shortcode: 'dup', title: 'D', body: 'd', scope: 'entity' }));
    expect((await create(managerToken, { shortcode: 'largo', title: 'Largo', body: 'x'.repeat(4097), scope: 'entity' })).statusCode).toBe(400);
    expect((await create(managerToken, { shortcode: 'ajena', title: 'Ajena', body: 'x', scope: 'queue', queue_id: otherEntityQueueId })).statusCode).toBe(404);
    expect((await create(managerToken, { shortcode: 'sin-cola', title: 'x', body: 'x', scope: 'queue' })).statusCode).toBe(400);
    const foreignMedia = await create(otherEntityToken, { shortcode: 'robo', title: 'x', body: 'x', scope: 'entity', attachments: [image] });
    expect(foreignMedia.statusCode).toBe(400);
    expect(JSON.stringify(foreignMedia.json().errors)).toContain(`media ${image} not found`);
    expect(await shortcodes(otherEntityToken)).toEqual([]);
  });

  describe('custom fields', () => {
    const post = async (url: string, token: string, payload: object) => {
      const res = await t.app.inject({ method: 'POST', url: `/api${url}`, headers: bearer(token), payload });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: number }>().id;
    };
    const put = async (url: string, values: { custom_field_id: number; value: unknown }[]) => {
      const res = await t.app.inject({ method: 'PUT', url: `/api${url}`, headers: bearer(fieldsToken), payload: { values } });
      expect(res.statusCode, res.body).toBe(200);
    };
    const field = (group: number, name: string, type: string, extra: object = {}) =>
      post('/custom-fields', fieldsToken, { custom_field_group_id: group, name, type, ...extra });
    let contactSection: number;
    let groupSection: number;

    beforeAll(async () => {
      contactSection = await post('/custom-field-groups', fieldsToken, { name: 'Datos del cliente', record_type: 'contact' });
      groupSection = await post('/custom-field-groups', fieldsToken, { name: 'Cuenta', record_type: 'group' });
    });

    it('fills them from the conversation’s contact and its lead’s group, as text; an empty or deleted one is missing', async () => {
      const city = await field(contactSection, 'Ciudad', 'text');
      const balance = await field(contactSection, 'Saldo', 'currency');
      const birthday = await field(contactSection, 'Cumpleaños', 'date');
      const vip = await field(contactSection, 'VIP', 'boolean');
      const channel = await field(contactSection, 'Canal preferido', 'select', { options: ['WhatsApp', 'Correo'] });
      const points = await field(contactSection, 'Puntos', 'number');
      const notes = await field(contactSection, 'Notas', 'text');
      const route = await field(groupSection, 'Ruta', 'text');
      const conversation = (await api('GET', `/conversations/${conversationId}`, managerToken)).json<{ contact_id: number; group_id: number }>();
      await put(`/contacts/${conversation.contact_id}/custom-field-values`, [
        { custom_field_id: city, value: 'Quetzaltenango' },
        { custom_field_id: balance, value: { currency: 'GTQ', amount: 1500.5 } },
        { custom_field_id: birthday, value: '1990-04-15' },
        { custom_field_id: vip, value: true },
        { custom_field_id: channel, value: 'WhatsApp' },
        { custom_field_id: points, value: 120.5 },
      ]);
      await put(`/groups/${conversation.group_id}/custom-field-values`, [{ custom_field_id: route, value: 'Ruta 7 Occidente' }]);

      const body =
        `{{contact.name}} de {{contact.custom.${city}}} (ruta {{ group.custom.${route} }}): saldo {{contact.custom.${balance}}}, ` +
        `cumpleaños {{contact.custom.${birthday}}}, VIP {{contact.custom.${vip}}}, por {{contact.custom.${channel}}}, ` +
        `{{contact.custom.${points}}} puntos. {{contact.custom.${notes}}}`;
      const saved = await create(managerToken, { shortcode: 'ficha', title: 'Ficha', body, scope: 'entity' });
      expect(saved.statusCode, saved.body).toBe(201);
      const { id, variables } = saved.json<{ id: number; variables: string[] }>();
      expect(variables).toEqual([
        'contact.name',
        `contact.custom.${city}`,
        `group.custom.${route}`,
        `contact.custom.${balance}`,
        `contact.custom.${birthday}`,
        `contact.custom.${vip}`,
        `contact.custom.${channel}`,
        `contact.custom.${points}`,
        `contact.custom.${notes}`,
      ]);
      const rendered = await api('POST', `/canned-replies/${id}/render`, memberToken, { conversation_id: conversationId });
      expect(rendered.statusCode, rendered.body).toBe(200);
      expect(rendered.json()).toMatchObject({
        text:
          'José Pérez de Quetzaltenango (ruta Ruta 7 Occidente): saldo GTQ 1500.50, cumpleaños 1990-04-15, VIP sí, por WhatsApp, ' +
          `120.5 puntos. {{contact.custom.${notes}}}`,
        missing: [`contact.custom.${notes}`],
      });
      // A value cleared is missing too, and sending is refused until it is filled.
      await put(`/contacts/${conversation.contact_id}/custom-field-values`, [{ custom_field_id: city, value: null }]);
      const cleared = await api('POST', `/canned-replies/${id}/send`, memberToken, { conversation_id: conversationId });
      expect(cleared.statusCode).toBe(422);
      expect(cleared.json()).toMatchObject({ code: 'canned_reply_incomplete', missing: [`contact.custom.${city}`, `contact.custom.${notes}`] });
      // Custom fields have no delete endpoint yet: a field removed from the database (its values go with it) is
      // missing when the saved reply is rendered, not an error.
      await t.database.db.execute(sql`delete from custom_field where id = ${route}`);
      const afterDelete = await api('POST', `/canned-replies/${id}/render`, memberToken, { conversation_id: conversationId });
      expect(afterDelete.statusCode, afterDelete.body).toBe(200);
      expect(afterDelete.json<{ missing: string[] }>().missing).toEqual([`contact.custom.${city}`, `group.custom.${route}`, `contact.custom.${notes}`]);
      expect(afterDelete.json<{ text: string }>().text).toContain(`(ruta {{ group.custom.${route} }})`);
    });

    it('refuses on save a field of another entity, of another record type, without text, or named otherwise than by id', async () => {
      const contactField = await field(contactSection, 'Apodo', 'text');
      const groupField = await field(groupSection, 'Zona', 'text');
      const photo = await field(contactSection, 'Foto', 'image');
      const elsewhere = await post('/custom-fields', otherFieldsToken, {
        custom_field_group_id: await post('/custom-field-groups', otherFieldsToken, { name: 'Ajenos', record_type: 'contact' }),
        name: 'Ajeno',
        type: 'text',
      });
      const refused = async (token: string, body: string) => {
        const res = await create(token, { shortcode: 'campo-malo', title: 'Campo malo', body, scope: 'entity' });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().code).toBe('validation_failed');
        return res.json<{ errors: { field: string; message: string }[] }>().errors;
      };
      const errors = await refused(
        managerToken,
        `{{contact.custom.${elsewhere}}} {{group.custom.${contactField}}} {{contact.custom.${groupField}}} {{contact.custom.${photo}}} ` +
          `{{lead.custom.${groupField}}} {{contact.custom.apodo}} {{contact.custom.0${contactField}}} {{contact.custom.99999999999}}`,
      );
      expect(errors.every((e) => e.field === '/body/body' && e.message.startsWith('unknown_variable: '))).toBe(true);
      expect(errors.map((e) => e.message)).toEqual(
        expect.arrayContaining([
          expect.stringContaining(`{{contact.custom.${elsewhere}}}: custom field ${elsewhere} is not a contact field of the entity`),
          expect.stringContaining(`{{group.custom.${contactField}}}: custom field ${contactField} is not a group field`),
          expect.stringContaining(`{{contact.custom.${groupField}}}: custom field ${groupField} is not a contact field`),
          expect.stringContaining(`{{contact.custom.${photo}}}: custom field ${photo} (Foto, image) has no text`),
          expect.stringContaining(`{{lead.custom.${groupField}}}: leads have no custom fields`),
          expect.stringContaining('{{contact.custom.apodo}}: a custom field is named by its id'),
          expect.stringContaining(`{{contact.custom.0${contactField}}}: a custom field is named by its id`),
          expect.stringContaining('{{contact.custom.99999999999}}: a custom field is named by its id'),
        ]),
      );
      expect(errors).toHaveLength(8);
      // The other entity's own field is fine there; a change of body is checked the same way.
      await idOf(create(otherFieldsToken, { shortcode: 'suyo', title: 'Suyo', body: `{{contact.custom.${elsewhere}}}`, scope: 'personal' }));
      const mine = await idOf(create(managerToken, { shortcode: 'apodo', title: 'Apodo', body: `Hola {{contact.custom.${contactField}}}`, scope: 'entity' }));
      const patched = await api('PATCH', `/canned-replies/${mine}`, managerToken, { body: `Hola {{contact.custom.${elsewhere}}}` });
      expect(patched.statusCode).toBe(400);
      expect(JSON.stringify(patched.json().errors)).toContain(`custom field ${elsewhere} is not a contact field`);
    });
  });
});
