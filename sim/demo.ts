/**
 * `npm run demo`: the service on embedded defaults (PGlite under DATA_DIR, default ./data/demo) with
 * demo data and the simulators of the external systems. The ERP simulator starts first (the service
 * reaches it at login); the simulators in `SIMULATORS` then get the running service's base URL.
 */
import { buildApp, wantsPrettyLogs } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { resolveSecrets } from '../src/platform/secrets.js';
import { openPreparedDatabase } from '../src/bootstrap/prepare-database.js';
import { describeDemo, seedDemo } from '../src/bootstrap/demo-seed.js';
import { createCommunicationsSimulator } from './communications/simulator.js';
import { DEMO_WHATSAPP_PHONE_NUMBER_ID } from '../src/modules/interactions/demo.seed.js';
import { erpEnvFor, startDemoErpSimulator } from './erp/server.js';

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
    return async () => {};
  },
};

export const SIMULATORS: DemoSimulator[] = [communications];

async function main(): Promise<void> {
  const erp = await startDemoErpSimulator();
  console.log(`ERP simulator at ${erp.url}`);
  const config = loadConfig({ DATA_DIR: './data/demo', ...erpEnvFor(erp.url), ...process.env, DATABASE_URL: process.env.DATABASE_URL });
  const secrets = resolveSecrets(config);
  const database = await openPreparedDatabase(config);
  const app = await buildApp({ config, database, secrets, prettyLogs: wantsPrettyLogs(config) });
  console.log(describeDemo(await seedDemo(database.db)));
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
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
