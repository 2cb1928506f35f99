/**
 * The conversions of SPEC "Media" step 5. Images with `sharp`: auto-oriented, fitted inside `maxEdge`,
 * re-encoded as JPEG (mozjpeg) with metadata (EXIF, GPS, XMP) dropped, which is sharp's default output;
 * stickers as 512×512 WebP. Audio and video with Debian's `ffmpeg`: voice notes to ogg/opus, other audio
 * to m4a/aac, video to mp4 H.264/AAC with faststart (the formats WhatsApp plays). Input streams in;
 * output goes to a file under `dir` so its size is known before it is stored.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';

export interface Converted {
  path: string;
  contentType: string;
  extension: string;
}

/** A conversion the input itself makes impossible; retrying cannot help. */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

// Each image is processed once: libvips' operation cache would only hold decoded pixels of past uploads.
sharp.cache(false);

/** Larger inputs are refused: a small file may decode to an enormous bitmap. */
const MAX_INPUT_PIXELS = 50_000_000;

/** Optimizes an image (`sticker`: WhatsApp's 512×512 WebP) from `input` into `dir`. */
export async function optimizeImage(input: Readable, dir: string, options: { maxEdge: number; sticker: boolean }): Promise<Converted> {
  const image = sharp({ failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS, autoOrient: true });
  const out = options.sticker
    ? { path: join(dir, 'optimized.webp'), contentType: 'image/webp', extension: 'webp' }
    : { path: join(dir, 'optimized.jpg'), contentType: 'image/jpeg', extension: 'jpg' };
  const transformer = options.sticker
    ? image.resize(512, 512, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } }).webp({ quality: 80 })
    : image
        .resize(options.maxEdge, options.maxEdge, { fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: 80, mozjpeg: true });
  try {
    await pipeline(input, transformer, createWriteStream(out.path));
  } catch (err) {
    if (isInputError(err)) throw new ConversionError(`image could not be decoded: ${(err as Error).message}`);
    throw err;
  }
  return out;
}

const isInputError = (err: unknown) => err instanceof Error && /unsupported image format|Input|VipsJpeg|corrupt|pixel limit|premature end/i.test(err.message);

const availability = new Map<string, Promise<boolean>>();

/** Whether `ffmpegPath` runs (`ffmpeg -version`), checked once per path and process. */
export function ffmpegAvailable(ffmpegPath: string): Promise<boolean> {
  let known = availability.get(ffmpegPath);
  if (!known) {
    known = new Promise<boolean>((resolve) => {
      const child = spawn(ffmpegPath, ['-hide_banner', '-version'], { stdio: 'ignore' });
      child.on('error', () => resolve(false));
      child.on('exit', (code) => resolve(code === 0));
    });
    availability.set(ffmpegPath, known);
  }
  return known;
}

/** Converts the audio file `inputPath` into `dir`: ogg/opus for a voice note, m4a/aac otherwise. */
export async function transcodeAudio(ffmpegPath: string, inputPath: string, dir: string, voiceNote: boolean): Promise<Converted> {
  if (voiceNote) {
    const path = join(dir, 'optimized.ogg');
    await runFfmpeg(ffmpegPath, [
      '-i',
      inputPath,
      '-vn',
      '-map_metadata',
      '-1',
      '-c:a',
      'libopus',
      '-b:a',
      '32k',
      '-ac',
      '1',
      '-ar',
      '48000',
      '-application',
      'voip',
      '-f',
      'ogg',
      path,
    ]);
    return { path, contentType: 'audio/ogg', extension: 'ogg' };
  }
  const path = join(dir, 'optimized.m4a');
  await runFfmpeg(ffmpegPath, ['-i', inputPath, '-vn', '-map_metadata', '-1', '-c:a', 'aac', '-b:a', '128k', '-movflags', '+faststart', '-f', 'ipod', path]);
  return { path, contentType: 'audio/mp4', extension: 'm4a' };
}

/** Converts the video file `inputPath` into `dir`: mp4, H.264 (yuv420p, even dimensions, ≤ 1280 wide) and AAC, moov atom first. */
export async function transcodeVideo(ffmpegPath: string, inputPath: string, dir: string): Promise<Converted> {
  const path = join(dir, 'optimized.mp4');
  await runFfmpeg(ffmpegPath, [
    '-i',
    inputPath,
    '-map_metadata',
    '-1',
    '-vf',
    'scale=trunc(min(1280\\,iw)/2)*2:-2',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '23',
    '-profile:v',
    'main',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-b:a',
    '128k',
    '-ac',
    '2',
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    path,
  ]);
  return { path, contentType: 'video/mp4', extension: 'mp4' };
}

/** Runs ffmpeg (at most `timeoutMs`); a non-zero exit is a `ConversionError` carrying ffmpeg's last words. */
function runFfmpeg(ffmpegPath: string, args: string[], timeoutMs = 10 * 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: timeoutMs,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new ConversionError(`ffmpeg failed (${signal ?? `exit ${code}`}): ${stderr.trim().split('\n').slice(-3).join(' ')}`));
    });
  });
}
