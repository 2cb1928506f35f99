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
import type { PrincipalLoader } from '../../platform/auth/authenticator.js';
import { grantsOf, loadPrincipal, loadSubscriptions } from './principal.repository.js';

/** Characters of subscriptions' text remembered per process (a few KB per membership with many codes). */
const REMEMBERED_TEXT = 8_000_000;

export function createPrincipalLoader(database: Database): PrincipalLoader {
  // (grants version, membership) -> the subscriptions' text read under that version. A key of an older
  // version is never read again, and ages out.
  const subscriptionsOf = new LRUCache<string, string>({
    max: 20_000,
    maxSize: REMEMBERED_TEXT,
    sizeCalculation: (text, key) => text.length + key.length,
  });

  async function subscriptionsText(version: string | null, employeeId: number, userId: number, entityId: number): Promise<string> {
    const keyUnder = (grantsVersion: string) => `${grantsVersion}:${userId}:${entityId}:${employeeId}`;
    const remembered = version === null ? undefined : subscriptionsOf.get(keyUnder(version));
    if (remembered !== undefined) return remembered;
    const loaded = await loadSubscriptions(database, employeeId, userId, entityId);
    // Under the version read with the subscriptions: a change committed between the two reads makes it the newer one.
    if (loaded.grantsVersion !== null) subscriptionsOf.set(keyUnder(loaded.grantsVersion), loaded.text);
    return loaded.text;
  }

  return async (userId, entityId) => {
    const row = await loadPrincipal(database, userId, entityId);
    if (!row) return undefined;
    const text = row.employee_id === null ? '[]' : await subscriptionsText(row.grants_version, row.employee_id, userId, entityId);
    return {
      userId: row.user_id,
      email: row.email,
      erpUserId: row.erp_user_id,
      employeeId: row.employee_id,
      erpEmployeeId: row.erp_employee_id,
      subscriptionsKey: text,
      subscriptions: () => grantsOf(text),
    };
  };
}
