/**
 * The per-entity communications config (SPEC "Interactions resources", table
 * interaction_communications_config): where and with which key the communications service is called for
 * an entity. Values the entity's row leaves empty fall back to COMMUNICATIONS_BASE_URL /
 * COMMUNICATIONS_API_KEY; COMMUNICATIONS_ENTITY_ID_HARD, when set, replaces the communications entity id
 * of every entity (testing against one shared account). Secrets (api_key, meta_access_token) are sealed
 * at rest (platform/crypto/sealed-box, bound to the entity) and never returned: `read` masks them.
 *
 * Resolved targets are cached per entity for `TARGET_TTL_MS` (every send and every send attempt resolves
 * one); a change made here clears this instance's entry at once, another instance sees it within the TTL.
 */
import { LRUCache } from 'lru-cache';
import type { Db } from '../../../db/client.js';
import { createSealedBox, type SealedBox } from '../../../platform/crypto/sealed-box.js';
import { decodeKey } from '../../../config.js';
import { unprocessable } from '../../../platform/errors.js';
import { outboundUrlProblem, type OutboundPolicy } from '../../../platform/http/outbound.js';
import type { CommunicationsTarget } from '../../../integrations/communications/index.js';
import * as repo from './communications-config.repository.js';

export interface CommunicationsConfigView {
  communications_entity_id: string | null;
  external_app_id: string | null;
  base_url: string | null;
  /** `configured` with the last 4 characters, never the secret. */
  api_key: { configured: boolean; last4: string | null };
  meta_access_token: { configured: boolean; last4: string | null };
  /** Where the values in use come from when the entity's own are empty. */
  fallback: { base_url: boolean; api_key: boolean };
}

export interface CommunicationsConfigPatch {
  communications_entity_id?: string | null | undefined;
  external_app_id?: string | null | undefined;
  base_url?: string | null | undefined;
  api_key?: string | null | undefined;
  meta_access_token?: string | null | undefined;
}

export interface CommunicationsConfigService {
  /**
   * Where to call the communications service for `entityId`. Throws 422 `communications_not_configured`
   * when neither the entity nor the environment gives a base URL and an API key.
   */
  resolveTarget(entityId: number): Promise<CommunicationsTarget>;
  /** The entity's config with secrets masked. */
  read(entityId: number): Promise<CommunicationsConfigView>;
  /**
   * Sets the given fields (null clears one); secrets are sealed before they are stored. A `base_url` the
   * outbound guard refuses (private or loopback address not allowed by COMMUNICATIONS_ALLOWED_ADDRESSES,
   * credentials in it, plain http in production) is 422 `base_url_not_allowed`.
   */
  set(entityId: number, patch: CommunicationsConfigPatch): Promise<CommunicationsConfigView>;
  /** The entity's unsealed platform token (meta_access_token), null when none. */
  metaAccessToken(entityId: number): Promise<string | null>;
}

/** How long a resolved target is reused (docs/decisions.md, "Conversations out"). */
const TARGET_TTL_MS = 10_000;

/**
 * The box that seals the settings' secrets, keyed by ERP_SESSION_ENCRYPTION_KEY (32 bytes as 64 hex
 * characters or base64). Throws when the key is malformed (configuration validates it first).
 */
export function communicationsConfigBox(secret: string): SealedBox {
  const key = decodeKey(secret);
  if (!key) throw new Error('ERP_SESSION_ENCRYPTION_KEY must be 32 bytes (64 hex characters or base64)');
  return createSealedBox(key, 'communications-config');
}

export function createCommunicationsConfigService(deps: {
  db: Db;
  box: SealedBox;
  fallback: { baseUrl: string | undefined; apiKey: string | undefined; entityIdHard: number | undefined };
  /** Where an entity's base URL may point (checked when it is set; the client checks every call again). */
  outboundPolicy: OutboundPolicy;
}): CommunicationsConfigService {
  const targets = new LRUCache<number, CommunicationsTarget>({ max: 10_000, ttl: TARGET_TTL_MS });
  const scope = (entityId: number, field: string) => `communications-config|${entityId}|${field}`;
  const open = (entityId: number, field: string, sealed: string | null) => (sealed === null ? null : (deps.box.open(sealed, scope(entityId, field)) ?? null));
  const mask = (secret: string | null) => ({ configured: secret !== null, last4: secret !== null && secret.length >= 8 ? secret.slice(-4) : null });
  const view = (entityId: number, row: repo.CommunicationsConfigRow | undefined): CommunicationsConfigView => ({
    communications_entity_id: row?.communicationsEntityId ?? null,
    external_app_id: row?.externalAppId ?? null,
    base_url: row?.baseUrl ?? null,
    api_key: mask(open(entityId, 'api_key', row?.apiKeyEncrypted ?? null)),
    meta_access_token: mask(open(entityId, 'meta_access_token', row?.metaAccessTokenEncrypted ?? null)),
    fallback: {
      base_url: (row?.baseUrl ?? null) === null && deps.fallback.baseUrl !== undefined,
      api_key: (row?.apiKeyEncrypted ?? null) === null && deps.fallback.apiKey !== undefined,
    },
  });
  return {
    async resolveTarget(entityId) {
      const cached = targets.get(entityId);
      if (cached !== undefined) return cached;
      const row = await repo.findConfig(deps.db, entityId);
      const baseUrl = row?.baseUrl ?? deps.fallback.baseUrl;
      const apiKey = open(entityId, 'api_key', row?.apiKeyEncrypted ?? null) ?? deps.fallback.apiKey;
      if (baseUrl === undefined || apiKey === undefined) {
        throw unprocessable('communications_not_configured', 'The entity has no communications service configured (base URL and API key)');
      }
      const hard = deps.fallback.entityIdHard;
      const target = {
        baseUrl: baseUrl.replace(/\/+$/, ''),
        apiKey,
        communicationsEntityId: hard !== undefined ? String(hard) : (row?.communicationsEntityId ?? null),
        externalAppId: row?.externalAppId ?? null,
      };
      targets.set(entityId, target);
      return target;
    },
    async read(entityId) {
      return view(entityId, await repo.findConfig(deps.db, entityId));
    },
    async set(entityId, patch) {
      const values: Parameters<typeof repo.upsertConfig>[2] = {};
      if (patch.communications_entity_id !== undefined) values.communicationsEntityId = patch.communications_entity_id;
      if (patch.external_app_id !== undefined) values.externalAppId = patch.external_app_id;
      if (patch.base_url !== undefined && patch.base_url !== null) {
        const problem = outboundUrlProblem(patch.base_url, deps.outboundPolicy);
        if (problem !== undefined) throw unprocessable('base_url_not_allowed', `base_url ${problem}`);
      }
      if (patch.base_url !== undefined) values.baseUrl = patch.base_url;
      if (patch.api_key !== undefined) values.apiKeyEncrypted = patch.api_key === null ? null : deps.box.seal(patch.api_key, scope(entityId, 'api_key'));
      if (patch.meta_access_token !== undefined) {
        values.metaAccessTokenEncrypted =
          patch.meta_access_token === null ? null : deps.box.seal(patch.meta_access_token, scope(entityId, 'meta_access_token'));
      }
      targets.delete(entityId);
      return view(entityId, await repo.upsertConfig(deps.db, entityId, values));
    },
    async metaAccessToken(entityId) {
      const row = await repo.findConfig(deps.db, entityId);
      return open(entityId, 'meta_access_token', row?.metaAccessTokenEncrypted ?? null);
    },
  };
}
