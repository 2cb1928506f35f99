/** Meta's published webhook examples (test/fixtures/platform-payloads, see SOURCES.md) and builders of platform-shaped payloads. */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Meta's examples are read field by field in tests
export type Payload = Record<string, any>;

const DIR = join(import.meta.dirname, '../fixtures/platform-payloads');

export function whatsAppExamples(): { name: string; body: Payload }[] {
  return readdirSync(join(DIR, 'whatsapp-inbound'))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ name: f.replace(/\.json$/, ''), body: JSON.parse(readFileSync(join(DIR, 'whatsapp-inbound', f), 'utf8')) }));
}

export function whatsAppExample(name: string): Payload {
  return JSON.parse(readFileSync(join(DIR, 'whatsapp-inbound', `${name}.json`), 'utf8')) as Payload;
}

/** A fixture by its path under test/fixtures/platform-payloads (e.g. `meta-messaging/messenger_read_without_timestamp.json`). */
export function fixture(path: string): Payload {
  return JSON.parse(readFileSync(join(DIR, path), 'utf8')) as Payload;
}

export const DEMO_PHONE_NUMBER_ID = '106540352242922';
