/**
 * The clients of a group as the invoices module needs them: leads of the group that carry an ERP id
 * (SPEC: a client is a lead with an ERP identifier). Scoped by entity: another entity's group is
 * `undefined`, so callers answer 404.
 */
import { and, asc, eq, isNotNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { crmGroup } from './group.table.js';
import { lead } from './lead.table.js';

export interface GroupClient {
  leadId: number;
  name: string;
  erpId: string;
}

/** The group's clients, or `undefined` when the group does not exist in `entityId`. */
export async function listGroupClients(db: Db, entityId: number, groupId: number): Promise<GroupClient[] | undefined> {
  const [group] = await db
    .select({ id: crmGroup.id })
    .from(crmGroup)
    .where(and(eq(crmGroup.entityId, entityId), eq(crmGroup.id, groupId)))
    .limit(1);
  if (!group) return undefined;
  const rows = await db
    .select({ leadId: lead.id, name: lead.name, erpId: lead.erpId })
    .from(lead)
    .where(and(eq(lead.entityId, entityId), eq(lead.groupId, groupId), isNotNull(lead.erpId)))
    .orderBy(asc(lead.id));
  return rows.map((r) => ({ leadId: r.leadId, name: r.name, erpId: r.erpId! }));
}
