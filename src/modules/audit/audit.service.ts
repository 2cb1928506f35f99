/**
 * The audit trail (issue 54): who did what, to what, when, from where. Owning services call `record` in the
 * transaction of the change they audit (one entry per action); the database chains and guards the entries
 * (migration 0033). Readers with `audit.view` list them and export them as CSV; `verify` finds edited and
 * removed entries; `prune` applies each entity's retention (default 730 days) for the daily `audit.prune` job.
 * Errors: 400 `validation_failed` (a range whose `to` is not after `from`).
 */
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { badRequest } from '../../platform/errors.js';
import { currentRequest } from '../../platform/http/request-context.js';
import { toPage, type Page } from '../../platform/http/pagination.js';
import { transaction } from '../../platform/transactions/transaction.js';
import * as repo from './audit.repository.js';
import type { AuditEntryResponse, AuditFilterQuery, AuditListQuery } from './audit.schemas.js';

/** Who acted: a member (user and employee), an API key, a workflow, or the system (jobs, the CLI). */
export type AuditActor =
  | { kind: 'user'; userId: number | null; employeeId: number | null }
  | { kind: 'api_key'; apiKeyId: number; userId?: number | null }
  | { kind: 'workflow'; workflowId: number }
  | { kind: 'system' };

/** One audited action. `before`/`after` are the changed fields' values (secrets are redacted here); `details` facts of an action that changes nothing (an export's format and count). */
interface AuditRecord {
  /** The entity whose chain gets the entry; null outside any entity (a failed login of an unknown address). */
  entityId: number | null;
  actor: AuditActor;
  /** Dotted, `<subject>.<verb>`: docs/api/audit.md lists them. */
  action: string;
  target?: { type: string; id: number | string } | undefined;
  before?: Record<string, unknown> | undefined;
  after?: Record<string, unknown> | undefined;
  details?: Record<string, unknown> | undefined;
}

/** Days an entity keeps its audit trail unless it set its own. */
const DEFAULT_AUDIT_RETENTION_DAYS = 730;

/** Field names whose values never enter the trail. */
const SECRET = /pass(word)?|secret|token|api_?key|credential|signature|private/i;

/** The actor of a request: an API key (with the user who created it) when one authenticated it, else the member. */
export function actorOf(p: Pick<Principal, 'userId' | 'employeeId'> & Partial<Pick<Principal, 'apiKeyId'>>): AuditActor {
  if (p.apiKeyId != null) return { kind: 'api_key', apiKeyId: p.apiKeyId, userId: p.userId };
  return { kind: 'user', userId: p.userId, employeeId: p.employeeId };
}

function redact(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > 4) return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET.test(k) ? '[redacted]' : redact(v, depth + 1)]));
}

/**
 * `{ before, after }` limited to the fields whose values differ (compared as JSON), secrets redacted; undefined
 * when nothing differs and neither side was given alone.
 */
function diffOf(before: Record<string, unknown> | undefined, after: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (before === undefined && after === undefined) return undefined;
  if (before === undefined || after === undefined) return { before: redact(before) ?? null, after: redact(after) ?? null };
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const b: Record<string, unknown> = {};
  const a: Record<string, unknown> = {};
  for (const k of keys) {
    if (JSON.stringify(before[k]) === JSON.stringify(after[k])) continue;
    b[k] = before[k] ?? null;
    a[k] = after[k] ?? null;
  }
  return Object.keys(a).length === 0 ? undefined : { before: redact(b), after: redact(a) };
}

function toValues(r: AuditRecord): repo.NewAuditEntry {
  const request = currentRequest();
  const actor = r.actor;
  const diff = diffOf(r.before, r.after);
  const details = r.details === undefined ? undefined : redact(r.details);
  return {
    chainKey: r.entityId ?? 0,
    entityId: r.entityId,
    actorKind: actor.kind,
    actorUserId: actor.kind === 'user' ? actor.userId : actor.kind === 'api_key' ? (actor.userId ?? null) : null,
    actorEmployeeId: actor.kind === 'user' ? actor.employeeId : null,
    actorRef: actor.kind === 'api_key' ? actor.apiKeyId : actor.kind === 'workflow' ? actor.workflowId : null,
    action: r.action,
    targetType: r.target?.type ?? null,
    targetId: r.target === undefined ? null : String(r.target.id),
    diff: diff === undefined && details === undefined ? null : { ...(diff ?? {}), ...(details === undefined ? {} : { details }) },
    clientAddress: request?.clientAddress ?? null,
    requestId: request?.requestId ?? null,
  };
}

/** What other modules call: one entry per audited action. */
export interface AuditTrail {
  /**
   * Appends one entry in `db`: the transaction of the audited change (so the entry commits or rolls back with
   * it), or the database for an action that writes nothing else (a login, an export). The request id and client
   * address come from the request being handled (none in jobs).
   */
  record(db: Db, entry: AuditRecord): Promise<void>;
}

