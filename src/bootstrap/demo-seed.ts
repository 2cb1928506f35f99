/**
 * Demo data for trying the service (README, `npm run seed:demo`, first embedded start). Idempotent.
 * Each module contributes its part in `seedDemo`.
 */
import type { Db } from '../db/client.js';
import { createDirectoryService, seedIdentityDemo, type IdentityDemo } from '../modules/identity/index.js';
import { seedInvoicesDemo, seedRecordsDemo, type InvoicesDemo } from '../modules/records/index.js';
import { seedCustomFieldsDemo } from '../modules/custom-fields/index.js';
import { seedInteractionsDemo, type InteractionsDemo } from '../modules/interactions/index.js';
import { seedFormsDemo } from '../modules/forms/index.js';
import { seedLabelsDemo } from '../modules/labels/index.js';

export interface DemoSummary {
  identity: IdentityDemo;
  invoices: InvoicesDemo;
  interactions: InteractionsDemo;
  forms: { formKey: string };
}

export async function seedDemo(db: Db): Promise<DemoSummary> {
  const identity = await seedIdentityDemo(db);
  const labels = await seedLabelsDemo(db, identity.entities[0]!.id);
  const records = await seedRecordsDemo(db, identity.employees, labels);
  await seedCustomFieldsDemo(db, { ...records, employeeId: identity.employees.adminEntity1 });
  const invoices = await seedInvoicesDemo(db);
  const interactions = await seedInteractionsDemo(db, identity.entities[0]!.id, [identity.employees.adminEntity1, identity.employees.sellerEntity1]);
  const forms = await seedFormsDemo(db, identity.entities[0]!.id);
  return { identity, invoices, interactions, forms };
}

/** Lines a person reads after seeding: who can log in where. */
export function describeDemo(summary: DemoSummary): string {
  return [
    'Demo data ready:',
    ...summary.identity.entities.map((e) => `  entity ${e.id}: ${e.name}`),
    ...summary.identity.logins.map((l) => `  login ${l.email} / ${l.password} (${l.note})`),
    ...summary.invoices.groups.map((g) => `  entity ${g.entityId}: group ${g.groupId} "${g.name}" has ERP invoices (GET /groups/${g.groupId}/invoices)`),
    `  WhatsApp phone_number_id ${summary.interactions.phoneNumberId} -> entity ${summary.identity.entities[0]!.id} inbox; form key ${summary.forms.formKey}`,
  ].join('\n');
}

/** True when the database holds no entity yet (first start of an embedded database). */
export async function isEmpty(db: Db): Promise<boolean> {
  return !(await createDirectoryService(db).hasEntities());
}
