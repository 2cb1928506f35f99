/**
 * The website chat as a customer meets it (issue 48, acceptance), in Debian's headless Chromium driven by
 * playwright-core: no message lost across tabs, devices and a dropped connection; axe-core finds no WCAG 2.2 AA
 * violation in any state at desktop and phone size; the whole flow works by keyboard alone; a reload opens at the
 * newest message; a reply while closed gives a badge and a title cue; only accepted files are offered, and an
 * image shows its preview. Screenshots of each state go to tmp/ (CI artifacts). Skipped when /usr/bin/chromium is
 * absent (.ci/run installs it), and on PostgreSQL (TEST_DATABASE_URL): what is under test is the widget in a browser,
 * the same on either database, so CI runs it once, in its embedded-database pass (`npm test`, as a newcomer does).
 */
import { createHmac } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import axeCore from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { connectSocket, listen, waitFor, type ReceivedEvent } from '../../helpers/interactions.js';
import { makeWebAccount } from '../../helpers/web-visitor.js';
import { CHROMIUM, CHROMIUM_ARGS, hasChromium } from '../../helpers/chromium.js';

/** axe-core's browser script, evaluated in the page (the demo page's CSP refuses an injected script tag). */
const AXE = axeCore.source;
const W = '#crm-website-chat';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

