/**
 * What protects a company from strangers on its website chat (issue 48): visitors' uploads count against a
 * visitor and a website budget, never the staff's quota, a presign reserves nothing, and refusals reveal no
 * company figure; new visitors are limited per website and per address range (/24, /64); invalid Unicode is
 * a 400; the service's own origin comes from configuration, never from `Host`.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { listen, waitForConversation } from '../../helpers/interactions.js';
import { SITE, chatOf, makeWebAccount, newVisitor, visitorRequest, type VisitorSession } from '../../helpers/web-visitor.js';

const MiB = 1024 * 1024;
let t: TestContext;
let baseUrl: string;
let staff: string;
let site: { id: number; websiteToken: string };
let png: Buffer;

beforeAll(async () => {
  png = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#00aa55' } })
    .png()
    .toBuffer();
  t = await createTestApp({
    startQueue: true,
    env: {
      // The staff's quotas are small enough for strangers to fill them, if they counted.
      MEDIA_QUOTA_BYTES_PER_ENTITY: String(20 * MiB),
      MEDIA_QUOTA_UPLOADS_PER_DAY: '5',
      WIDGET_UPLOADS_PENDING_PER_VISITOR: '3',
    },
  });
  baseUrl = await listen(t.app);
  const entity = await makeEntity(t.database.db);
  staff = await tokenFor(
    t.app,
    await makeMember(t.database.db, {
      entityId: entity.id,
      codes: ['entity_channel_accounts.view', 'entity_channel_accounts.create', 'entity_channel_accounts.edit', 'leads.create'],
    }),
  );
  site = await makeWebAccount(t.app, staff);
});
afterAll(async () => {
  await t.close();
});

const presign = (v: VisitorSession, size: number, name = 'photo.png', to = { baseUrl, site }) =>
  fetch(`${to.baseUrl}/api/widget/${to.site.websiteToken}/uploads`, {
    method: 'POST',
    headers: { origin: SITE, authorization: `Bearer ${v.visitor_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ file_name: name, content_type: name.endsWith('.pdf') ? 'application/pdf' : 'image/png', size }),
  });
type Presigned = { media_id: number; upload_ticket: string; upload: { url: string; method: string; headers: Record<string, string> } };
const sendAttachment = (v: VisitorSession, up: Presigned, app = t.app) =>
  visitorRequest(app, site.websiteToken, v.visitor_token, {
    method: 'POST',
    path: '/messages',
    payload: { attachment: { media_id: up.media_id, upload_ticket: up.upload_ticket } },
  });
async function upload(v: VisitorSession, to = { baseUrl, site }): Promise<Presigned> {
  const res = await presign(v, png.length, 'photo.png', to);
  expect(res.status).toBe(200);
  const up = (await res.json()) as Presigned;
  expect((await fetch(up.upload.url, { method: up.upload.method, headers: up.upload.headers, body: png })).ok).toBe(true);
  return up;
}
const staffPresign = (size: number) =>
  t.app.inject({
    method: 'POST',
    url: '/api/media/presign-upload',
    headers: bearer(staff),
    payload: { file_name: 'catalog.pdf', content_type: 'application/pdf', size },
  });

describe('visitor uploads', () => {
  it('leave the staff’s quotas whole however much strangers presign, and refuse past a visitor’s pending uploads without figures', async () => {
    // Two strangers presign 90 MiB documents without uploading a byte: past the staff's 20 MiB and 5 a day.
    for (const stranger of [await newVisitor(t.app, site.websiteToken), await newVisitor(t.app, site.websiteToken)]) {
      for (let i = 0; i < 3; i++) expect((await presign(stranger, 90 * MiB, `big-${i}.pdf`)).status).toBe(200);
      const refused = await presign(stranger, 90 * MiB, 'one-more.pdf');
      expect(refused.status).toBe(429);
      const body = (await refused.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ code: 'upload_limit_reached' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // No quota, usage or size of the company in the answer.
      expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'requestId', 'status', 'title', 'type']);
      expect(String(body.detail)).not.toMatch(/\d/);
    }
    const staffUpload = await staffPresign(10 * MiB);
    expect(staffUpload.statusCode).toBe(200);
    // The staff's own quota still holds for the staff.
    const overQuota = await staffPresign(11 * MiB);
    expect(overQuota.statusCode).toBe(403);
    expect(overQuota.json()).toMatchObject({ code: 'media_quota_exceeded' });
  });

  it('expire a visitor’s unsent uploads in minutes, and give their place back', async () => {
    const v = await newVisitor(t.app, site.websiteToken);
    for (let i = 0; i < 3; i++) expect((await presign(v, 1000)).status).toBe(200);
    expect((await presign(v, 1000)).status).toBe(429);
    const staffPending = await staffPresign(1000);
    expect(staffPending.statusCode).toBe(200);
    const report = await t.app.media.housekeeping.run(new Date(Date.now() + 21 * 60_000));
    expect(report.removedUploads).toBeGreaterThanOrEqual(3);
    // The staff's unsent upload keeps its 24 hours.
    const kept = await t.app.inject({
      method: 'GET',
      url: `/api/media/presign-download?media_id=${staffPending.json<{ media: { id: number } }>().media.id}&variant=original`,
      headers: bearer(staff),
    });
    expect(kept.statusCode).toBe(409);
    expect(kept.json()).toMatchObject({ code: 'media_not_ready' });
    expect((await presign(v, 1000)).status).toBe(200);
  });

  it('count the bytes a website’s visitors send against its daily budget, checked again when the bytes arrive', async () => {
    // Room for two of the test's images a day, whoever sends them.
    const budgeted = await createTestApp({ testDb: t.testDb, startQueue: true, env: { WIDGET_UPLOAD_BYTES_PER_WEBSITE_PER_DAY: String(2 * png.length + 10) } });
    try {
      const to = { baseUrl: await listen(budgeted.app), site };
      const [ana, ben, cai] = [
        await newVisitor(budgeted.app, site.websiteToken),
        await newVisitor(budgeted.app, site.websiteToken),
        await newVisitor(budgeted.app, site.websiteToken),
      ];
      // All three presign while the budget is whole: a presign reserves nothing.
      const [first, second, third] = [await upload(ana, to), await upload(ben, to), await upload(cai, to)];
      expect((await sendAttachment(ana, first, budgeted.app)).statusCode).toBe(202);
      expect((await sendAttachment(ben, second, budgeted.app)).statusCode).toBe(202);
      const over = await sendAttachment(cai, third, budgeted.app);
      expect(over.statusCode).toBe(429);
      expect(over.json()).toMatchObject({ code: 'upload_limit_reached' });
      expect((await presign(cai, png.length, 'photo.png', to)).status).toBe(429);
      // The refused upload is not kept: it failed, and its bytes count for no one.
      const media = await budgeted.app.inject({ method: 'GET', url: `/api/media/presign-download?media_id=${third.media_id}`, headers: bearer(staff) });
      expect(media.json()).toMatchObject({ code: 'media_not_ready', detail: `Media ${third.media_id} is failed` });
      await waitForConversation(budgeted.app, staff, chatOf(ana.visitor_token));
    } finally {
      await budgeted.close();
    }
  });
});

describe('new visitors', () => {
  it('are limited per website and per address range: /24 for IPv4, /64 for IPv6', async () => {
    const limited = await createTestApp({ testDb: t.testDb, env: { WIDGET_NEW_VISITORS_PER_RANGE: '3', WIDGET_NEW_VISITORS_PER_WEBSITE: '7' } });
    try {
      const other = await makeWebAccount(limited.app, staff);
      const from = (remoteAddress: string, payload: Record<string, unknown> = { prechat: { name: 'x' } }, websiteToken = other.websiteToken) =>
        limited.app.inject({ method: 'POST', url: `/api/widget/${websiteToken}/session`, headers: { origin: SITE }, payload, remoteAddress });
      for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) expect((await from(address)).statusCode).toBe(200);
      const sameRange = await from('203.0.113.200');
      expect(sameRange.statusCode).toBe(429);
      expect(sameRange.json()).toMatchObject({ code: 'rate_limited' });
      expect(Number(sameRange.headers['retry-after'])).toBeGreaterThan(0);
      const neighbour = await from('203.0.114.1');
      expect(neighbour.statusCode).toBe(200);
      // One IPv6 subscriber rotating through its /64 is one range.
      for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff:ffff:ffff:ffff']) expect((await from(address)).statusCode).toBe(200);
      expect((await from('2001:db8:1:2:abcd::9')).statusCode).toBe(429);
      // Seven new visitors this hour: the website's own budget is spent, whatever the range.
      expect((await from('2001:db8:9:9::1')).statusCode).toBe(429);
      // A returning visitor is not new, and another website has budgets of its own.
      const returning = await from('203.0.113.1', { visitor_token: neighbour.json<VisitorSession>().visitor_token });
      expect(returning.statusCode).toBe(200);
      expect((await from('203.0.113.1', { prechat: { name: 'y' } }, site.websiteToken)).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('invalid Unicode', () => {
  it('answers 400 for a lone surrogate in a visitor’s message or any JSON body, and accepts a paired one', async () => {
    const v = await newVisitor(t.app, site.websiteToken);
    const raw = (text: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/widget/${site.websiteToken}/messages`,
        headers: { origin: SITE, authorization: `Bearer ${v.visitor_token}`, 'content-type': 'application/json' },
        payload: `{"text":"${text}"}`,
      });
    for (const text of ['a\\ud800b', '\\udc00', 'end\\ud83d']) {
      const res = await raw(text);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_text', errors: [{ field: '/body/text' }] });
    }
    expect((await raw('smile \\ud83d\\ude00')).statusCode).toBe(202);
    const lead = await t.app.inject({
      method: 'POST',
      url: '/leads',
      headers: { ...bearer(staff), 'content-type': 'application/json' },
      payload: '{"name":"x\\udfff"}',
    });
    expect(lead.statusCode).toBe(400);
    expect(lead.json()).toMatchObject({ code: 'invalid_text', errors: [{ field: '/body/name' }] });
  });
});

describe("the service's own origin", () => {
  it('comes from PUBLIC_BASE_URL when set, never from Host', async () => {
    const configured = await createTestApp({ testDb: t.testDb, env: { PUBLIC_BASE_URL: 'https://crm.example' } });
    try {
      const config = (origin: string, host?: string) =>
        configured.app.inject({ method: 'GET', url: `/api/widget/${site.websiteToken}/config`, headers: { origin, ...(host ? { host } : {}) } });
      const own = await config('https://crm.example');
      expect(own.statusCode).toBe(200);
      expect(own.headers['access-control-allow-origin']).toBe('https://crm.example');
      for (const [origin, host] of [
        ['http://evil', 'evil'],
        ['http://127.0.0.1', undefined],
      ] as const) {
        const res = await config(origin, host);
        expect(res.statusCode).toBe(403);
        expect(res.json()).toMatchObject({ code: 'origin_not_allowed' });
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    } finally {
      await configured.close();
    }
  });
});
