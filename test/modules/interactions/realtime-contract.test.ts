import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TSchema } from 'typebox';
import { CLIENT_EVENTS, serverEventRegistry } from '../../../src/platform/realtime/events.js';
// Registers every module's server events, as the app does.
import '../../../src/app.js';
import { CHANNEL_TYPE_CODES } from '../../../src/modules/interactions/model/interactions.enums.js';

const apiMd = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
const interactionsMd = readFileSync(new URL('../../../docs/api/interactions.md', import.meta.url), 'utf8');

interface DocumentedEvent {
  name: string;
  direction: string;
  payload: string;
}

/** Rows of docs/api.md's realtime table: `| \`event\` | direction | payload |`. */
function realtimeTable(): DocumentedEvent[] {
  const section = apiMd.slice(apiMd.indexOf('## Realtime'), apiMd.indexOf('\n## ', apiMd.indexOf('## Realtime') + 1));
  return [...section.matchAll(/^\| `([a-z_.]+)` \| ([^|]+) \| (.+) \|$/gm)].map((m) => ({
    name: m[1]!,
    direction: m[2]!.trim(),
    payload: m[3]!.replaceAll('`', '').trim(),
  }));
}

/** Top-level fields of the documented payload `{ a, b?, c: "x"|"y" }`, with the quoted literals each lists. */
function documentedFields(payload: string): Map<string, string[]> {
  const open = payload.indexOf('{');
  let depth = 0;
  let end = open;
  for (let i = open; i < payload.length; i++) {
    if (payload[i] === '{') depth++;
    if (payload[i] === '}' && --depth === 0) {
      end = i;
      break;
    }
  }
  const parts: string[] = [];
  let current = '';
  depth = 0;
  for (const ch of payload.slice(open + 1, end)) {
    if (ch === '{' || ch === '[') depth++;
    if (ch === '}' || ch === ']') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return new Map(parts.map((p) => [/^\s*(\w+)/.exec(p)![1]!, [...p.matchAll(/"([a-z_]+)"/g)].map((m) => m[1]!)]));
}

const propertiesOf = (schema: TSchema) => (schema as unknown as { properties: Record<string, { enum?: string[]; anyOf?: { enum?: string[] }[] }> }).properties;
const enumOf = (p: { enum?: string[]; anyOf?: { enum?: string[] }[] }) => p.enum ?? p.anyOf?.find((s) => s.enum)?.enum;

describe('the realtime contract and its documentation', () => {
  const rows = realtimeTable();
  const server = serverEventRegistry();

  it('documents every server event the gateway can emit, and no event it cannot', () => {
    const documented = rows.filter((r) => r.direction === 'server → client').map((r) => r.name);
    expect(documented.sort()).toEqual([...server.keys()].sort());
    expect(server.size).toBeGreaterThanOrEqual(8);
  });

  it('documents every client event the gateway listens to, and no other', () => {
    const documented = rows.filter((r) => r.direction === 'client → server').map((r) => r.name);
    expect(documented.sort()).toEqual(Object.keys(CLIENT_EVENTS).sort());
  });

  it("names each payload's top-level fields and enumerated values as its schema declares them", () => {
    for (const row of rows) {
      const schema = server.get(row.name) ?? CLIENT_EVENTS[row.name as keyof typeof CLIENT_EVENTS];
      if (!row.payload.startsWith('{')) continue; // "same" as the row above
      const fields = documentedFields(row.payload);
      const properties = propertiesOf(schema);
      expect([...fields.keys()].sort(), row.name).toEqual(Object.keys(properties).sort());
      for (const [field, literals] of fields) {
        const values = enumOf(properties[field]!);
        if (values !== undefined) expect(literals.sort(), `${row.name} ${field}`).toEqual([...values].sort());
      }
    }
  });

  it('names in docs/api/interactions.md only realtime events that exist', () => {
    const named = [...interactionsMd.matchAll(/`(interaction\.[a-z]+\.[a-z_]+)`/g)].map((m) => m[1]!);
    for (const name of named) expect(server.has(name) || name in CLIENT_EVENTS, name).toBe(true);
  });

  it('lists in docs/api/interactions.md exactly the channel type codes the module accepts', () => {
    const line = /Channel type codes:(.+?)\.\n/s.exec(interactionsMd)![1]!;
    expect([...line.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).sort()).toEqual([...CHANNEL_TYPE_CODES].sort());
  });
});
