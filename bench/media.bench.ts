/**
 * Media under load: 20 concurrent uploads of distinct 5 MB JPEGs through the whole flow (presign and PUT
 * to the presigned URL of the embedded store for all, then finalize for all, inline processing until
 * every object is ready; processing is timed from the finalizes to the last ready object),
 * against the service running as in production (dist/, its own process) with its RSS sampled every
 * 20 ms. The same 20 files are then optimized by calling sharp directly in this process, with the same
 * operations (auto-orient, fit inside 1600 px, flatten, mozjpeg quality 80), 20 at once.
 * Targets (media issue): service peak RSS < 400 MB; processing throughput ≥ 80 % of direct sharp.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { openPreparedDatabase } from '../src/bootstrap/prepare-database.js';
import { seedDemo } from '../src/bootstrap/demo-seed.js';
import { rssOfProcess, startProductionService, throwawayDatabase, type BenchSection } from './lib.js';

const FILES = Number(process.env.BENCH_MEDIA_FILES ?? 20);
const MAX_BYTES = 5 * 1024 * 1024;
const RSS_TARGET_MB = 400;
const THROUGHPUT_TARGET = 0.8;

/** A noisy JPEG (noise barely compresses) just under 5 MB; `seed` makes each file distinct. */
async function fiveMegabyteJpeg(seed: number): Promise<Buffer> {
  const width = 1800;
  let height = 1000;
  for (;;) {
    const noise = Buffer.alloc(width * height * 3);
    let x = seed * 2654435761;
    for (let i = 0; i < noise.length; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      noise[i] = x >>> 24;
    }
    const jpeg = await sharp(noise, { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 92 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    if (jpeg.length <= MAX_BYTES && jpeg.length > MAX_BYTES * 0.9) return jpeg;
    height = Math.floor((height * (MAX_BYTES * 0.95)) / jpeg.length);
  }
}

const optimizeDirectly = (file: Buffer) =>
  sharp(file, { autoOrient: true })
    .resize(1600, 1600, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 80, mozjpeg: true })
    .toBuffer();

async function login(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'admin123', entity_id: 1 }),
  });
  if (!res.ok) throw new Error(`login answered ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Presigns and uploads `file`; returns its media id. */
async function upload(baseUrl: string, token: string, file: Buffer, n: number): Promise<number> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const presign = await fetch(`${baseUrl}/api/media/presign-upload`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ file_name: `photo-${n}.jpg`, content_type: 'image/jpeg', size: file.length }),
  });
  if (!presign.ok) throw new Error(`presign answered ${presign.status}: ${await presign.text()}`);
  const { media, upload: target } = (await presign.json()) as {
    media: { id: number };
    upload: { url: string; method: string; headers: Record<string, string> };
  };
  const put = await fetch(target.url, { method: target.method, headers: target.headers, body: file });
  await put.arrayBuffer();
  if (!put.ok) throw new Error(`upload answered ${put.status}`);
  return media.id;
}

async function finalize(baseUrl: string, token: string, id: number): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const finalize = await fetch(`${baseUrl}/api/media/finalize-upload`, { method: 'POST', headers, body: JSON.stringify({ media_id: id }) });
  if (!finalize.ok) throw new Error(`finalize answered ${finalize.status}: ${await finalize.text()}`);
  await finalize.arrayBuffer();
}

async function waitReady(baseUrl: string, token: string, ids: number[]): Promise<void> {
  const pending = new Set(ids);
  const deadline = Date.now() + 300_000;
  while (pending.size > 0) {
    if (Date.now() > deadline) throw new Error(`${pending.size} uploads not processed after 300 s`);
    for (const id of [...pending]) {
      const res = await fetch(`${baseUrl}/api/media/presign-download?media_id=${id}`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { media?: { status: string }; status?: number };
      if (res.ok && body.media?.status === 'ready') pending.delete(id);
      else if (res.status !== 409) throw new Error(`media ${id}: ${JSON.stringify(body)}`);
    }
    if (pending.size > 0) await new Promise((r) => setTimeout(r, 250));
  }
}

export async function run(): Promise<BenchSection> {
  const files = await Promise.all(Array.from({ length: FILES }, (_, i) => fiveMegabyteJpeg(i + 1)));
  const own = await throwawayDatabase('bench_media');
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-media-'));
  try {
    const seeding = await openPreparedDatabase({ databaseUrl: own.url, dataDir });
    await seedDemo(seeding.db).finally(() => seeding.close());
    const service = await startProductionService(own.url !== undefined ? { DATABASE_URL: own.url, DATA_DIR: dataDir } : { DATA_DIR: dataDir });
    let flow: { seconds: number; processingSeconds: number; baselineMb: number; peakMb: number };
    try {
      const token = await login(service.baseUrl);
      const baseline = rssOfProcess(service.pid);
      let peak = baseline;
      const timer = setInterval(() => (peak = Math.max(peak, rssOfProcess(service.pid))), 20);
      const started = performance.now();
      let finalizing = 0;
      try {
        // Uploads first, then every finalize at once: processing is timed on its own, without uploads competing.
        const ids = await Promise.all(files.map((file, i) => upload(service.baseUrl, token, file, i)));
        finalizing = performance.now();
        await Promise.all(ids.map((id) => finalize(service.baseUrl, token, id)));
        await waitReady(service.baseUrl, token, ids);
      } finally {
        clearInterval(timer);
      }
      const ended = performance.now();
      peak = Math.max(peak, rssOfProcess(service.pid));
      flow = { seconds: (ended - started) / 1000, processingSeconds: (ended - finalizing) / 1000, baselineMb: baseline / 2 ** 20, peakMb: peak / 2 ** 20 };
    } finally {
      await service.stop();
    }

    const directStarted = performance.now();
    await Promise.all(files.map(optimizeDirectly));
    const directSeconds = (performance.now() - directStarted) / 1000;

    const serviceRate = FILES / flow.processingSeconds;
    const directRate = FILES / directSeconds;
    const ratio = serviceRate / directRate;
    const totalMb = files.reduce((n, f) => n + f.length, 0) / 2 ** 20;
    const markdown = [
      `Load average at start: ${loadavg()
        .map((n) => n.toFixed(1))
        .join(
          ' / ',
        )} on ${availableParallelism()} cores (shared machine). Database: ${own.url ? 'PostgreSQL' : 'embedded PGlite'}; store: embedded local disk.`,
      `${FILES} distinct JPEGs (${totalMb.toFixed(1)} MB in all, each ≤ 5 MB, EXIF orientation 6) uploaded at once through presign, PUT, finalize; the service (\`node dist/main.js\`) processes them inline.`,
      '',
      '| measure | value |',
      '|---|---|',
      `| whole flow, first presign to last ready | ${flow.seconds.toFixed(2)} s |`,
      `| processing, finalize of all to last ready | ${flow.processingSeconds.toFixed(2)} s (${serviceRate.toFixed(2)} images/s) |`,
      `| sharp called directly, same files and operations, ${FILES} at once | ${directSeconds.toFixed(2)} s (${directRate.toFixed(2)} images/s) |`,
      `| service throughput vs direct sharp | ${(ratio * 100).toFixed(0)}% |`,
      `| service RSS before / peak | ${flow.baselineMb.toFixed(0)} / ${flow.peakMb.toFixed(0)} MB |`,
    ].join('\n');
    return {
      title: 'Media: 20 concurrent 5 MB JPEG uploads through the whole flow',
      markdown,
      checks: [
        { name: `service peak RSS < ${RSS_TARGET_MB} MB`, ok: flow.peakMb < RSS_TARGET_MB, detail: `${flow.peakMb.toFixed(0)} MB` },
        { name: `processing throughput ≥ ${THROUGHPUT_TARGET * 100}% of direct sharp`, ok: ratio >= THROUGHPUT_TARGET, detail: `${(ratio * 100).toFixed(0)}%` },
      ],
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await own.drop();
  }
}
