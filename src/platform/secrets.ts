/**
 * Development fallbacks for the two secrets the service cannot run without. Outside production a missing
 * `JWT_SECRET` or `ERP_SESSION_ENCRYPTION_KEY` is generated once and kept in `DATA_DIR/secrets.json`
 * (mode 0600) so that tokens and encrypted ERP sessions survive restarts; production refuses to start
 * without them (see `loadConfig`).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';

interface StoredSecrets {
  jwtSecret?: string;
  erpSessionEncryptionKey?: string;
}

export interface ResolvedSecrets {
  jwtSecret: string;
  erpSessionEncryptionKey: string;
  /** Names of the variables that were generated rather than configured. */
  generated: string[];
}

/** Returns the configured secrets, generating and persisting the missing ones (in memory only for `:memory:`). */
export function resolveSecrets(config: Config): ResolvedSecrets {
  const generated: string[] = [];
  const inMemory = config.dataDir === ':memory:';
  const file = join(config.dataDir, 'secrets.json');
  const stored: StoredSecrets = !inMemory && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as StoredSecrets) : {};

  let jwtSecret = config.jwtSecret;
  if (jwtSecret === undefined) {
    jwtSecret = stored.jwtSecret ?? randomBytes(48).toString('base64url');
    stored.jwtSecret = jwtSecret;
    generated.push('JWT_SECRET');
  }
  let erpKey = config.erp.sessionEncryptionKey;
  if (erpKey === undefined) {
    erpKey = stored.erpSessionEncryptionKey ?? randomBytes(32).toString('hex');
    stored.erpSessionEncryptionKey = erpKey;
    generated.push('ERP_SESSION_ENCRYPTION_KEY');
  }
  if (generated.length > 0 && !inMemory) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
  }
  return { jwtSecret, erpSessionEncryptionKey: erpKey, generated };
}
