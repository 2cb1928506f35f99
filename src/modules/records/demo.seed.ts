/** Demo groups, leads, clients, contacts, assignments and lead labels for entities 1 and 2. Idempotent per entity. */
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { crmGroup } from './group.table.js';
import { insertGroup } from './group.repository.js';
import { insertLead } from './lead.repository.js';
import { insertContact, insertManualChannels } from './contact.repository.js';
import { insertGroupAssignments, upsertLeadAssignment } from './assignment.repository.js';
import { addRecordLabels } from './label-link.repository.js';

export interface RecordsDemo {
  /** First demo contact of entity 1 (custom field values are seeded on it), or null when already seeded. */
  contactId: number | null;
  groupId: number | null;
}

const ENTITY1 = [
  {
    group: 'Familia López',
    leads: [
      {
        name: 'Ana López',
        erpId: 'C-1001',
        email: 'ana.lopez@example.com',
        phone: '+50255501001',
        contacts: [{ name: 'Ana López', phone: '+50255501001', email: 'ana.lopez@example.com' }],
      },
      { name: 'Carlos López', erpId: null, email: null, phone: '+50255501002', contacts: [{ name: 'Carlos López', phone: '+50255501002', email: null }] },
    ],
  },
  {
    group: 'Comercial Hernández',
    leads: [
      {
        name: 'Comercial Hernández (central)',
        erpId: 'C-1002',
        email: 'compras@hernandez.example.com',
        phone: '+50222201000',
        contacts: [
          { name: 'María Hernández', phone: '+50255502001', email: 'maria@hernandez.example.com' },
          { name: 'Luis Pérez', phone: '+50255502002', email: null },
        ],
      },
      { name: 'Comercial Hernández (Xela)', erpId: null, email: null, phone: null, contacts: [{ name: 'Sofía Ramírez', phone: '+50255502003', email: null }] },
    ],
  },
  {
    group: 'Distribuidora Maya',
    leads: [
      {
        name: 'Distribuidora Maya',
        erpId: 'C-1003',
        email: 'ventas@maya.example.com',
        phone: '+50223301000',
        contacts: [{ name: 'Jorge Maya', phone: '+50255503001', email: 'jorge@maya.example.com' }],
      },
    ],
  },
  { group: 'Tienda El Sol', leads: [{ name: 'Tienda El Sol', erpId: null, email: null, phone: '+50255504000', contacts: [] }] },
];

/** The demo labels (labels module) some demo leads carry. */
const DEMO_LEAD_LABELS: Record<string, string> = { 'Ana López': 'VIP', 'Distribuidora Maya': 'Mayorista', 'Comercial Hernández (central)': 'Cotización' };

/** Seeds entity 1 (and a little of entity 2) unless they already hold groups; `labels` are the demo labels by name. */
export async function seedRecordsDemo(
  db: Db,
  employees: { adminEntity1: number; sellerEntity1: number },
  labels: ReadonlyMap<string, number> = new Map(),
): Promise<RecordsDemo> {
  const demo: RecordsDemo = { contactId: null, groupId: null };
  const existing = await db.select({ id: crmGroup.id }).from(crmGroup).where(eq(crmGroup.entityId, 1)).limit(1);
  if (existing.length === 0) {
    const groupIds: number[] = [];
    for (const g of ENTITY1) {
      const group = await insertGroup(db, 1, { name: g.group });
      groupIds.push(group.id);
      demo.groupId ??= group.id;
      for (const l of g.leads) {
        const lead = await insertLead(db, 1, { groupId: group.id, name: l.name, erpId: l.erpId, email: l.email, phone: l.phone });
        if (l.name === 'Carlos López') await upsertLeadAssignment(db, 1, lead.id, employees.adminEntity1);
        // Their conversations show these labels too (source `lead`).
        const labelName = DEMO_LEAD_LABELS[l.name];
        const labelId = labelName === undefined ? undefined : labels.get(labelName);
        if (labelId !== undefined) await addRecordLabels(db, 'lead', 1, [lead.id], [labelId], null);
        for (const c of l.contacts) {
          const contact = await insertContact(db, 1, { groupId: group.id, leadId: lead.id, name: c.name });
          demo.contactId ??= contact.id;
          await insertManualChannels(db, 1, contact.id, [
            { type: 'whatsapp', identifier: c.phone, label: 'WhatsApp' },
            ...(c.email ? [{ type: 'email' as const, identifier: c.email, label: null }] : []),
          ]);
        }
      }
    }
    await insertGroupAssignments(db, 1, employees.sellerEntity1, groupIds.slice(0, 2));
    await insertGroupAssignments(db, 1, employees.adminEntity1, groupIds.slice(2, 3));
  }
  const second = await db.select({ id: crmGroup.id }).from(crmGroup).where(eq(crmGroup.entityId, 2)).limit(1);
  if (second.length === 0) {
    const group = await insertGroup(db, 2, { name: 'Second Company Group' });
    const lead = await insertLead(db, 2, { groupId: group.id, name: 'Second Company Lead', erpId: 'S-1', email: null, phone: null });
    const contact = await insertContact(db, 2, { groupId: group.id, leadId: lead.id, name: 'Second Company Contact' });
    await insertManualChannels(db, 2, contact.id, [{ type: 'whatsapp', identifier: '+50255509001', label: null }]);
  }
  return demo;
}
