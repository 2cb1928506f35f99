/** Bulk actions on conversations (issue 49): the single lifecycle and assignment actions, item by item. */
export { createBulkActions } from './bulk-actions.service.js';
export { bulkActionRoutes } from './bulk-actions.routes.js';
