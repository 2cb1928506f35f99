export { createErpClient, type ErpClient, type ErpCredentials } from './erp.client.js';
export { ErpError, isErpError, type ErpErrorKind } from './erp.errors.js';
export type { ErpMembership, ErpProfile, ErpSelectedEntity, ErpUserinfo } from './erp.schemas.js';
export type { ErpOrderRequest, ErpOrderCreated } from './erp.schemas.js';
