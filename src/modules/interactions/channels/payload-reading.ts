/** Small structural readers shared by the platform normalizers; each throws `MalformedPayload` with a JSON pointer. */
import { MalformedPayload } from '../model/index.js';

export function asRecord(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MalformedPayload(`${path || '/'} must be an object`, path);
  return value as Record<string, unknown>;
}

export function asArray(value: unknown, path: string, opts: { nonEmpty?: boolean } = {}): unknown[] {
  if (!Array.isArray(value)) throw new MalformedPayload(`${path} must be an array`, path);
  if (opts.nonEmpty === true && value.length === 0) throw new MalformedPayload(`${path} must not be empty`, path);
  return value;
}

export function reqString(value: unknown, path: string): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value.trim() === '') throw new MalformedPayload(`${path} must be a non-empty string`, path);
  return value;
}

export function optString(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}