describe.skipIf(!hasChromium || process.env.TEST_DATABASE_URL !== undefined)('the widget as a customer meets it', () => {
  let t: TestContext;
  let baseUrl: string;
  let staff: string;
  let site: { id: number; websiteToken: string };
  let identitySecret: string;
  let agent: { socket: { close(): void }; events: ReceivedEvent[] };
  let browser: Browser;
  /** A customer's own site on another origin, embedding the widget for a logged-in customer. */
  let shop: Server;
  let shopUrl: string;

  beforeAll(async () => {
    t = await createTestApp({ startQueue: true });
    baseUrl = await listen(t.app);
    const member = await makeMember(t.database.db, {
      entityId: (await makeEntity(t.database.db)).id,
      codes: ['entity_channel_accounts.create', 'entity_channel_accounts.edit'],
    });
    staff = await tokenFor(t.app, member);
    shop = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://shop');
      const id = url.searchParams.get('customer') ?? 'customer-1';
      const ts = Math.floor(Date.now() / 1000);
      const signature = createHmac('sha256', identitySecret).update(`${ts}.${id}`).digest('hex');
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Tienda</title></head>
<body><main><h1>Tienda</h1><p>Hola.</p></main><script src="${baseUrl}/widget.js" data-website-token="${site.websiteToken}" data-identifier="${id}" data-identity-timestamp="${ts}" data-identity-signature="${signature}" async></script></body></html>`);
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopUrl = `http://127.0.0.1:${(shop.address() as { port: number }).port}`;
    site = await makeWebAccount(t.app, staff, {
      allowed_origins: [shopUrl],
      greeting_text: 'Hi! How can we help?',
      business_hours_text: 'Mon–Fri 8–18',
      prechat_fields: { name: 'required', email: 'optional', phone: 'off' },
      // A light colour: white text on it fails 4.5:1, so the widget darkens it.
      appearance: { color: '#7fb3ff', position: 'right' },
    });
    const secret = await t.app.inject({ method: 'POST', url: `/entity-channel-accounts/${site.id}/web/identity-secret`, headers: bearer(staff) });
    identitySecret = secret.json<{ identity_secret: string }>().identity_secret;
    agent = await connectSocket(baseUrl, { token: staff });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    mkdirSync('tmp', { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    agent?.socket.close();
    shop?.close();
    await t?.close();
  });

  const demo = () => `${baseUrl}/widget/demo?website_token=${site.websiteToken}`;
  async function context(viewport = DESKTOP): Promise<BrowserContext> {
    return browser.newContext({ viewport, locale: 'en-US' });
  }
  /** A page of `ctx` that records its uncaught errors. */
  async function open(ctx: BrowserContext, url: string): Promise<{ page: Page; errors: string[] }> {
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(url);
    await page.locator(`${W} .launcher`).waitFor();
    return { page, errors };
  }
  /** Opens the chat and, for a new visitor, answers the pre-chat form. */
  async function startChat(page: Page, name = 'Visitor'): Promise<void> {
    await page.locator(`${W} .launcher`).click();
    const field = page.locator(`${W} input[name="name"]`);
    const textarea = page.locator(`${W} textarea`);
    await Promise.race([field.waitFor(), textarea.waitFor()]);
    if (await field.isVisible()) {
      await field.fill(name);
      await page.locator(`${W} button.start`).click();
    }
    await textarea.waitFor();
  }
  /** An agent's reply through the send endpoint (202). */
  async function reply(conversationId: number, text: string): Promise<void> {
    const res = await t.app.inject({
      method: 'POST',
      url: `/interactions/conversations/${conversationId}/messages/text`,
      headers: bearer(staff),
      payload: { body: text },
    });
    expect(res.statusCode).toBe(202);
  }
  async function write(page: Page, text: string): Promise<void> {
    await page.locator(`${W} textarea`).fill(text);
    await page.locator(`${W} textarea`).press('Enter');
  }
  /** The inbound texts stored in the conversation whose customer wrote `probe`, in order. */
  async function inboxOf(probe: string): Promise<{ conversationId: number; texts: string[] }> {
    const created = await waitFor(() => agent.events.find((e) => e.name === 'interaction.message.created' && e.payload.message.text === probe), 20_000);
    const conversationId = created.payload.conversation_id as number;
    const res = await t.app.inject({ method: 'GET', url: `/interactions/conversations/${conversationId}/history?limit=200`, headers: bearer(staff) });
    const messages = res.json<{ data: { direction: string; text: string | null }[] }>().data;
    const texts = messages.flatMap((m) => (m.direction === 'inbound' && m.text ? [m.text] : []));
    return { conversationId, texts };
  }
  async function expectStored(texts: string[]): Promise<number> {
    const last = texts[texts.length - 1]!;
    let found: { conversationId: number; texts: string[] } | undefined;
    await waitFor(async () => {
      found = await inboxOf(last);
      return texts.every((x) => found!.texts.includes(x)) ? found : undefined;
    }, 20_000);
    for (const x of texts) expect(found!.texts.filter((y) => y === x)).toHaveLength(1);
    return found!.conversationId;
  }
  /** axe-core's WCAG 2.x A/AA violations on `page` (the widget's open shadow root included). */
  async function violations(page: Page): Promise<string[]> {
    await page.evaluate(AXE);
    const result = await page.evaluate<{ violations: { id: string; nodes: { target: unknown }[] }[] }>(
      `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } })`,
    );
    return result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  }
  /** The element focused in the widget, as `tag.class[name]` (null when focus is outside it). */
  const focused = (page: Page) =>
    page.evaluate<string | null>(`(() => {
      const a = document.getElementById('crm-website-chat')?.shadowRoot?.activeElement;
      return a ? a.tagName.toLowerCase() + (a.className ? '.' + a.className : '') + (a.name ? '[' + a.name + ']' : '') : null;
    })()`);

  it('two tabs of one visitor send, and every message reaches the inbox once', async () => {
    const ctx = await context();
    const one = await open(ctx, demo());
    await startChat(one.page, 'Two Tabs');
    await write(one.page, 'tab one, first');
    // The second tab resumes, which replaces the first tab's token: the first tab sends on regardless.
    const two = await open(ctx, demo());
    await two.page.locator(`${W} .launcher`).click();
    await two.page.locator(`${W} textarea`).waitFor();
    await write(one.page, 'tab one, after the second tab opened');
    await write(two.page, 'tab two');
    await write(one.page, 'tab one, last');
    await expectStored(['tab one, first', 'tab one, after the second tab opened', 'tab two', 'tab one, last']);
    await one.page.locator(`${W} .msg.visitor[data-state="sent"]`, { hasText: 'tab one, last' }).waitFor();
    expect(await one.page.locator(`${W} .error`).textContent()).toBe('');
    expect([...one.errors, ...two.errors]).toEqual([]);
    await ctx.close();
  }, 90_000);

  it('a verified customer on two devices sends from both into one conversation, once each', async () => {
    const laptop = await context();
    const phone = await context(PHONE);
    const a = await open(laptop, `${shopUrl}/?customer=verified-7`);
    const b = await open(phone, `${shopUrl}/?customer=verified-7`);
    for (const p of [a.page, b.page]) {
      await p.locator(`${W} .launcher`).click();
      await p.locator(`${W} textarea`).waitFor();
    }
    await write(a.page, 'desde la laptop');
    await write(b.page, 'desde el teléfono');
    await write(a.page, 'otra vez la laptop');
    await expectStored(['desde la laptop', 'desde el teléfono', 'otra vez la laptop']);
    // The page is in Spanish: so is the widget.
    expect(await a.page.locator(`${W} textarea`).getAttribute('placeholder')).toBe('Escribe un mensaje…');
    expect([...a.errors, ...b.errors]).toEqual([]);
    await laptop.close();
    await phone.close();
  }, 90_000);

  it('a message written while the connection is down arrives once it is back', async () => {
    const ctx = await context();
    const { page, errors } = await open(ctx, demo());
    await startChat(page, 'Offline Visitor');
    await write(page, 'before the tunnel');
    await expectStored(['before the tunnel']);
    await ctx.setOffline(true);
    await write(page, 'in the tunnel');
    await page.locator(`${W} .msg.visitor[data-state="sending"]`, { hasText: 'in the tunnel' }).waitFor();
    await page.screenshot({ path: 'tmp/widget-offline.png' });
    await ctx.setOffline(false);
    await expectStored(['before the tunnel', 'in the tunnel']);
    await page.locator(`${W} .msg.visitor[data-state="sent"]`, { hasText: 'in the tunnel' }).waitFor({ timeout: 20_000 });
    expect(errors).toEqual([]);
    await ctx.close();
  }, 90_000);

  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    it(`has no WCAG 2.2 AA violation closed, in the pre-chat, chatting and on an error, at ${size} size`, async () => {
      const ctx = await context(viewport);
      const { page, errors } = await open(ctx, demo());
      const states: Record<string, string[]> = {};
      states.closed = await violations(page);
      await page.screenshot({ path: `tmp/widget-${size}-closed.png` });
      await page.locator(`${W} .launcher`).click();
      await page.locator(`${W} input[name="name"]`).waitFor();
      states.prechat = await violations(page);
      await page.screenshot({ path: `tmp/widget-${size}-prechat.png` });
      await page.locator(`${W} input[name="name"]`).fill(`Axe ${size}`);
      await page.locator(`${W} button.start`).click();
      await write(page, `checking at ${size} size`);
      const conversationId = await expectStored([`checking at ${size} size`]);
      await reply(conversationId, `Answer at ${size} size`);
      await page.locator(`${W} .msg.agent`, { hasText: `Answer at ${size} size` }).waitFor({ timeout: 15_000 });
      states.conversation = await violations(page);
      await page.screenshot({ path: `tmp/widget-${size}-conversation.png` });
      // A file the service refuses: a human sentence, not a code.
      await page.locator(`${W} input[type="file"]`).setInputFiles({ name: 'page.html', mimeType: 'text/html', buffer: Buffer.from('<p>x</p>') });
      await expect.poll(() => page.locator(`${W} .error`).textContent()).toMatch(/cannot be sent/);
      states.error = await violations(page);
      await page.screenshot({ path: `tmp/widget-${size}-error.png` });
      expect(states).toEqual({ closed: [], prechat: [], conversation: [], error: [] });
      if (size === 'phone') {
        // The open panel takes the screen; the page does not overflow; inputs are 16 px (no zoom on focus).
        const box = await page.locator(`${W} .panel`).boundingBox();
        expect(box).toMatchObject({ x: 0, y: 0, width: PHONE.width, height: PHONE.height });
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
        expect(await page.evaluate<string>("getComputedStyle(document.getElementById('crm-website-chat').shadowRoot.querySelector('textarea')).fontSize")).toBe(
          '16px',
        );
        await page.locator(`${W} .header button`).click();
        const launcher = await page.locator(`${W} .launcher`).boundingBox();
        expect(launcher!.x + launcher!.width).toBeLessThanOrEqual(PHONE.width);
      }
      expect(errors).toEqual([]);
      await ctx.close();
    }, 90_000);
  }

  it('works by keyboard alone: open, pre-chat, write, close with Escape, focus back on the launcher', async () => {
    const ctx = await context();
    const { page, errors } = await open(ctx, demo());
    // From the page's last link, the next Tab reaches the launcher.
    await page.locator('body').press('Tab');
    for (let i = 0; i < 10 && (await focused(page)) !== 'button.launcher'; i++) await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('button.launcher');
    expect(await page.locator(`${W} .launcher`).getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('Enter');
    await page.locator(`${W} input[name="name"]`).waitFor();
    expect(await page.locator(`${W} .launcher`).getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => focused(page)).toBe('input[name]');
    await page.keyboard.type('Keyboard Visitor');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('textarea');
    await page.keyboard.type('typed without a mouse');
    await page.keyboard.press('Enter');
    await expectStored(['typed without a mouse']);
    await page.keyboard.press('Escape');
    expect(await page.locator(`${W} .panel`).isVisible()).toBe(false);
    expect(await focused(page)).toBe('button.launcher');
    // The next Tab from the launcher goes into the open panel, not out of the widget.
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('textarea');
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).not.toBeNull();
    expect(errors).toEqual([]);
    await ctx.close();
  }, 90_000);

  it('opens at the newest message after a reload, and cues a reply that arrives while closed', async () => {
    const ctx = await context();
    const { page, errors } = await open(ctx, demo());
    await startChat(page, 'Long Story');
    await write(page, 'a long story starts');
    const conversationId = await expectStored(['a long story starts']);
    for (let i = 1; i <= 30; i++) {
      await reply(conversationId, `chapter ${i}`);
    }
    await page.locator(`${W} .msg.agent .text`, { hasText: /^chapter 30$/ }).waitFor({ timeout: 20_000 });
    await page.reload();
    await page.locator(`${W} .launcher`).click();
    await page.locator(`${W} .msg.agent .text`, { hasText: /^chapter 30$/ }).waitFor({ timeout: 15_000 });
    await expect.poll(() => page.locator(`${W} .body`).evaluate((b) => Math.abs(b.scrollHeight - b.clientHeight - b.scrollTop))).toBeLessThanOrEqual(2);
    // Times and the agent's name on each message.
    expect(await page.locator(`${W} .msg.agent`).last().locator('time').count()).toBe(1);
    expect(await page.locator(`${W} .msg.agent .who`).last().textContent()).toBe('Website');

    await page.keyboard.press('Escape');
    await reply(conversationId, 'are you still there?');
    await page.locator(`${W} .badge`, { hasText: '1' }).waitFor({ timeout: 15_000 });
    expect(await page.title()).toMatch(/^\(1\) /);
    expect(await page.locator(`${W} .launcher`).getAttribute('aria-label')).toBe('Open chat, 1 new message');
    await page.screenshot({ path: 'tmp/widget-unread.png' });
    await page.locator(`${W} .launcher`).click();
    expect(await page.locator(`${W} .badge`).isVisible()).toBe(false);
    expect(await page.title()).not.toMatch(/^\(1\) /);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 120_000);

  it('offers only the files the service accepts, and shows an image it sends', async () => {
    const ctx = await context();
    const { page, errors } = await open(ctx, demo());
    await startChat(page, 'Picture Sender');
    const accept = (await page.locator(`${W} input[type="file"]`).getAttribute('accept'))!.split(',');
    expect(accept).toContain('image/png');
    expect(accept).toContain('application/pdf');
    expect(accept.some((a) => a.includes('*') || a.includes('html') || a.includes('svg'))).toBe(false);
    await write(page, 'a picture follows');
    const conversationId = await expectStored(['a picture follows']);
    await page.locator(`${W} input[type="file"]`).setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
    const preview = page.locator(`${W} .msg.visitor img[alt="dot.png"]`);
    await preview.waitFor();
    expect(await preview.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    await page.locator(`${W} .msg.visitor[data-state="sent"]:has(img[alt="dot.png"])`).waitFor({ timeout: 20_000 });
    await waitFor(async () => {
      const res = await t.app.inject({ method: 'GET', url: `/interactions/conversations/${conversationId}/history?limit=50`, headers: bearer(staff) });
      return res.json<{ data: { type: string; direction: string }[] }>().data.some((m) => m.type === 'image' && m.direction === 'inbound');
    }, 20_000);
    await page.screenshot({ path: 'tmp/widget-image.png' });
    expect(errors).toEqual([]);
    await ctx.close();
  }, 90_000);
});
