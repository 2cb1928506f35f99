import { asc, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { PERMISSIONS } from '../../platform/permissions/catalog.js';
import { permission, permissionImplication } from './permission.table.js';
import { transaction } from '../../platform/transactions/transaction.js';

/** Upserts the code catalogue and replaces the implication rows; run at every start (idempotent). */
export async function seedPermissionCatalog(db: Db): Promise<void> {
  await transaction(db, async ({ tx }) => {
    await tx
      .insert(permission)
      .values(PERMISSIONS.map((p) => ({ code: p.code, module: p.module, label: p.label })))
      .onConflictDoUpdate({ target: permission.code, set: { module: sql`excluded.module`, label: sql`excluded.label` } });
    await tx.delete(permissionImplication);
    const implications = PERMISSIONS.flatMap((p) => p.implies.map((impliesCode) => ({ code: p.code, impliesCode })));
    if (implications.length > 0) await tx.insert(permissionImplication).values(implications);
  });
}

/** Permission records as stored, with their implications. */
export async function listPermissionRecords(db: Db) {
  const [rows, implications] = await Promise.all([
    db.select().from(permission).orderBy(asc(permission.module), asc(permission.code)),
    db.select().from(permissionImplication),
  ]);
  const implied = new Map<string, string[]>();
  for (const i of implications) implied.set(i.code, [...(implied.get(i.code) ?? []), i.impliesCode]);
  return rows.map((r) => ({ code: r.code, module: r.module, label: r.label, implies: (implied.get(r.code) ?? []).sort() }));
}
