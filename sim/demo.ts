/**
 * `npm run demo`: the service on embedded defaults (PGlite under DATA_DIR, default ./data/demo) with
 * demo data and the simulators of the external systems. The ERP simulator and the communications
 * service's sending side start first (the service reaches them at login and when it sends); the
 * simulators in `SIMULATORS` then get the running service's base URL. The communications simulator shows a
 * full round trip: a customer writes, an agent answers through the API, the customer's phone "receives"
 * it, and sent → delivered → read reach the agent's socket.
 */
import { buildApp, wantsPrettyLogs } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { resolveSecrets } from '../src/platform/secrets.js';
import { openPreparedDatabase } from '../src/bootstrap/prepare-database.js';
import { describeDemo, seedDemo } from '../src/bootstrap/demo-seed.js';
import { createCommunicationsSimulator } from './communications/simulator.js';
import { DEMO_WHATSAPP_PHONE_NUMBER_ID } from '../src/modules/interactions/demo.seed.js';
import { erpEnvFor, startDemoErpSimulator } from './erp/server.js';
import { io } from 'socket.io-client';
import { startProviderSimulator, type ProviderSimulator } from './communications/provider.js';
import { whatsAppMessage } from './communications/payloads.js';

const PROVIDER_API_KEY = 'demo-communications-key';
let provider: ProviderSimulator;
/** The entity whose inbox the demo WhatsApp number feeds (set once the demo data is seeded). */
let demoEntityId = 1;

export interface DemoSimulator {
  name: string;
  /** Starts the simulator against the service; returns a stop function. */
  start(serviceUrl: string): Promise<() => Promise<void>>;
}

const communications: DemoSimulator = {
  name: 'communications',
  async start(serviceUrl) {
    const sim = createCommunicationsSimulator({ baseUrl: serviceUrl });
    const results = await sim.burst(sim.everyMessageType({ phoneNumberId: DEMO_WHATSAPP_PHONE_NUMBER_ID }, '50255550123', 'Demo Customer'), 1);
    console.log(`communications simulator: sent ${results.length} WhatsApp events (every message type, statuses out of order)`);
    await roundTrip(serviceUrl).catch((err: unknown) => console.error('round trip failed:', err));
    return async () => {};
  },
};

/** A customer writes, the demo admin answers through the API, and the statuses come back to a socket. */
async function roundTrip(serviceUrl: string): Promise<void> {
  const from = '50255550999';
  provider.setWebhookTarget(serviceUrl);
  const login = await fetch(`${serviceUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'admin123', entity_id: demoEntityId }),
  });
  if (!login.ok) throw new Error(`demo login answered ${login.status}`);
  const token = ((await login.json()) as { access_token: string }).access_token;
  const auth = { authorization: `Bearer ${token}` };
  const socket = io(`${serviceUrl}/interactions`, { transports: ['websocket'], auth: { token } });
  await new Promise((resolve, reject) => {
    socket.once('interaction.ready', resolve);
    socket.once('connect_error', reject);
  });
  await fetch(`${serviceUrl}/api/interactions/webhooks/communications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(whatsAppMessage({ phoneNumberId: DEMO_WHATSAPP_PHONE_NUMBER_ID }, { from, name: 'Round Trip', text: '¿Tienen entrega a domicilio?' })),
  });
  console.log(`round trip: customer +${from} wrote "¿Tienen entrega a domicilio?"`);
  let conversationId: number | undefined;
  for (let i = 0; i < 50 && conversationId === undefined; i++) {
    const list = (await (await fetch(`${serviceUrl}/api/interactions/conversations?q=${from}`, { headers: auth })).json()) as {
      data: { id: number; external_chat_id: string }[];
    };
    conversationId = list.data.find((c) => c.external_chat_id === from)?.id;
    if (conversationId === undefined) await new Promise((r) => setTimeout(r, 100));
  }
  if (conversationId === undefined) throw new Error('the conversation did not open');
  const statuses = new Promise<void>((resolve) => {
    socket.on('interaction.message.status', (p: { status: string }) => {
      console.log(`round trip: status "${p.status}" reached the agent's socket`);
      if (p.status === 'read') resolve();
    });
  });
  const sent = await fetch(`${serviceUrl}/api/interactions/conversations/${conversationId}/messages/text`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ body: 'Sí, entregamos en toda la ciudad.' }),
  });
  console.log(`round trip: agent answered through the API (${sent.status})`);
  const [delivered] = await provider.waitForDeliveries(1, 10_000);
  console.log(`round trip: the customer's phone received ${JSON.stringify(delivered!.body)}`);
  await Promise.race([statuses, new Promise((r) => setTimeout(r, 10_000))]);
  socket.disconnect();
}

export const SIMULATORS: DemoSimulator[] = [communications];

async function main(): Promise<void> {
  const erp = await startDemoErpSimulator();
  console.log(`ERP simulator at ${erp.url}`);
  provider = await startProviderSimulator({ apiKey: PROVIDER_API_KEY });
  console.log(`communications service simulator at ${provider.url}`);
  const config = loadConfig({
    DATA_DIR: './data/demo',
    ...erpEnvFor(erp.url),
    COMMUNICATIONS_BASE_URL: provider.url,
    COMMUNICATIONS_API_KEY: PROVIDER_API_KEY,
    ...process.env,
    DATABASE_URL: process.env.DATABASE_URL,
  });
  const secrets = resolveSecrets(config);
  const database = await openPreparedDatabase(config);
  const app = await buildApp({ config, database, secrets, prettyLogs: wantsPrettyLogs(config) });
  const demo = await seedDemo(database.db);
  demoEntityId = demo.identity.entities[0]!.id;
  console.log(describeDemo(demo));
  await app.listen({ host: config.host, port: config.port });
  const url = `http://${config.host}:${config.port}`;
  console.log(`crm-backend demo at ${url} (API docs ${url}/docs)`);
  const stops: (() => Promise<void>)[] = [];
  for (const sim of SIMULATORS) stops.push(await sim.start(url));
  const shutdown = async () => {
    for (const stop of stops) await stop();
    await app.close();
    await database.close();
    await erp.close();
    await provider.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
