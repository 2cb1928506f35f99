/**
 * Deploys that roll (issue 27), with real service processes (the production build in CI) on PostgreSQL and
 * Redis (instances started together on a fresh database: concurrent-start.test.ts): an event that can never be applied is dead-lettered on its first attempt and logged once, at warn, without a
 * stack; a rolling restart (SIGTERM to each of two instances in turn, a replacement started for each) under
 * a steady flow of webhooks, sends and sockets loses, duplicates and 5xx-es nothing, and every socket client
 * is moved to another instance, resumes its session there and receives every event of its entity exactly once.
 * Runs only when TEST_DATABASE_URL and REDIS_URL are set.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io, type Socket } from 'socket.io-client';
import { startTcpBalancer } from '../helpers/tcp-balancer.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db.js';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../helpers/factories.js';
import { makeChannelAccount } from '../helpers/conversation-factories.js';
import { waitFor } from '../helpers/interactions.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { whatsAppMessage } from '../../sim/communications/payloads.js';
import { startProviderSimulator, type ProviderSimulator } from '../../sim/communications/provider.js';
import { queryRows } from '../../src/db/client.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DRAIN_SECONDS = 15;
/** A start on a busy shared CI machine, three processes at once, can take well over the helper's default 30 s. */
const READY_TIMEOUT_MS = 90_000;

