/**
 * Privileged operations on an entity's link with the communications service (SPEC "Interactions" →
 * privileged operator endpoints; "Inbound webhook events" for the webhook URL; "Configuration variables"
 * for the re-sync flags): reading (masked) and setting the per-entity config, registering our webhook URL,
 * rotating the platform token and logging in. Also the automatic re-sync at boot and at login or entity
 * change, which never fails a boot or a login (logged and counted instead).
 */
import type { FastifyBaseLogger } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { Config } from '../../../config.js';
import type { Db } from '../../../db/client.js';
import type { Principal } from '../../../platform/auth/authenticator.js';
import { actorOf, type AuditTrail } from '../../audit/index.js';
import { unprocessable } from '../../../platform/errors.js';
import { isCommunicationsError, type CommunicationsClient } from '../../../integrations/communications/index.js';
import type { CommunicationsConfigPatch, CommunicationsConfigService, CommunicationsConfigView } from './communications-config.service.js';

const WEBHOOK_PATH = '/api/interactions/webhooks/communications';

/**
 * The webhook URL to register (SPEC "Inbound webhook events"): production (`ERP_ENV=prod`) uses
 * PUBLIC_BASE_URL; preview the host's external URL (`config.previewExternalUrl`; PUBLIC_BASE_URL wins when set); development
 * the tunnel URL COMMUNICATIONS_DEV_TUNNEL_URL when COMMUNICATIONS_DEV_TUNNEL_ENABLED. Null when the mode
 * gives none.
 */
export function webhookUrl(config: Pick<Config, 'publicBaseUrl' | 'previewExternalUrl' | 'erp' | 'communications'>): string | null {
  const join = (base: string) => `${(/^https?:\/\//.test(base) ? base : `https://${base}`).replace(/\/+$/, '')}${WEBHOOK_PATH}`;
  if (config.erp.env === 'prod') return config.publicBaseUrl !== undefined ? join(config.publicBaseUrl) : null;
  if (config.erp.env === 'preview') {
    const base = config.publicBaseUrl ?? config.previewExternalUrl;
    return base !== undefined ? join(base) : null;
  }
  if (config.communications.devTunnelEnabled && config.communications.devTunnelUrl !== undefined) return join(config.communications.devTunnelUrl);
  return null;
}

export interface CommunicationsOperations {
  readConfig(entityId: number): Promise<CommunicationsConfigView>;
  setConfig(entityId: number, patch: CommunicationsConfigPatch): Promise<CommunicationsConfigView>;
  /** Registers our webhook URL for the entity. 422 `webhook_url_unavailable` when the mode gives no URL. */
  syncWebhook(entityId: number): Promise<{ url: string }>;
  /** Stores the new platform token (sealed) and hands it to the communications service. */
  rotateMetaToken(entityId: number, token: string): Promise<CommunicationsConfigView>;
  /** Logs in at the communications service; keeps the communications entity id it answers when none is set. */
  login(entityId: number): Promise<{ communications_entity_id: string | null }>;
  /** The automatic re-sync after a login or entity change (flags decide what runs); never throws. */
  afterAuthenticated(entityId: number): Promise<void>;
  /** The automatic re-sync at boot for every entity with a config (flags decide); never throws. */
  atBoot(entityIds: () => Promise<number[]>): Promise<void>;
}

