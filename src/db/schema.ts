/**
 * Every table of the service, re-exported from the module that owns it. drizzle-kit reads this file to
 * generate migrations; keep it a plain list of re-exports.
 */
export * from '../modules/admin/entity.table.js';
export * from '../modules/admin/user.table.js';
export * from '../modules/admin/employee.table.js';
export * from '../modules/admin/role.table.js';
export * from '../modules/admin/subscription.table.js';
export * from '../modules/permissions/permission.table.js';
export * from '../modules/records/group.table.js';
export * from '../modules/records/lead.table.js';
export * from '../modules/records/contact.table.js';
export * from '../modules/interactions/entity-channel-account.table.js';
export * from '../modules/records/assignment.table.js';
export * from '../modules/cartera/cartera-item.table.js';
export * from '../modules/erp-session/erp-session.table.js';
export * from '../modules/catalogs/catalog-cache.table.js';
export * from '../modules/custom-fields/custom-field.table.js';
export * from '../modules/interactions/routing.table.js';
export * from '../modules/interactions/conversation.table.js';
export * from '../modules/interactions/message.table.js';
export * from '../modules/interactions/inbox.table.js';
export * from '../modules/interactions/communications-config.table.js';
export * from '../modules/forms/form-key.table.js';
