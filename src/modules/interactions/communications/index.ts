/** The communications service as this module uses it: per-entity settings (sealed API key, base URL), the operator endpoints (`/interactions/communications/*`) and who may use them. */
export { configuredEntityIds, findEntityByCommunicationsConfig } from './communications-config.repository.js';
export { createCommunicationsConfigService } from './communications-config.service.js';
export type { CommunicationsConfigService } from './communications-config.service.js';
export { communicationsOperationsRoutes } from './communications-operations.routes.js';
export { createCommunicationsOperations, operatorCommands } from './communications-operations.service.js';
export type { CommunicationsOperations } from './communications-operations.service.js';
export { assertPrivilegedOperator, operatorRoute } from './privileged-operator.js';
export { communicationsConfigBox } from './communications-config.service.js';
