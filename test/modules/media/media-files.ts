/** Real media files generated for tests: sharp draws images, `ffmpeg -f lavfi` synthesizes audio and video. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';

const run = promisify(execFile);

/** A noisy JPEG (hard to compress) of `width`×`height` carrying EXIF (camera, GPS) and orientation 6 (rotate 90°). */
export async function jpegWithExif(width = 1200, height = 800): Promise<Buffer> {
  const noise = Buffer.alloc(width * height * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
  return sharp(noise, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 95 })
    .withMetadata({ orientation: 6 })
    .withExifMerge({ IFD0: { Make: 'CRM-Test-Cam', Model: 'Leaky 1' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '14/1 37/1 0/1' } })
    .toBuffer();
}

export const png = (width = 64, height = 64) =>
  sharp({ create: { width, height, channels: 4, background: { r: 10, g: 120, b: 200, alpha: 0.5 } } })
    .png()
    .toBuffer();

/** A minimal valid PDF. */
export const pdf = () =>
  Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

async function ffmpegFile(args: string[], ext: string): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'media-fixture-'));
  const out = join(dir, `out.${ext}`);
  try {
    await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args, out]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `seconds` of a 440 Hz tone as 16-bit mono PCM WAV at 16 kHz (not a WhatsApp format: it must be converted). Written here, so it needs no ffmpeg. */
export async function wavTone(seconds = 1): Promise<Buffer> {
  const rate = 16_000;
  const samples = Math.round(rate * seconds);
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28); // byte rate
  wav.writeUInt16LE(2, 32); // block align
  wav.writeUInt16LE(16, 34); // bits per sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) wav.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 12_000), 44 + i * 2);
  return wav;
}

/** Whether ffmpeg and ffprobe are on PATH: tests of audio and video conversion need them (CI installs them). */
export const hasFfmpeg = await Promise.all([run('ffmpeg', ['-version']), run('ffprobe', ['-version'])]).then(
  () => true,
  () => false,
);

/** `seconds` of a test pattern with a tone, 320×240, as WebM (VP8/Vorbis: it must be converted). */
export const webmVideo = (seconds = 1) =>
  ffmpegFile(
    [
      '-f',
      'lavfi',
      '-i',
      `testsrc=size=321x241:rate=15:duration=${seconds}`,
      '-f',
      'lavfi',
      '-i',
      `sine=duration=${seconds}`,
      '-c:v',
      'libvpx',
      '-c:a',
      'libvorbis',
      '-shortest',
    ],
    'webm',
  );

/** The codecs and container of a media file, as ffprobe reports them. */
export async function probe(file: Buffer): Promise<{ format: string; codecs: string[]; tags: Record<string, string> }> {
  const dir = await mkdtemp(join(tmpdir(), 'media-probe-'));
  try {
    const path = join(dir, 'file');
    await import('node:fs/promises').then((fs) => fs.writeFile(path, file));
    const { stdout } = await run('ffprobe', ['-v', 'error', '-show_format', '-show_streams', '-of', 'json', path]);
    const info = JSON.parse(stdout) as { format: { format_name: string; tags?: Record<string, string> }; streams: { codec_name: string }[] };
    return { format: info.format.format_name, codecs: info.streams.map((s) => s.codec_name), tags: info.format.tags ?? {} };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Whether an EXIF block points at a GPS IFD (tag 0x8825, either byte order). */
export const hasGpsIfd = (exif: Buffer | undefined) =>
  exif !== undefined && (exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88])));