export interface AuditService extends AuditTrail {
  list(p: Principal, query: AuditListQuery): Promise<Page<AuditEntryResponse>>;
  /** The matching entries as CSV lines (header first), newest first, at most `MAX_CSV_ROWS`. */
  csv(p: Principal, query: AuditFilterQuery): AsyncGenerator<string>;
  /** The breaks of every chain, or of one entity's (`null`: all). */
  verify(entityId: number | null): Promise<{ checked: number; breaks: repo.ChainBreak[] }>;
  /** Applies every chain's retention at `now`; how many entries went. */
  prune(now: Date): Promise<number>;
  setRetention(p: Principal, days: number): Promise<{ days: number }>;
  retention(p: Principal): Promise<{ days: number }>;
}

/** Rows of one CSV export. */
const MAX_CSV_ROWS = 100_000;

function toResponse(r: repo.AuditEntryRow): AuditEntryResponse {
  return {
    id: r.id,
    seq: r.seq,
    occurred_at: r.occurredAt.toISOString(),
    actor: { kind: r.actorKind as AuditActor['kind'], user_id: r.actorUserId, employee_id: r.actorEmployeeId, ref: r.actorRef },
    action: r.action,
    target: r.targetType === null ? null : { type: r.targetType, id: r.targetId ?? '' },
    diff: (r.diff as Record<string, unknown> | null) ?? null,
    client_address: r.clientAddress,
    request_id: r.requestId,
    hash: r.hash,
  };
}

function filterOf(p: Principal, q: AuditFilterQuery): repo.EntryFilter {
  const from = q.from === undefined ? undefined : new Date(q.from);
  const to = q.to === undefined ? undefined : new Date(q.to);
  if (from && to && to <= from) throw badRequest('validation_failed', '`to` must be after `from`');
  return {
    entityId: p.entityId,
    actorKind: q.actor_kind,
    actorUserId: q.actor_user_id,
    actorEmployeeId: q.actor_employee_id,
    action: q.action,
    targetType: q.target_type,
    targetId: q.target_id,
    from,
    to,
  };
}

const csvField = (v: string | number | null) => (v === null ? '' : typeof v === 'number' ? String(v) : /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const CSV_HEADER = [
  'id',
  'seq',
  'occurred_at',
  'actor_kind',
  'actor_user_id',
  'actor_employee_id',
  'actor_ref',
  'action',
  'target_type',
  'target_id',
  'diff',
  'client_address',
  'request_id',
  'hash',
];

export function createAuditService(deps: { db: Db }): AuditService {
  const { db } = deps;
  return {
    async record(at, entry) {
      await repo.appendEntry(at, toValues(entry));
    },
    async list(p, query) {
      const page = { limit: query.limit, offset: query.offset };
      const { rows, total } = await repo.listEntries(db, filterOf(p, query), page);
      return toPage(page, rows, total, toResponse);
    },
    async *csv(p, query) {
      const filter = filterOf(p, query);
      yield CSV_HEADER.join(',') + '\r\n';
      for await (const rows of repo.entriesInBatches(db, filter, 1000, MAX_CSV_ROWS)) {
        yield rows
          .map(
            (r) =>
              [
                r.id,
                r.seq,
                r.occurredAt.toISOString(),
                r.actorKind,
                r.actorUserId,
                r.actorEmployeeId,
                r.actorRef,
                r.action,
                r.targetType,
                r.targetId,
                r.diff === null ? null : JSON.stringify(r.diff),
                r.clientAddress,
                r.requestId,
                r.hash,
              ]
                .map(csvField)
                .join(',') + '\r\n',
          )
          .join('');
      }
    },
    verify: (entityId) => repo.findChainBreaks(db, entityId === null ? null : entityId),
    async prune(now) {
      let removed = 0;
      for (const { chainKey, days } of await repo.chainRetentions(db, DEFAULT_AUDIT_RETENTION_DAYS)) {
        removed += await repo.prune(db, chainKey, new Date(now.getTime() - days * 86_400_000));
      }
      return removed;
    },
    async retention(p) {
      return { days: (await repo.retentionOf(db, p.entityId)) ?? DEFAULT_AUDIT_RETENTION_DAYS };
    },
    async setRetention(p, days) {
      const before = (await repo.retentionOf(db, p.entityId)) ?? DEFAULT_AUDIT_RETENTION_DAYS;
      await transaction(db, async ({ tx }) => {
        await repo.setRetention(tx, p.entityId, days);
        await repo.appendEntry(
          tx,
          toValues({ entityId: p.entityId, actor: actorOf(p), action: 'audit.retention.update', before: { days: before }, after: { days } }),
        );
      });
      return { days };
    },
  };
}
