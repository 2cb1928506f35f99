/**
 * The website chat in a real browser (issue 32, acceptance): Debian's headless Chromium, driven by
 * playwright-core (no browser download), opens the demo page, fills the pre-chat form and writes; an
 * agent's socket.io client receives the conversation and replies; the page shows the reply; a reload
 * resumes the same conversation. Screenshots of the widget closed and open go to tmp/ (CI artifacts).
 * Skipped only when /usr/bin/chromium is absent (.ci/run installs it).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { connectSocket, listen, waitFor, type ReceivedEvent } from '../../helpers/interactions.js';
import { makeWebAccount } from '../../helpers/web-visitor.js';
import { CHROMIUM, CHROMIUM_ARGS, hasChromium } from '../../helpers/chromium.js';

describe.skipIf(!hasChromium)('the widget in headless Chromium', () => {
  let t: TestContext;
  let baseUrl: string;
  let staff: string;
  let site: { id: number; websiteToken: string };
  let agent: { socket: { close(): void }; events: ReceivedEvent[] };
  let profile: string;
  let browser: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({ startQueue: true });
    baseUrl = await listen(t.app);
    const member = await makeMember(t.database.db, {
      entityId: (await makeEntity(t.database.db)).id,
      codes: ['entity_channel_accounts.create', 'entity_channel_accounts.edit'],
    });
    staff = await tokenFor(t.app, member);
    // No allowed origin: the service's own demo page may always use its websites.
    site = await makeWebAccount(t.app, staff, {
      allowed_origins: [],
      greeting_text: 'Hi! How can we help?',
      business_hours_text: 'Mon–Fri 8–18',
      prechat_fields: { name: 'required', email: 'optional', phone: 'off' },
    });
    agent = await connectSocket(baseUrl, { token: staff });
    profile = mkdtempSync(join(tmpdir(), 'widget-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', ...CHROMIUM_ARGS],
      viewport: { width: 1024, height: 720 },
    });
    page = browser.pages()[0] ?? (await browser.newPage());
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (msg) => {
      // A CSP refusal is reported on the console: the widget must need none of what the CSP refuses. (Failed
      // loads are judged by their responses below.)
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) pageErrors.push(msg.text());
    });
    page.on('response', (res) => {
      if (res.status() >= 400 && !res.url().endsWith('/favicon.ico')) pageErrors.push(`${res.status()} ${res.url()}`);
    });
    mkdirSync('tmp', { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    agent?.socket.close();
    await t?.close();
  });

  it('chats from the demo page with an agent, and resumes the conversation after a reload', async () => {
    await page.goto(`${baseUrl}/widget/demo?website_token=${site.websiteToken}`);
    const launcher = page.locator('#crm-website-chat .launcher');
    await launcher.waitFor();
    await page.screenshot({ path: 'tmp/widget-closed.png' });

    await launcher.click();
    await page.locator('#crm-website-chat input[name="name"]').fill('Browser Visitor');
    await page.locator('#crm-website-chat button.start').click();
    const input = page.locator('#crm-website-chat textarea');
    await input.waitFor();
    await input.fill('Hello from the browser <b>not bold</b>');
    await input.press('Enter');

    const created = await waitFor(
      () => agent.events.find((e) => e.name === 'interaction.message.created' && e.payload.message.text === 'Hello from the browser <b>not bold</b>'),
      15_000,
    );
    const conversationId = created.payload.conversation_id as number;
    const reply = await t.app.inject({
      method: 'POST',
      url: `/interactions/conversations/${conversationId}/messages/text`,
      headers: bearer(staff),
      payload: { body: 'Hello from the agent' },
    });
    expect(reply.statusCode).toBe(202);
    await page.locator('#crm-website-chat .msg.agent', { hasText: 'Hello from the agent' }).waitFor({ timeout: 15_000 });
    // Text stays text: the visitor's markup is shown, not rendered.
    expect(await page.locator('#crm-website-chat .msg.visitor .text').last().textContent()).toBe('Hello from the browser <b>not bold</b>');
    expect(await page.locator('#crm-website-chat .msg.visitor b').count()).toBe(0);
    // The widget reported the reply delivered and read (the chat is open).
    await waitFor(() => agent.events.find((e) => e.name === 'interaction.message.status' && e.payload.status === 'read'), 15_000);
    await page.screenshot({ path: 'tmp/widget-open.png' });

    await page.reload();
    await page.locator('#crm-website-chat .launcher').click();
    await page.locator('#crm-website-chat .msg.agent', { hasText: 'Hello from the agent' }).waitFor({ timeout: 15_000 });
    await page.locator('#crm-website-chat textarea').fill('Back again');
    await page.locator('#crm-website-chat textarea').press('Enter');
    const again = await waitFor(() => agent.events.find((e) => e.name === 'interaction.message.created' && e.payload.message.text === 'Back again'), 15_000);
    expect(again.payload.conversation_id).toBe(conversationId);
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
