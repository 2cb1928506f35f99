/**
 * The rules of an import row (issue 52), pure: cells to field values (phones to E.164 with the import's default
 * country, e-mails lower-cased, ids as integers), and the decision of a batch of rows (create, update, skip or
 * error) from what the database holds and what earlier rows of the run claimed. A dry run and a real run decide
 * with this same code, so their counts agree: a dry run keeps every claim of the run, a real run keeps the
 * claims of its current batch only (earlier batches are in the database) and ends a batch before a row that hits
 * one, so that row is decided against the committed database.
 */
import type { CountryCode } from 'libphonenumber-js';
import { normalizeChannelIdentifier, normalizePhone, type ImportedChannel } from '../records/index.js';
import type { ImportField, MatchKey } from './import.fields.js';
import type { ImportKind } from './import.schemas.js';

export interface SourceRow {
  /** Row of the file, the header being row 1. */
  rowNo: number;
  cells: string[];
}

/** Where each mapped field is: its column index and header text. */
export type Columns = Partial<Record<ImportField, { index: number; header: string }>>;

export interface LeadFields {
  name: string;
  groupId: number;
  erpId?: string;
  email?: string;
  phone?: string;
  taxId?: string;
  contact?: { name: string; channels: ImportedChannel[] };
}

export interface ContactFields {
  name: string;
  lead: { by: 'erp_id' | 'id'; value: string };
  channels: ImportedChannel[];
}

type Parsed<T> = { ok: true; value: T } | { ok: false; column: string | null; reason: string };

class CellError extends Error {
  constructor(
    readonly column: string,
    reason: string,
  ) {
    super(reason);
  }
}

function cellReader(cells: string[], columns: Columns, country: CountryCode) {
  const text = (f: ImportField): string | undefined => {
    const c = columns[f];
    const v = c ? (cells[c.index] ?? '').trim() : '';
    return v === '' ? undefined : v;
  };
  const header = (f: ImportField) => columns[f]?.header ?? f;
  return {
    text,
    required(f: ImportField): string {
      const v = text(f);
      if (v === undefined) throw new CellError(header(f), 'is required');
      return v;
    },
    id(f: ImportField): number | undefined {
      const v = text(f);
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 2_147_483_647) throw new CellError(header(f), `"${v}" is not an id`);
      return n;
    },
    phone(f: ImportField): string | undefined {
      const v = text(f);
      if (v === undefined) return undefined;
      const e164 = normalizePhone(v, country);
      if (!e164) throw new CellError(header(f), `"${v}" is not a phone number`);
      return e164;
    },
    email(f: ImportField): string | undefined {
      const v = text(f);
      if (v === undefined) return undefined;
      const email = normalizeChannelIdentifier('email', v);
      if (!email) throw new CellError(header(f), `"${v}" is not an e-mail address`);
      return email;
    },
  };
}

function parsed<T>(read: () => T): Parsed<T> {
  try {
    return { ok: true, value: read() };
  } catch (err) {
    if (err instanceof CellError) return { ok: false, column: err.column, reason: err.message };
    throw err;
  }
}

export function parseLeadRow(cells: string[], columns: Columns, country: CountryCode): Parsed<LeadFields> {
  return parsed(() => {
    const r = cellReader(cells, columns, country);
    const out: LeadFields = { name: r.required('name'), groupId: r.id('group_id') ?? Number(r.required('group_id')) };
    const erpId = r.text('erp_id');
    if (erpId !== undefined) out.erpId = erpId;
    const email = r.email('email');
    if (email !== undefined) out.email = email;
    const phone = r.phone('phone');
    if (phone !== undefined) out.phone = phone;
    const taxId = r.text('tax_id');
    if (taxId !== undefined) out.taxId = taxId;
    const contactPhone = r.phone('contact_phone');
    const contactEmail = r.email('contact_email');
    const contactName = r.text('contact_name');
    if (contactName !== undefined || contactPhone !== undefined || contactEmail !== undefined) {
      const channels: ImportedChannel[] = [];
      if (contactPhone !== undefined) channels.push({ type: 'phone', identifier: contactPhone });
      if (contactEmail !== undefined) channels.push({ type: 'email', identifier: contactEmail });
      out.contact = { name: contactName ?? out.name, channels };
    }
    return out;
  });
}

