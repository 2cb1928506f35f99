/**
 * API keys for integrators (issue 53). A key belongs to one entity and acts as its creator's employee-like
 * principal (`api_key:<id>`), with the permission codes it was given (closed under implications) that its
 * creator still holds; it can never be given a code its creator lacks. The secret (`crm_` + 256 random bits,
 * base64url) is shown once and kept as its SHA-256 (a high-entropy secret needs no slow hash). Keys expire
 * at most a year ahead (default 90 days); only an entity whose policy allows it may have keys that never
 * expire. Revocation is immediate on every instance: authentication reads the key on every request.
 * Administering keys is for people only (`api_keys.manage`, routes marked `peopleOnly`).
 * Errors: 404 `not_found`, 400 `unknown_permission`, 403 `api_key_exceeds_creator`, 400 `invalid_api_key_expiry`,
 * 422 `api_key_expiry_required`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { ApiKeyLoader, Principal } from '../../platform/auth/authenticator.js';
import { badRequest, forbidden, notFound, unprocessable } from '../../platform/errors.js';
import { isPermissionCode, withImplications } from '../../platform/permissions/catalog.js';
import { actorOf, type AuditTrail } from '../audit/index.js';
import { transaction } from '../../platform/transactions/transaction.js';
import * as repo from './api-key.repository.js';
import type { ApiKeyPolicyBody, ApiKeyResponse, CreateApiKeyBody, CreatedApiKeyResponse } from './api-key.schemas.js';

/** Longest life of a key that expires. */
const MAX_API_KEY_LIFETIME_MS = 366 * 24 * 3600 * 1000;
const DEFAULT_API_KEY_LIFETIME_MS = 90 * 24 * 3600 * 1000;
/** `last_used_at` is written at most this often per key (per instance, and by the statement itself). */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;
const PREFIX_LENGTH = 12;

export interface ApiKeys {
  list(p: Principal): Promise<{ data: ApiKeyResponse[] }>;
  get(p: Principal, id: number): Promise<ApiKeyResponse>;
  /** Creates a key; the answer carries the secret, never shown again. */
  create(p: Principal, body: CreateApiKeyBody): Promise<CreatedApiKeyResponse>;
  /** Revokes a key (idempotent); its next request is refused on every instance. */
  revoke(p: Principal, id: number): Promise<ApiKeyResponse>;
  policy(p: Principal): Promise<ApiKeyPolicyBody>;
  setPolicy(p: Principal, body: ApiKeyPolicyBody): Promise<ApiKeyPolicyBody>;
  /** For the authenticator (platform/auth): reads keys by secret. */
  loader: ApiKeyLoader;
}

/** The SHA-256 (hex) a secret is stored and looked up as. */
function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function statusOf(r: repo.ApiKeyRow, now = Date.now()): ApiKeyResponse['status'] {
  if (r.revokedAt !== null) return 'revoked';
  if (r.expiresAt !== null && r.expiresAt.getTime() <= now) return 'expired';
  return 'active';
}

function toResponse(r: repo.ApiKeyRow): ApiKeyResponse {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    permissions: [...r.codes].sort(),
    status: statusOf(r),
    expires_at: r.expiresAt?.toISOString() ?? null,
    last_used_at: r.lastUsedAt?.toISOString() ?? null,
    revoked_at: r.revokedAt?.toISOString() ?? null,
    created_by_user_id: r.createdByUserId,
    created_at: r.createdAt.toISOString(),
  };
}

