import type { FastifyInstance } from 'fastify';
import { decodeKey, erpBaseUrl } from '../../config.js';
import type { AppContext } from '../../platform/context.js';
import { createSealedBox } from '../../platform/crypto/sealed-box.js';
import { createErpClient, type ErpClient } from '../../integrations/erp/index.js';
import { erpSessionRoutes } from './erp-session.routes.js';
import { createErpSessionService, type ErpSessionService } from './erp-session.service.js';
import { installErpGuard } from './erp-guard.js';
import type { IdentityService } from '../identity/index.js';
import { registerRoutes } from '../../platform/http/dual-prefix.js';

export { scopeOf } from './erp-session.routes.js';
export { erpAccessOf } from './erp-guard.js';
export { ErpSessionSnapshot, missingErpSession } from './erp-session.schemas.js';
export type { ErpSessionService, ErpAccess } from './erp-session.service.js';
export type { ErpSessionScope } from './erp-session.repository.js';

export interface ErpModule {
  erp: ErpClient;
  sessions: ErpSessionService;
}

/**
 * Creates the ERP client and the ERP session service, installs the ERP-backed guard and serves
 * `/api/auth/erp-session*`. Register before the auth module (which uses it at login) and before every
 * ERP-backed module.
 */
export async function registerErpSessionModule(app: FastifyInstance, ctx: AppContext, identity: IdentityService): Promise<ErpModule> {
  const key = decodeKey(ctx.secrets.erpSessionEncryptionKey);
  if (!key) throw new Error('ERP_SESSION_ENCRYPTION_KEY must be 32 bytes (64 hex characters or base64)');
  const erp = createErpClient({ baseUrl: erpBaseUrl(ctx.config), authUrl: ctx.config.erp.authUrl, timeoutMs: ctx.config.erp.timeoutMs });
  const sessions = createErpSessionService({ db: ctx.db, identity, erp, box: createSealedBox(key, 'erp-session'), log: ctx.log });
  installErpGuard(app, sessions);
  await registerRoutes(app, erpSessionRoutes, { prefix: '/api/auth/erp-session', service: sessions });
  return { erp, sessions };
}
