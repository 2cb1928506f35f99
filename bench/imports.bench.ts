/**
 * Imports (issue 52): `BENCH_IMPORT_LEADS` leads (100,000; each with a first contact and its phone) from an xlsx
 * uploaded through media, imported by the durable job of the service running in this process: the time from
 * `POST /imports` (which first reads the whole file to count and check it) to `completed`, the rows per second,
 * and this process's peak RSS over its RSS before the import, sampled every 50 ms. The same file is dry-run
 * first; its counts must equal the real run's (an integrity check).
 * Targets (issue 52): 100,000 leads with contacts from xlsx in ≤ 60 s; peak RSS ≤ 300 MB.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { seedDemo } from '../src/bootstrap/demo-seed.js';
import { signBenchToken, startServer, type BenchSection } from './lib.js';

const LEADS = Number(process.env.BENCH_IMPORT_LEADS ?? 100_000);
const SECONDS_TARGET = 60;
const RSS_TARGET_MB = 300;
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

interface Job {
  id: number;
  status: string;
  total_rows: number;
  created: number;
  updated: number;
  skipped: number;
  errors: number;
}

async function writeWorkbook(path: string, groupId: number): Promise<void> {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: false, useStyles: false });
  const ws = wb.addWorksheet('Clientes');
  ws.addRow(['Nombre', 'Grupo', 'Código cliente', 'Correo', 'Teléfono', 'NIT', 'Contacto', 'Teléfono contacto']).commit();
  for (let i = 0; i < LEADS; i++) {
    const n = String(i).padStart(7, '0');
    ws.addRow([`Cliente ${n}`, groupId, `B-${n}`, `c${n}@example.com`, `2${n}`, `${n}-K`, `Contacto ${n}`, `+5025${n}`]).commit();
  }
  ws.commit();
  await wb.commit();
}

export async function run(): Promise<BenchSection> {
  const server = await startServer();
  const dir = mkdtempSync(join(tmpdir(), 'bench-imports-'));
  try {
    const demo = await seedDemo(server.database.db);
    const token = await signBenchToken(server.database, demo.identity.adminUserId, 1);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${server.baseUrl}/api${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
      return JSON.parse(text) as T;
    };
    const group = await api<{ id: number }>('POST', '/groups', { name: `Importados ${Date.now()}` });
    const path = join(dir, 'leads.xlsx');
    await writeWorkbook(path, group.id);
    const file = readFileSync(path);
    const presigned = await api<{ media: { id: number }; upload: { url: string; method: string; headers: Record<string, string> } }>(
      'POST',
      '/media/presign-upload',
      {
        file_name: 'leads.xlsx',
        content_type: XLSX,
        size: file.length,
        kind: 'document',
      },
    );
    const put = await fetch(presigned.upload.url, { method: presigned.upload.method, headers: presigned.upload.headers, body: file });
    if (!put.ok) throw new Error(`upload answered ${put.status}`);
    await api('POST', '/media/finalize-upload', { media_id: presigned.media.id });
    await server.app.media.jobs.idle();

    const timed = async (dryRun: boolean) => {
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
      const started = performance.now();
      try {
        let job = await api<Job>('POST', '/imports', { kind: 'leads', media_id: presigned.media.id, dry_run: dryRun });
        while (job.status === 'queued' || job.status === 'running') {
          await new Promise((r) => setTimeout(r, 200));
          job = await api<Job>('GET', `/imports/${job.id}`);
        }
        return { job, seconds: (performance.now() - started) / 1000, peakMb: (peak - before) / 2 ** 20, beforeMb: before / 2 ** 20 };
      } finally {
        clearInterval(sampler);
      }
    };
    const dry = await timed(true);
    const real = await timed(false);
    const counts = (j: Job) => `${j.status} ${j.total_rows} rows: ${j.created} created, ${j.updated} updated, ${j.skipped} skipped, ${j.errors} errors`;
    const rate = (s: number) => Math.round(LEADS / s);
    const markdown = [
      `${LEADS} leads with a contact each from a ${(file.length / 2 ** 20).toFixed(1)} MB xlsx, ${server.kind}, the service in this process.`,
      '',
      '| run | seconds | rows/s | peak RSS over the start (MB) | result |',
      '|---|---|---|---|---|',
      `| dry run | ${dry.seconds.toFixed(1)} | ${rate(dry.seconds)} | ${dry.peakMb.toFixed(0)} | ${counts(dry.job)} |`,
      `| real run | ${real.seconds.toFixed(1)} | ${rate(real.seconds)} | ${real.peakMb.toFixed(0)} | ${counts(real.job)} |`,
      '',
      `Real run / dry run time: ${(real.seconds / dry.seconds).toFixed(2)}×. RSS before the runs: ${real.beforeMb.toFixed(0)} MB.`,
    ].join('\n');
    const sameCounts = ['created', 'updated', 'skipped', 'errors'].every((k) => dry.job[k as keyof Job] === real.job[k as keyof Job]);
    return {
      title: 'Imports: leads with contacts from xlsx',
      markdown,
      checks: [
        {
          name: 'import completed with every row created',
          ok: real.job.status === 'completed' && real.job.created === LEADS,
          detail: counts(real.job),
          integrity: true,
        },
        { name: 'dry run counts equal the real run', ok: sameCounts, detail: `${counts(dry.job)} / ${counts(real.job)}`, integrity: true },
        { name: `real run ≤ ${SECONDS_TARGET} s`, ok: real.seconds <= SECONDS_TARGET, detail: `${real.seconds.toFixed(1)} s` },
        { name: `peak RSS over the start ≤ ${RSS_TARGET_MB} MB`, ok: real.peakMb <= RSS_TARGET_MB, detail: `${real.peakMb.toFixed(0)} MB` },
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
}
