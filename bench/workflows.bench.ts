/**
 * Workflows benchmark: (1) the filter engine on one core, a 5-filter AND compiled once and evaluated on
 * an inbound-message context (target ≥ 1M evaluations/s); (2) matching one inbound event against the
 * triggers of an entity with 1,000 enabled workflows, as the durable consumer does it (revision check
 * on the database, compiled filters from memory), against an entity with none (target: adds < 5 ms
 * p99). Honours DATABASE_URL (PostgreSQL).
 */
import { openPreparedDatabase } from '../src/bootstrap/prepare-database.js';
import { transaction } from '../src/platform/transactions/transaction.js';
import { compileFilters, evaluate, type FilterNode } from '../src/modules/workflows/filter-engine.js';
import { caseInsensitiveFields } from '../src/modules/workflows/field-registry.js';
import { createTriggerMatcher } from '../src/modules/workflows/trigger-matcher.js';
import * as repo from '../src/modules/workflows/workflow.repository.js';
import { createDirectoryService } from '../src/modules/identity/directory.service.js';
import { throwawayDatabase, type BenchSection } from './lib.js';

const WORKFLOWS = Number(process.env.BENCH_WORKFLOWS ?? 1000);
const now = () => performance.now();

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const context = {
  type: 'message.inbound',
  entity_id: 1,
  contact_id: 10,
  lead_id: 20,
  group_id: 30,
  channel_type_code: 'chatapp_api',
  assignment_status: 'unassigned',
  assigned_employee_ids: [],
  sender_identifier: '+50255501234',
  sender_name: 'Ana Pérez',
  message_text: 'Buenas tardes, ¿cuál es el precio del plan empresarial?',
  message_id: 'wamid.X',
  external_chat_id: '50255501234',
  entity_channel_account_id: 1,
  is_first_message: true,
  occurred_at: new Date().toISOString(),
};

/** Five filters that all hold, so every evaluation runs all five. */
const FIVE: FilterNode[] = [
  { field: 'trigger.channel_type_code', operator: 'in', value: ['chatapp_api', 'chatapp_business'] },
  { field: 'trigger.assignment_status', operator: 'eq', value: 'unassigned' },
  { field: 'trigger.message_text', operator: 'contains', value: 'PRECIO' },
  { field: 'trigger.is_first_message', operator: 'eq', value: true },
  { field: 'trigger.sender_name', operator: 'is_not_empty' },
];

function engineRate(seconds: number): { compiled: number; uncompiled: number } {
  const ci = caseInsensitiveFields('message.inbound');
  const holds = compileFilters(FIVE, { caseInsensitive: ci });
  const scope = { trigger: context };
  if (!holds(scope)) throw new Error('the benchmark filters must hold');
  const measure = (fn: () => boolean) => {
    let n = 0;
    let sink = 0;
    const until = now() + seconds * 1000;
    while (now() < until) {
      for (let i = 0; i < 10_000; i++) sink += fn() ? 1 : 0;
      n += 10_000;
    }
    if (sink !== n) throw new Error('unexpected result');
    return n / seconds;
  };
  return { compiled: measure(() => holds(scope)), uncompiled: measure(() => evaluate(scope, FIVE, { caseInsensitive: ci })) };
}