describe.runIf(process.env.TEST_DATABASE_URL && process.env.REDIS_URL)('deploys on PostgreSQL and Redis', () => {
  describe('a rolling restart under load', () => {
    let testDb: TestDatabase;
    let t: TestContext;
    let sim: ProviderSimulator;
    let token: string;
    let operatorToken: string;
    const services: ServiceProcess[] = [];
    const sockets: Socket[] = [];
    let env: Record<string, string>;

    beforeAll(async () => {
      testDb = await createTestDatabase();
      t = await createTestApp({ testDb, startQueue: false });
      // This process only prepares data and reads the database: it is no instance of the deployment (no Redis, so
      // no socket would hear what it applied), so its inbox worker must not sweep up the instances' pending events.
      await t.app.interactionsWorker.stop();
      const entity = (await makeEntity(t.database.db, 'Rolling')).id;
      await makeChannelAccount(t.database.db, { entityId: entity, externalAccountId: 'PN-ROLL' });
      token = await tokenFor(t.app, await makeMember(t.database.db, { entityId: entity, codes: ['workflows.manage'] }));
      operatorToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: entity, superAdmin: true, email: 'ops@example.com' }));
      sim = await startProviderSimulator({ apiKey: 'roll-communications-key' });
      env = {
        REDIS_URL: process.env.REDIS_URL!,
        COMMUNICATIONS_BASE_URL: sim.url,
        COMMUNICATIONS_API_KEY: 'roll-communications-key',
        COMMUNICATIONS_TIMEOUT_MS: '3000',
        QUEUE_MAINTENANCE_INTERVAL_SECONDS: '1',
        // The load balancer's health check (every 100 ms) takes a draining instance out within this delay.
        SHUTDOWN_DELAY_SECONDS: '1',
        SHUTDOWN_DRAIN_SECONDS: String(DRAIN_SECONDS),
        LOG_LEVEL: 'info',
        COMMUNICATIONS_PRIVILEGED_OPERATOR_EMAILS: 'ops@example.com',
      };
      services.push(
        ...(await Promise.all([startService(testDb.url!, 'roll-a', env, READY_TIMEOUT_MS), startService(testDb.url!, 'roll-b', env, READY_TIMEOUT_MS)])),
      );
    }, 120_000);
    afterAll(async () => {
      for (const s of sockets) s.disconnect();
      for (const s of services) await s.dispose();
      await t?.close();
      await sim?.close();
      await testDb?.close();
    });

    it('dead-letters a sender id that is not digits on its first attempt, logged once at warn without a stack', async () => {
      const [a] = services;
      const res = await fetch(`${a!.baseUrl}/api/interactions/webhooks/communications`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(whatsAppMessage({ phoneNumberId: 'PN-ROLL' }, { from: 'PHONE_NUMBER', id: 'wamid.ROLL-NOT-DIGITS', text: 'hola' })),
      });
      expect(res.status).toBe(200);
      const row = await waitFor(async () => {
        const [r] = await queryRows<{ state: string; attempts: number; last_error: string }>(
          t.database.db,
          sql`select state, attempts, last_error from interaction_webhook_inbox where event_key = 'whatsapp:message:wamid.ROLL-NOT-DIGITS'`,
        );
        return r?.state === 'dead' ? r : undefined;
      }, 10_000);
      expect(row).toMatchObject({ attempts: 1, last_error: expect.stringContaining('phone number in digits') });
      const list = await fetch(`${a!.baseUrl}/api/interactions/webhooks/dead-letters`, { headers: bearer(operatorToken) });
      expect(((await list.json()) as { data: { event_key: string }[] }).data.map((d) => d.event_key)).toContain('whatsapp:message:wamid.ROLL-NOT-DIGITS');
      await sleep(1500); // a retry would have been swept by now
      const lines = services.flatMap((s) => s.output().split('\n')).filter((l) => l.includes('PHONE_NUMBER'));
      expect(lines).toHaveLength(1);
      const logged = JSON.parse(lines[0]!) as { level: number; err?: unknown; reason: string };
      expect(logged.level).toBe(40);
      expect(logged.err).toBeUndefined();
      expect(lines[0]).not.toContain('"stack"');
      const metrics = await (await fetch(`${a!.baseUrl}/metrics`)).text();
      expect(metrics).toMatch(/^interactions_inbox_pending_events 0$/m);
    }, 30_000);

    it(
      'replaces both instances one by one while webhooks, sends and sockets flow: 0 lost, 0 duplicated, 0 unexpected 5xx, every socket client resumed elsewhere and got every event once',
      // No retry: every assertion holds within one run. The one event that once reached no client (one CI run of six,
      // before 7159927) was never explained; the stream readers no longer start from `$` (issue 47), one way to miss it.
      { timeout: 300_000 },
      async () => {
        const balancer = await startBalancer(services.map((s) => s.baseUrl));
        const chats = Array.from({ length: 6 }, (_, i) => `5025571${String(i).padStart(4, '0')}`);
        const unexpected: string[] = [];
        let retriedAfter503 = 0;
        let retriedAfterNetworkError = 0;
        /** A client behind the balancer: retries a dropped connection, and a 503 after its Retry-After. */
        const request = async (path: string, body: object, headers: Record<string, string> = {}): Promise<number> => {
          for (let attempt = 0; attempt < 40; attempt++) {
            const res = await fetch(`${balancer.url}${path}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...headers },
              body: JSON.stringify(body),
            }).catch(() => undefined);
            if (!res) {
              retriedAfterNetworkError++;
              await sleep(100);
              continue;
            }
            const retryAfter = res.headers.get('retry-after');
            if (res.status === 503 && retryAfter !== null) {
              retriedAfter503++;
              await res.body?.cancel();
              await sleep(Number(retryAfter) * 1000);
              continue;
            }
            if (res.status >= 500) unexpected.push(`${res.status} ${path} ${await res.text()}`);
            else await res.body?.cancel();
            return res.status;
          }
          throw new Error(`no answer for ${path}`);
        };
        try {
          for (const from of chats)
            expect(
              await request(
                '/api/interactions/webhooks/communications',
                whatsAppMessage({ phoneNumberId: 'PN-ROLL' }, { from, text: 'abre', id: `wamid.ROLL-OPEN-${from}` }),
              ),
            ).toBe(200);
          const conversationIds = await waitFor(async () => {
            const rows = await queryRows<{ id: number }>(t.database.db, sql`select id from conversation where external_chat_id in ${chats}`);
            return rows.length === chats.length ? rows.map((r) => r.id) : undefined;
          }, 20_000);

          const clients = Array.from({ length: 4 }, () => {
            const heard: string[] = [];
            /** Connections and disconnections, with their time, for the report of a failure. */
            const trace: string[] = [];
            const socket = io(`${balancer.url}/interactions`, {
              transports: ['websocket'],
              forceNew: true,
              auth: { token },
              reconnectionDelay: 300,
              reconnectionDelayMax: 1000,
            });
            sockets.push(socket);
            let readies = 0;
            socket.on(
              'interaction.message.created',
              (p: { message: { text: string | null } }) => void (p.message.text?.startsWith('cliente ') && heard.push(p.message.text)),
            );
            socket.on('interaction.ready', () => void readies++);
            socket.on('connect', () => void trace.push(`${Date.now()} connect recovered=${socket.recovered}`));
            socket.on('disconnect', (reason) => void trace.push(`${Date.now()} disconnect ${reason}`));
            return { socket, heard, trace, readies: () => readies };
          });
          await waitFor(() => clients.every((c) => c.readies() >= 1) || undefined, 10_000);
          const notRecovered: number[] = [];
          const reconnections = clients.map(() => 0);
          clients.forEach((c, i) =>
            c.socket.on('connect', () => {
              reconnections[i]!++;
              if (!c.socket.recovered) notRecovered.push(i);
            }),
          );

          // Steady load until both instances were replaced: 3 webhooks for every send.
          const acceptedInbound: string[] = [];
          const acceptedSends: string[] = [];
          let rolled = false;
          let n = 0;
          const runner = async () => {
            while (!rolled || n < 60) {
              const i = n++;
              if (i % 4 === 3) {
                const text = `agente ${i}`;
                const status = await request(
                  `/api/interactions/conversations/${conversationIds[i % conversationIds.length]}/messages/text`,
                  { body: text },
                  { ...bearer(token), 'idempotency-key': `roll-${i}` },
                );
                if (status >= 200 && status < 300) acceptedSends.push(text);
                else unexpected.push(`send ${i}: ${status}`);
              } else {
                const id = `wamid.ROLL-${i}`;
                const status = await request(
                  '/api/interactions/webhooks/communications',
                  whatsAppMessage({ phoneNumberId: 'PN-ROLL' }, { from: chats[i % chats.length]!, text: `cliente ${i}`, id }),
                );
                if (status === 200) {
                  acceptedInbound.push(id);
                  acceptedAt.set(`cliente ${i}`, Date.now());
                } else unexpected.push(`webhook ${i}: ${status}`);
              }
              await sleep(40);
            }
          };
          const drains: { exit: unknown; ms: number; readyzAtOnce: number | undefined }[] = [];
          const sigterms: number[] = [];
          const acceptedAt = new Map<string, number>();
          const roll = async () => {
            for (const index of [0, 1]) {
              await sleep(1500);
              const old = services[index]!;
              const startedAt = Date.now();
              const exitedAt = old.exited.then(() => Date.now());
              old.child.kill('SIGTERM');
              sigterms.push(Date.now());
              // Still serving during SHUTDOWN_DELAY_SECONDS, while /readyz already says no.
              let readyz: number | undefined;
              for (let i = 0; i < 20 && (readyz === undefined || readyz === 200); i++) {
                readyz = await fetch(`${old.baseUrl}/readyz`).then(
                  (r) => r.status,
                  () => undefined,
                );
                if (readyz === 200) await sleep(50);
              }
              const replacement = await startService(testDb.url!, `roll-${index}-new`, env, READY_TIMEOUT_MS);
              services.push(replacement);
              balancer.add(replacement.baseUrl);
              const exit = await old.exited;
              drains.push({ exit, ms: (await exitedAt) - startedAt, readyzAtOnce: readyz });
            }
            await sleep(1500);
            rolled = true;
          };
          await Promise.all([roll(), ...Array.from({ length: 6 }, runner)]);

          const projected = async () =>
            queryRows<{ id: string; n: number }>(
              t.database.db,
              sql`select external_message_id as id, count(*)::int as n from message where external_message_id like 'wamid.ROLL-%' and external_message_id not like 'wamid.ROLL-OPEN-%' and external_message_id <> 'wamid.ROLL-NOT-DIGITS' group by 1`,
            );
          await waitFor(async () => ((await projected()).length >= acceptedInbound.length ? true : undefined), 60_000);
          const delivered = () => sim.deliveries.map((d) => (d.body.text as { body: string }).body).filter((text) => text.startsWith('agente '));
          await waitFor(() => (new Set(delivered()).size >= acceptedSends.length ? true : undefined), 60_000);
          const unsettled = async () =>
            (
              await queryRows<{ n: number }>(
                t.database.db,
                sql`select count(*)::int as n from message where direction = 'outbound' and text like 'agente %' and status = 'pending'`,
              )
            )[0]!.n;
          await waitFor(async () => ((await unsettled()) === 0 ? true : undefined), 60_000);
          const expectedTexts = acceptedInbound.map((id) => `cliente ${id.slice('wamid.ROLL-'.length)}`).sort();
          await waitFor(() => clients.every((c) => new Set(c.heard).size >= expectedTexts.length) || undefined, 20_000).catch(() => undefined);
          await sleep(1500); // any duplicate would have arrived by now

          const rows = await projected();
          const lost = acceptedInbound.filter((id) => !rows.some((r) => r.id === id));
          const duplicated = rows.filter((r) => r.n > 1);
          const deliveredTexts = delivered();
          const lostSends = acceptedSends.filter((text) => !deliveredTexts.includes(text));
          const duplicatedSends = deliveredTexts.filter((text, i) => deliveredTexts.indexOf(text) !== i);
          // Per client, what it never heard and what it heard twice, each with when it was accepted after each SIGTERM.
          const when = (text: string) => `${text} @${sigterms.map((at) => (acceptedAt.get(text) ?? NaN) - at).join('/')}ms`;
          const bySocket = clients.map((c) => ({
            missed: expectedTexts.filter((text) => !c.heard.includes(text)).map(when),
            duplicated: c.heard.filter((text, i) => c.heard.indexOf(text) !== i).map(when),
            unexpected: c.heard.filter((text) => !expectedTexts.includes(text)),
          }));
          const errors = services.flatMap((svc) => svc.output().split('\n')).filter((l) => /"level":(50|60)/.test(l));
          console.info(
            `service errors: ${errors.length}\n${errors
              .slice(0, 5)
              .map((l) => l.slice(0, 600))
              .join('\n')}`,
          );
          clients.forEach((c, i) => {
            const { missed, duplicated } = bySocket[i]!;
            if (missed.length + duplicated.length > 0)
              console.info(
                `socket client ${i}: missed ${missed.join(', ')}; twice ${duplicated.join(', ')}; SIGTERMs at ${sigterms.join(', ')}\n${c.trace.join('\n')}`,
              );
          });
          console.info(
            `rolling restart: ${acceptedInbound.length} webhooks and ${acceptedSends.length} sends accepted; ${lost.length + lostSends.length} lost, ${duplicated.length + duplicatedSends.length} duplicated, ${unexpected.length} unexpected 5xx; ` +
              `${retriedAfter503} retried after a 503 with Retry-After, ${retriedAfterNetworkError} after a dropped connection; socket clients missed ${JSON.stringify(bySocket.map((b) => b.missed.length))}, got twice ${JSON.stringify(bySocket.map((b) => b.duplicated.length))} after ${JSON.stringify(reconnections)} reconnections, not recovered ${notRecovered.length}; drains ${JSON.stringify(drains)}`,
          );
          expect(acceptedInbound.length).toBeGreaterThan(40);
          expect(acceptedSends.length).toBeGreaterThan(10);
          expect(unexpected).toEqual([]);
          expect({ lost, duplicated, lostSends, duplicatedSends }).toEqual({ lost: [], duplicated: [], lostSends: [], duplicatedSends: [] });
          const stored = await queryRows<{ status: string; n: number }>(
            t.database.db,
            sql`select status, count(*)::int as n from message where direction = 'outbound' and text like 'agente %' group by status`,
          );
          expect(stored.filter((r) => r.status === 'pending' || r.status === 'failed')).toEqual([]);
          expect(stored.reduce((sum, r) => sum + r.n, 0)).toBe(acceptedSends.length);
          // Every client was moved off each draining instance and resumed its session on another one.
          expect(reconnections.every((n) => n >= 1)).toBe(true);
          expect(notRecovered).toEqual([]);
          // Every client heard every accepted inbound message of its entity exactly once, across both restarts.
          expect(bySocket).toEqual(clients.map(() => ({ missed: [], duplicated: [], unexpected: [] })));

          // Each instance answered /readyz 503 at once, drained and exited cleanly within the drain time.
          for (const d of drains) {
            expect(d.exit).toBe(0);
            expect(d.readyzAtOnce).toBe(503);
            expect(d.ms).toBeLessThan(DRAIN_SECONDS * 1000);
          }
        } finally {
          await balancer.close();
        }
      },
    );
  });
});

/**
 * A TCP load balancer over several upstreams: new connections go round-robin to those whose `/readyz` answered
 * 200 at its last health check (every 100 ms), as a Kubernetes Service or a cloud balancer does.
 */
async function startBalancer(baseUrls: string[]): Promise<{ url: string; add(baseUrl: string): void; close(): Promise<void> }> {
  const upstreams = new Map<string, boolean>(baseUrls.map((u) => [u, true]));
  let cursor = 0;
  const check = setInterval(() => {
    for (const u of upstreams.keys()) {
      void fetch(`${u}/readyz`, { signal: AbortSignal.timeout(500) }).then(
        (r) => {
          upstreams.set(u, r.status === 200);
          void r.body?.cancel();
        },
        () => upstreams.set(u, false),
      );
    }
  }, 100);
  const balancer = await startTcpBalancer(
    () => {
      const ready = [...upstreams].filter(([, ok]) => ok).map(([u]) => u);
      return ready.length === 0 ? undefined : Number(new URL(ready[cursor++ % ready.length]!).port);
    },
    () => clearInterval(check),
  );
  return { url: balancer.url, add: (baseUrl) => void upstreams.set(baseUrl, true), close: () => balancer.close() };
}