export function parseContactRow(cells: string[], columns: Columns, country: CountryCode): Parsed<ContactFields> {
  return parsed(() => {
    const r = cellReader(cells, columns, country);
    const name = r.required('name');
    const erp = r.text('lead_erp_id');
    const id = r.id('lead_id');
    if (erp === undefined && id === undefined) throw new CellError(columns.lead_erp_id?.header ?? columns.lead_id?.header ?? 'lead_erp_id', 'names no lead');
    const channels: ImportedChannel[] = [];
    const phone = r.phone('phone');
    if (phone !== undefined) channels.push({ type: 'phone', identifier: phone });
    const whatsapp = r.phone('whatsapp');
    if (whatsapp !== undefined) channels.push({ type: 'whatsapp', identifier: whatsapp });
    const email = r.email('email');
    if (email !== undefined) channels.push({ type: 'email', identifier: email });
    return { name, lead: erp !== undefined ? { by: 'erp_id', value: erp } : { by: 'id', value: String(id) }, channels };
  });
}

/** What the database holds for a batch's values, looked up before deciding. */
export interface BatchFacts {
  /** Groups of the entity among the rows' group ids. */
  groups: Set<number>;
  /** Lead imports: match value → existing lead ref (`L<id>`); `erp_id` → ref. */
  leadMatches: Map<string, string>;
  erpHolders: Map<string, string>;
  /** Contact imports: `erp_id`/`id` of the rows' leads → lead id and group. */
  leadsByErp: Map<string, { id: number; groupId: number }>;
  leadsById: Map<string, { id: number; groupId: number }>;
  /** `type:identifier` → holder contact ref (`C<id>`). */
  channelHolders: Map<string, string>;
}

export type Decision =
  | { rowNo: number; outcome: 'create'; lead?: LeadFields; contact?: ContactFields & { leadId: number; groupId: number } }
  | { rowNo: number; outcome: 'update'; targetId: number | null; lead?: LeadFields; contact?: ContactFields }
  | { rowNo: number; outcome: 'skip' }
  | { rowNo: number; outcome: 'error'; column: string | null; reason: string };

export interface DecideOptions {
  kind: ImportKind;
  matchBy: MatchKey;
  onMatch: 'update' | 'skip';
  /** Dry run: claims span the run and a hit counts as a match; real run: a hit ends the batch. */
  dryRun: boolean;
  columns: Columns;
}

const refId = (ref: string): number | null => (ref.startsWith('L') || ref.startsWith('C') ? Number(ref.slice(1)) : null);

/**
 * Decides rows in order until a real run's row hits a claim of its batch; returns the decisions (as many as
 * rows decided) and records the rows' claims in `claims`.
 */
