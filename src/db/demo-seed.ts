/**
 * Demo data for trying the service (README, `npm run seed:demo`, first embedded start). Idempotent.
 * Each module contributes its part in `seedDemo`.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from './client.js';
import { seedAdminDemo, type AdminDemo } from '../modules/admin/demo.seed.js';
import { seedInvoicesDemo, type InvoicesDemo } from '../modules/invoices/demo.seed.js';
import { seedRecordsDemo } from '../modules/records/demo.seed.js';
import { seedCustomFieldsDemo } from '../modules/custom-fields/demo.seed.js';
import { seedInteractionsDemo, type InteractionsDemo } from '../modules/interactions/demo.seed.js';

export interface DemoSummary {
  admin: AdminDemo;
  invoices: InvoicesDemo;
  interactions: InteractionsDemo;
}

export async function seedDemo(db: Db): Promise<DemoSummary> {
  const admin = await seedAdminDemo(db);
  const records = await seedRecordsDemo(db, admin.employees);
  await seedCustomFieldsDemo(db, { ...records, employeeId: admin.employees.adminEntity1 });
  const invoices = await seedInvoicesDemo(db);
  const interactions = await seedInteractionsDemo(db, admin.entities[0]!.id, [admin.employees.adminEntity1, admin.employees.sellerEntity1]);
  return { admin, invoices, interactions };
}

/** Lines a person reads after seeding: who can log in where. */
export function describeDemo(summary: DemoSummary): string {
  return [
    'Demo data ready:',
    ...summary.admin.entities.map((e) => `  entity ${e.id}: ${e.name}`),
    ...summary.admin.logins.map((l) => `  login ${l.email} / ${l.password} (${l.note})`),
    ...summary.invoices.groups.map((g) => `  entity ${g.entityId}: group ${g.groupId} "${g.name}" has ERP invoices (GET /groups/${g.groupId}/invoices)`),
    `  WhatsApp phone_number_id ${summary.interactions.phoneNumberId} -> entity ${summary.admin.entities[0]!.id} inbox; form key ${summary.interactions.formKey}`,
  ].join('\n');
}

/** True when the database holds no entity yet (first start of an embedded database). */
export async function isEmpty(db: Db): Promise<boolean> {
  const rows = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from entity`);
  return (rows[0]?.n ?? 0) === 0;
}