export async function run(): Promise<BenchSection> {
  const seconds = Math.min(5, Number(process.env.BENCH_SECONDS ?? 10) / 2);
  const engine = engineRate(seconds);

  const own = await throwawayDatabase('bench_workflows');
  const database = await openPreparedDatabase({ databaseUrl: own.url, dataDir: ':memory:', databasePoolSize: 4 });
  try {
    const dir = createDirectoryService(database.db);
    const busy = (await dir.ensureEntity({ name: 'Busy' })).id;
    const empty = (await dir.ensureEntity({ name: 'Empty' })).id;
    // 1,000 keyword workflows of which 1 in 100 matches the message, plus a few filters each.
    await transaction(database.db, async ({ tx }) => {
      for (let i = 0; i < WORKFLOWS; i++) {
        const filters: FilterNode[] = [
          { field: 'trigger.message_text', operator: 'contains', value: i % 100 === 0 ? 'precio' : `palabra${i}` },
          { field: 'trigger.channel_type_code', operator: 'in', value: ['chatapp_api', 'social_dm'] },
          {
            any: [
              { field: 'trigger.assignment_status', operator: 'eq', value: 'unassigned' },
              { field: 'trigger.is_first_message', operator: 'eq', value: true },
            ],
          },
        ];
        const wf = await repo.insertWorkflow(tx, { entityId: busy, name: `Workflow ${i}`, enabled: true, version: 1 });
        await repo.insertVersion(tx, {
          entityId: busy,
          workflowId: wf.id,
          version: 1,
          definition: { trigger: { trigger_type: 'message.inbound', preset_code: null, filters }, steps: [{ key: 'n', action: 'add_note', text: 'x' }] },
        });
        await repo.saveTrigger(tx, {
          entityId: busy,
          workflowId: wf.id,
          triggerType: 'message.inbound',
          presetCode: null,
          filters,
          enabled: true,
          nextRunAt: null,
        });
      }
    });
    const matcher = createTriggerMatcher({ db: database.db });
    const sample = async (entityId: number) => {
      const times: number[] = [];
      let matched = 0;
      const until = now() + seconds * 1000;
      while (now() < until) {
        const t0 = now();
        matched = (await matcher.match(entityId, 'message.inbound', { ...context, entity_id: entityId })).length;
        times.push(now() - t0);
      }
      return { times, matched };
    };
    await sample(busy); // compiles once, warms the connection
    const withNone = await sample(empty);
    const withMany = await sample(busy);
    const p = (xs: number[], q: number) => percentile(xs, q).toFixed(2);
    const added = percentile(withMany.times, 99) - percentile(withNone.times, 99);
    const markdown = [
      `Filter engine, one core, a 5-filter AND that holds (all five evaluated), ${seconds} s each:`,
      '',
      '| form | evaluations/s |',
      '|---|---|',
      `| compiled once (\`compileFilters\`, what the matcher keeps) | ${Math.round(engine.compiled).toLocaleString('en')} |`,
      `| compiled at every call (\`evaluate\`) | ${Math.round(engine.uncompiled).toLocaleString('en')} |`,
      '',
      `Matching one inbound message against an entity's triggers (${database.kind}; revision query + compiled filters), ${seconds} s each:`,
      '',
      '| entity | matches | calls | p50 ms | p99 ms |',
      '|---|---|---|---|---|',
      `| no workflows | ${withNone.matched} | ${withNone.times.length} | ${p(withNone.times, 50)} | ${p(withNone.times, 99)} |`,
      `| ${WORKFLOWS} enabled workflows (1 in 100 matches) | ${withMany.matched} | ${withMany.times.length} | ${p(withMany.times, 50)} | ${p(withMany.times, 99)} |`,
      '',
      `1,000 workflows add ${added.toFixed(2)} ms at p99 (ratio of p99s ${(percentile(withMany.times, 99) / Math.max(0.001, percentile(withNone.times, 99))).toFixed(2)}x).`,
    ].join('\n');
    return {
      title: 'Workflows: filter engine and trigger matching',
      markdown,
      checks: [
        {
          name: 'filter engine ≥ 1M evaluations/s of a 5-filter AND on one core',
          ok: engine.compiled >= 1_000_000,
          detail: `${Math.round(engine.compiled).toLocaleString('en')}/s`,
        },
        { name: 'matching against 1,000 workflows adds < 5 ms p99', ok: added < 5, detail: `+${added.toFixed(2)} ms p99` },
      ],
    };
  } finally {
    await database.close();
    await own.drop();
  }
}