export function decideBatch(
  rows: { rowNo: number; parsed: Parsed<LeadFields> | Parsed<ContactFields> }[],
  facts: BatchFacts,
  claims: Map<string, string>,
  o: DecideOptions,
): Decision[] {
  const out: Decision[] = [];
  const header = (f: ImportField) => o.columns[f]?.header ?? f;
  for (const { rowNo, parsed: p } of rows) {
    if (!p.ok) {
      out.push({ rowNo, outcome: 'error', column: p.column, reason: p.reason });
      continue;
    }
    const keys: string[] = [];
    let decision: Decision;
    if (o.kind === 'leads') {
      const v = p.value as LeadFields;
      const matchValue = { erp_id: v.erpId, email: v.email, phone: v.phone, tax_id: v.taxId, whatsapp: undefined }[o.matchBy];
      if (matchValue !== undefined) keys.push(`m:${matchValue}`);
      if (v.erpId !== undefined) keys.push(`e:${v.erpId}`);
      for (const c of v.contact?.channels ?? []) keys.push(`c:${c.type}:${c.identifier}`);
      if (!o.dryRun && keys.some((k) => claims.has(k))) break;
      const look = (k: string, db: Map<string, string>, value: string) => claims.get(k) ?? db.get(value);
      decision = decideLead(rowNo, v, matchValue === undefined ? undefined : look(`m:${matchValue}`, facts.leadMatches, matchValue), o.onMatch);
      if (decision.outcome !== 'error' && !facts.groups.has(v.groupId)) {
        decision = { rowNo, outcome: 'error', column: header('group_id'), reason: `group ${v.groupId} not found` };
      }
      const target =
        decision.outcome === 'create'
          ? `N${rowNo}`
          : decision.outcome === 'update'
            ? decision.targetId !== null
              ? `L${decision.targetId}`
              : matchedRef(claims, matchValue)
            : undefined;
      if (decision.outcome === 'create' || decision.outcome === 'update') {
        const erpHolder = v.erpId !== undefined ? look(`e:${v.erpId}`, facts.erpHolders, v.erpId) : undefined;
        if (erpHolder !== undefined && erpHolder !== target) {
          decision = { rowNo, outcome: 'error', column: header('erp_id'), reason: `erp_id ${v.erpId} already belongs to another lead` };
        } else if (decision.outcome === 'create') {
          const taken = v.contact?.channels.find((c) => look(`c:${c.type}:${c.identifier}`, facts.channelHolders, `${c.type}:${c.identifier}`) !== undefined);
          if (taken)
            decision = {
              rowNo,
              outcome: 'error',
              column: header(taken.type === 'phone' ? 'contact_phone' : 'contact_email'),
              reason: `the ${taken.type} ${taken.identifier} already belongs to another contact`,
            };
        }
      }
      if (decision.outcome === 'create' || decision.outcome === 'update') {
        if (matchValue !== undefined) claims.set(`m:${matchValue}`, target!);
        if (v.erpId !== undefined) claims.set(`e:${v.erpId}`, target!);
        if (decision.outcome === 'create') for (const c of v.contact?.channels ?? []) claims.set(`c:${c.type}:${c.identifier}`, `n${rowNo}`);
      }
    } else {
      const v = p.value as ContactFields;
      const own = v.channels.find((c) => c.type === o.matchBy);
      for (const c of v.channels) keys.push(`c:${c.type}:${c.identifier}`);
      if (!o.dryRun && keys.some((k) => claims.has(k))) break;
      const holderOf = (c: ImportedChannel) => claims.get(`c:${c.type}:${c.identifier}`) ?? facts.channelHolders.get(`${c.type}:${c.identifier}`);
      const parent = (v.lead.by === 'erp_id' ? facts.leadsByErp : facts.leadsById).get(v.lead.value);
      const matched = own ? holderOf(own) : undefined;
      if (!parent) {
        decision = { rowNo, outcome: 'error', column: header(v.lead.by === 'erp_id' ? 'lead_erp_id' : 'lead_id'), reason: `lead ${v.lead.value} not found` };
      } else if (matched !== undefined) {
        decision = o.onMatch === 'skip' ? { rowNo, outcome: 'skip' } : { rowNo, outcome: 'update', targetId: refId(matched), contact: v };
      } else {
        decision = { rowNo, outcome: 'create', contact: { ...v, leadId: parent.id, groupId: parent.groupId } };
      }
      const target = decision.outcome === 'create' ? `n${rowNo}` : matched;
      if (decision.outcome === 'create' || decision.outcome === 'update') {
        const taken = v.channels.find((c) => {
          const h = holderOf(c);
          return h !== undefined && h !== target;
        });
        if (taken) {
          const field: ImportField = taken.type === 'phone' ? 'phone' : taken.type === 'whatsapp' ? 'whatsapp' : 'email';
          decision = { rowNo, outcome: 'error', column: header(field), reason: `the ${taken.type} ${taken.identifier} already belongs to another contact` };
        } else for (const c of v.channels) claims.set(`c:${c.type}:${c.identifier}`, target!);
      }
    }
    out.push(decision);
  }
  return out;
}

function matchedRef(claims: Map<string, string>, matchValue: string | undefined): string | undefined {
  return matchValue === undefined ? undefined : claims.get(`m:${matchValue}`);
}

function decideLead(rowNo: number, v: LeadFields, matched: string | undefined, onMatch: 'update' | 'skip'): Decision {
  if (matched === undefined) return { rowNo, outcome: 'create', lead: v };
  if (onMatch === 'skip') return { rowNo, outcome: 'skip' };
  return { rowNo, outcome: 'update', targetId: refId(matched), lead: v };
}