/** `audit`: creating and revoking keys and changing the policy are audited (issue 54); the secret never enters the trail. */
export function createApiKeys(deps: { db: Db; log: Pick<FastifyBaseLogger, 'warn'>; audit: AuditTrail }): ApiKeys {
  const { db } = deps;
  const lastWritten = new Map<number, number>();

  async function expiryOf(p: Principal, requested: string | null | undefined): Promise<Date | null> {
    const now = Date.now();
    if (requested === undefined) return new Date(now + DEFAULT_API_KEY_LIFETIME_MS);
    if (requested === null) {
      if (!(await repo.findPolicy(db, p.entityId)).allowNonExpiring)
        throw unprocessable('api_key_expiry_required', "The entity's policy requires every API key to expire (at most one year ahead)");
      return null;
    }
    const at = new Date(requested);
    if (at.getTime() <= now) throw badRequest('invalid_api_key_expiry', 'expires_at must be in the future');
    if (at.getTime() > now + MAX_API_KEY_LIFETIME_MS) throw badRequest('invalid_api_key_expiry', 'expires_at must be at most one year ahead');
    return at;
  }

  return {
    async list(p) {
      return { data: (await repo.listApiKeys(db, p.entityId)).map(toResponse) };
    },
    async get(p, id) {
      const row = await repo.findApiKey(db, p.entityId, id);
      if (!row) throw notFound('api key', id);
      return toResponse(row);
    },
    async create(p, body) {
      const unknown = body.permissions.filter((c) => !isPermissionCode(c));
      if (unknown.length > 0) throw badRequest('unknown_permission', `Not permission codes of the catalogue: ${unknown.join(', ')}`, { permissions: unknown });
      const codes = [...withImplications(body.permissions)].sort();
      const beyond = codes.filter((c) => !p.permissions.has(c));
      if (beyond.length > 0)
        throw forbidden('api_key_exceeds_creator', `A key cannot hold codes its creator lacks: ${beyond.join(', ')}`, { permissions: beyond });
      const expiresAt = await expiryOf(p, body.expires_at);
      const secret = `crm_${randomBytes(32).toString('base64url')}`;
      const row = await transaction(db, async ({ tx }) => {
        const created = await repo.insertApiKey(tx, {
          entityId: p.entityId,
          name: body.name.trim(),
          prefix: secret.slice(0, PREFIX_LENGTH),
          secretHash: hashApiKeySecret(secret),
          codes,
          createdByUserId: p.userId,
          expiresAt,
        });
        await deps.audit.record(tx, {
          entityId: p.entityId,
          actor: actorOf(p),
          action: 'api_key.create',
          target: { type: 'api_key', id: created.id },
          after: { name: created.name, permissions: created.codes, expires_at: created.expiresAt?.toISOString() ?? null },
        });
        return created;
      });
      return { ...toResponse(row), secret };
    },
    async revoke(p, id) {
      const row = await transaction(db, async ({ tx }) => {
        const revoked = await repo.revokeApiKey(tx, p.entityId, id, new Date());
        if (!revoked) throw notFound('api key', id);
        await deps.audit.record(tx, { entityId: p.entityId, actor: actorOf(p), action: 'api_key.revoke', target: { type: 'api_key', id } });
        return revoked;
      });
      return toResponse(row);
    },
    policy: (p) => repo.findPolicy(db, p.entityId).then((r) => ({ allow_non_expiring: r.allowNonExpiring })),
    async setPolicy(p, body) {
      await transaction(db, async ({ tx }) => {
        const before = await repo.findPolicy(tx, p.entityId);
        await repo.upsertPolicy(tx, p.entityId, body.allow_non_expiring);
        await deps.audit.record(tx, {
          entityId: p.entityId,
          actor: actorOf(p),
          action: 'api_key_policy.update',
          target: { type: 'entity', id: p.entityId },
          before: { allow_non_expiring: before.allowNonExpiring },
          after: { allow_non_expiring: body.allow_non_expiring },
        });
      });
      return body;
    },
    loader: {
      async load(secret) {
        // Not a secret we could have issued: no database read for it.
        if (secret.length > 100) return undefined;
        const row = await repo.findBySecretHash(db, hashApiKeySecret(secret));
        return (
          row && {
            id: row.id,
            entityId: row.entityId,
            createdByUserId: row.createdByUserId,
            codes: row.codes,
            expiresAt: row.expiresAt,
            revokedAt: row.revokedAt,
          }
        );
      },
      used(id) {
        const now = Date.now();
        if ((lastWritten.get(id) ?? 0) > now - LAST_USED_WRITE_INTERVAL_MS) return;
        lastWritten.set(id, now);
        if (lastWritten.size > 10_000) lastWritten.clear();
        repo
          .touchApiKey(db, id, new Date(now), LAST_USED_WRITE_INTERVAL_MS)
          .catch((err: unknown) => deps.log.warn({ err, apiKeyId: id }, 'last_used_at of an API key not written'));
      },
    },
  };
}