export function createCommunicationsOperations(deps: {
  config: Config;
  settings: CommunicationsConfigService;
  client: CommunicationsClient;
  log: FastifyBaseLogger;
  metrics: Registry;
}): CommunicationsOperations {
  const failures = new Counter({
    name: 'interactions_communications_resync_failures_total',
    help: 'Automatic communications re-syncs (boot, login) that failed',
    labelNames: ['operation'] as const,
    registers: [],
  });
  deps.metrics.registerMetric(failures);
  const c = deps.config.communications;
  const failing = <T>(operation: string, work: Promise<T>): Promise<T> =>
    work.catch((err: unknown) => {
      if (isCommunicationsError(err))
        throw unprocessable('communications_unavailable', `The communications service refused or did not answer: ${err.message}`, {
          operation,
          kind: err.kind,
        });
      throw err;
    });
  const quietly = async (operation: string, entityId: number, work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (err) {
      failures.inc({ operation });
      deps.log.warn({ err, entityId, operation }, 'automatic communications re-sync failed');
    }
  };
  const ops: CommunicationsOperations = {
    readConfig: (entityId) => deps.settings.read(entityId),
    setConfig: (entityId, patch) => deps.settings.set(entityId, patch),
    async syncWebhook(entityId) {
      const url = webhookUrl(deps.config);
      if (url === null)
        throw unprocessable(
          'webhook_url_unavailable',
          'No public URL for this mode: set PUBLIC_BASE_URL (prod, preview) or COMMUNICATIONS_DEV_TUNNEL_ENABLED with COMMUNICATIONS_DEV_TUNNEL_URL (dev)',
        );
      const target = await deps.settings.resolveTarget(entityId);
      await failing('webhook-sync', deps.client.registerWebhook(target, url));
      return { url };
    },
    async rotateMetaToken(entityId, token) {
      const target = await deps.settings.resolveTarget(entityId);
      await failing('meta-token-rotate', deps.client.rotateMetaToken(target, token));
      return deps.settings.set(entityId, { meta_access_token: token });
    },
    async login(entityId) {
      const target = await deps.settings.resolveTarget(entityId);
      const { communicationsEntityId } = await failing('manual-login', deps.client.login(target));
      const current = await deps.settings.read(entityId);
      if (current.communications_entity_id === null && communicationsEntityId !== null)
        await deps.settings.set(entityId, { communications_entity_id: communicationsEntityId });
      return { communications_entity_id: current.communications_entity_id ?? communicationsEntityId };
    },
    async afterAuthenticated(entityId) {
      if (c.autoLoginOnAuth) await quietly('auto-login', entityId, () => ops.login(entityId));
      if (c.userWebhookResyncEnabled) await quietly('user-webhook-resync', entityId, () => ops.syncWebhook(entityId));
    },
    async atBoot(entityIds) {
      const enabled = deps.config.erp.env === 'dev' ? c.devWebhookResyncEnabled : c.bootWebhookResyncEnabled;
      if (!enabled) return;
      for (const entityId of await entityIds().catch(() => [])) await quietly('boot-webhook-resync', entityId, () => ops.syncWebhook(entityId));
    },
  };
  return ops;
}

/** The privileged operator's commands (communications-operations.routes.ts), each recorded in the audit trail (issue 54). */
export interface OperatorCommands {
  setConfig(caller: Principal, patch: CommunicationsConfigPatch): Promise<CommunicationsConfigView>;
  syncWebhook(caller: Principal): Promise<{ url: string }>;
  rotateMetaToken(caller: Principal, token: string): Promise<CommunicationsConfigView>;
  login(caller: Principal): Promise<{ communications_entity_id: string | null }>;
}

/**
 * `ops` for an operator: each successful command writes one audit entry once it is done (the settings are
 * written by the config service and the communications service was called, so the entry follows the change
 * rather than sharing its transaction). The settings' change is recorded as the masked views before and after.
 */
export function operatorCommands(ops: CommunicationsOperations, audit: { trail: AuditTrail; db: Db }): OperatorCommands {
  const record = (caller: Principal, action: string, change: { before?: Record<string, unknown>; after?: Record<string, unknown> } = {}) =>
    audit.trail.record(audit.db, {
      entityId: caller.entityId,
      actor: actorOf(caller),
      action,
      target: { type: 'communications_config', id: caller.entityId },
      ...change,
    });
  return {
    async setConfig(caller, patch) {
      const before = await ops.readConfig(caller.entityId);
      const after = await ops.setConfig(caller.entityId, patch);
      await record(caller, 'communications.config.update', { before: { ...before }, after: { ...after } });
      return after;
    },
    async syncWebhook(caller) {
      const result = await ops.syncWebhook(caller.entityId);
      await record(caller, 'communications.webhook_sync');
      return result;
    },
    async rotateMetaToken(caller, token) {
      const result = await ops.rotateMetaToken(caller.entityId, token);
      await record(caller, 'communications.token_rotate');
      return result;
    },
    async login(caller) {
      const result = await ops.login(caller.entityId);
      await record(caller, 'communications.login');
      return result;
    },
  };
}
