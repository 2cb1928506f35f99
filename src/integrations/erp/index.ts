export { createErpClient, type ErpClient, type ErpCredentials } from './erp.client.js';
export { isErpError } from './erp.errors.js';
export type { ErpMembership } from './erp.schemas.js';
