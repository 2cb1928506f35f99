/**
 * The guard's principal loader (platform `PrincipalLoader`): SPEC "Permission resolution" re-resolves
 * permissions on every request, and every request reads the membership and the grants version from the
 * database (one round trip). The subscriptions behind the membership are read again only when that version
 * is new to the process: any change to subscriptions, overrides, roles or their codes replaces it in the
 * changing transaction (grants-version.table.ts), so the next request after the commit reads them again,
 * on every instance (docs/decisions.md, "Grants version").
 */
import { LRUCache } from 'lru-cache';
import type { Database } from '../../db/client.js';
import type { PrincipalLoader, PrincipalRecord } from '../../platform/auth/authenticator.js';
import { grantsOf, loadPrincipalText, loadSubscriptions, principalRowOf, type PrincipalRow } from './principal.repository.js';

/** Characters of principals' and subscriptions' text remembered per process (a few KB per membership with many codes). */
const REMEMBERED_TEXT = 8_000_000;

function recordFrom(row: PrincipalRow, subscriptionsText: string): PrincipalRecord {
  return {
    userId: row.userId,
    email: row.email,
    erpUserId: row.erpUserId,
    employeeId: row.employeeId,
    erpEmployeeId: row.erpEmployeeId,
    subscriptionsKey: subscriptionsText,
    subscriptions: () => grantsOf(subscriptionsText),
  };
}

export function createPrincipalLoader(database: Database): PrincipalLoader {
  // The principal's text (user, membership, grants version: LOAD_PRINCIPAL) -> the record built from it, the
  // same object for every request that reads the same text. A text of an older version is never read again,
  // and ages out.
  const records = new LRUCache<string, PrincipalRecord>({
    max: 20_000,
    maxSize: REMEMBERED_TEXT,
    sizeCalculation: (record, text) => text.length + record.subscriptionsKey.length,
  });

  /** The record of `text` (a principal's text as `LOAD_PRINCIPAL` reads it) for user `userId` in `entityId`. */
  async function recordOf(text: string, userId: number, entityId: number): Promise<PrincipalRecord> {
    const known = records.get(text);
    if (known !== undefined) return known;
    const row = principalRowOf(text);
    if (row.employeeId === null) {
      const record = recordFrom(row, '[]');
      records.set(text, record);
      return record;
    }
    const loaded = await loadSubscriptions(database, row.employeeId, userId, entityId);
    const record = recordFrom(row, loaded.text);
    // Remembered only when the subscriptions were read under the version read with the principal: after a
    // change committed between the two reads, this text is an older version's, and the next request reads the newer one.
    if (row.grantsVersion !== null && loaded.grantsVersion === row.grantsVersion) records.set(text, record);
    return record;
  }

  return {
    async load(userId, entityId) {
      const text = await loadPrincipalText(database, userId, entityId);
      return text === undefined ? undefined : recordOf(text, userId, entityId);
    },
    async fromText(text, userId, entityId) {
      return text === null ? undefined : recordOf(text, userId, entityId);
    },
  };
}
