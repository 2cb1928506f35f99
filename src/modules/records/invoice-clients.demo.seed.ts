/**
 * Demo CRM records that the ERP simulator's demo data knows (sim/erp/data.ts): a group per demo entity
 * whose leads carry the ERP client ids CL-1001, CL-1002 (entity 1) and CL-2001 (entity 2), so group
 * invoices show up out of the box. Idempotent.
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { crmGroup } from './group.table.js';
import { lead } from './lead.table.js';

const DEMO = [
  {
    entityId: 1,
    group: 'Grupo La Ceiba',
    clients: [
      { name: 'Comercial La Ceiba', erpId: 'CL-1001' },
      { name: 'Farmacia San Rafael', erpId: 'CL-1002' },
    ],
  },
  { entityId: 2, group: 'Grupo Norte', clients: [{ name: 'Distribuidora del Norte', erpId: 'CL-2001' }] },
];

export interface InvoicesDemo {
  groups: { entityId: number; groupId: number; name: string }[];
}

export async function seedInvoicesDemo(db: Db): Promise<InvoicesDemo> {
  const groups: InvoicesDemo['groups'] = [];
  for (const spec of DEMO) {
    const [found] = await db
      .select()
      .from(crmGroup)
      .where(and(eq(crmGroup.entityId, spec.entityId), eq(crmGroup.name, spec.group)))
      .limit(1);
    const group = found ?? (await db.insert(crmGroup).values({ entityId: spec.entityId, name: spec.group }).returning())[0]!;
    for (const client of spec.clients) {
      await db.insert(lead).values({ entityId: spec.entityId, groupId: group.id, name: client.name, erpId: client.erpId }).onConflictDoNothing();
    }
    groups.push({ entityId: spec.entityId, groupId: group.id, name: spec.group });
  }
  return { groups };
}
