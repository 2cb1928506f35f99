/** Demo entities, users, employees, roles and subscriptions. */
import type { Db } from '../../db/client.js';
import { createDirectoryService } from './directory.service.js';

export interface IdentityDemo {
  entities: { id: number; name: string }[];
  logins: { email: string; password: string; note: string }[];
  adminUserId: number;
  sellerUserId: number;
  sellerRoleId: number;
  employees: { adminEntity1: number; adminEntity2: number; sellerEntity1: number };
}

// Without conversations.view_all and conversations.reply_any: the seller's inbox (npm run demo) is the restricted
// view, their own, the demo queue's waiting and their leads' conversations, answering only what they hold or claim.
const SELLER_ROLE_CODES = ['leads.view', 'leads.create', 'contacts.view', 'groups.view', 'cartera.leads_list.view'];

export async function seedIdentityDemo(db: Db): Promise<IdentityDemo> {
  const dir = createDirectoryService(db);
  const demo = await dir.ensureEntity({ id: 1, name: 'Demo Company' });
  const second = await dir.ensureEntity({ id: 2, name: 'Second Company' });
  const superAdmin = await dir.ensureSuperAdminRole();

  const admin = await dir.upsertUser({ email: 'admin@example.com', name: 'Demo Admin', password: 'admin123', erpUserId: 1001 });
  const adminE1 = await dir.ensureEmployee({ userId: admin.id, entityId: demo.id, name: 'Demo Admin', erpEmployeeId: 2001 });
  const adminE2 = await dir.ensureEmployee({ userId: admin.id, entityId: second.id, name: 'Demo Admin', erpEmployeeId: 2002 });
  await dir.subscribe({ userId: admin.id, entityId: null, roleId: superAdmin.id });

  const seller = await dir.upsertUser({ email: 'seller@example.com', name: 'Demo Seller', password: 'seller123', erpUserId: 1002 });
  const sellerE1 = await dir.ensureEmployee({ userId: seller.id, entityId: demo.id, name: 'Demo Seller', erpEmployeeId: 2003 });
  const sellerRole = await dir.ensureRole({ entityId: demo.id, name: 'seller', description: 'Sales team member', permissions: SELLER_ROLE_CODES });
  await dir.subscribe({ employeeId: sellerE1.id, entityId: demo.id, roleId: sellerRole.id });

  return {
    entities: [
      { id: demo.id, name: demo.name },
      { id: second.id, name: second.name },
    ],
    logins: [
      { email: 'admin@example.com', password: 'admin123', note: 'super_admin, entities 1 and 2' },
      { email: 'seller@example.com', password: 'seller123', note: 'seller, entity 1' },
    ],
    adminUserId: admin.id,
    sellerUserId: seller.id,
    sellerRoleId: sellerRole.id,
    employees: { adminEntity1: adminE1.id, adminEntity2: adminE2.id, sellerEntity1: sellerE1.id },
  };
}
