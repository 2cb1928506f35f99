/**
 * Deploys that roll (issue 27): three instances of the service (the production build in CI) started in the
 * same second on a fresh PostgreSQL database all become ready, three rounds, none of them hitting a deadlock
 * of the concurrent migrations. Its own file (from rolling-deploy.test.ts) so that the suite's two workers
 * run it beside the rolling restart. Runs only when TEST_DATABASE_URL and REDIS_URL are set.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startService } from '../helpers/service-process.js';

/** A start on a busy shared CI machine, three processes at once, can take well over the helper's default 30 s. */
const READY_TIMEOUT_MS = 90_000;
/**
 * Schema changes run under one advisory lock (src/db/migrate.ts), so a race shows in any round; three rounds
 * (nine starts) keep the chance of catching a regression without the suite's time of five.
 */
const ROUNDS = 3;

describe.runIf(process.env.TEST_DATABASE_URL && process.env.REDIS_URL)('deploys on PostgreSQL and Redis', () => {
  it('starts three instances in the same second on a fresh database, all ready, every round', async () => {
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    const failures: string[] = [];
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        const name = `crm_together_${process.pid}_${round}`;
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.query(`create database ${name}`);
        const url = new URL(process.env.TEST_DATABASE_URL!);
        url.pathname = `/${name}`;
        const started = await Promise.allSettled(
          [0, 1, 2].map((i) => startService(url.toString(), `together-${round}-${i}`, { REDIS_URL: process.env.REDIS_URL! }, READY_TIMEOUT_MS)),
        );
        for (const s of started) {
          if (s.status === 'rejected') failures.push(`round ${round}: ${String(s.reason).slice(0, 2000)}`);
          else if (/deadlock|40P01/i.test(s.value.output())) failures.push(`round ${round}: ${s.value.output()}`);
        }
        await Promise.all(started.flatMap((s) => (s.status === 'fulfilled' ? [s.value.dispose()] : [])));
        await admin.query(`drop database if exists ${name} with (force)`);
      }
    } finally {
      await admin.end();
    }
    expect(failures).toEqual([]);
  }, 240_000);
});
