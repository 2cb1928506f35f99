/** The webhook inbox: accepted events waiting to be projected, the worker that applies them in batches, retries and dead letters, and the operator lists. */
export { insertNew as insertNewInboxEvents } from './inbox.repository.js';
export type { NewInboxEvent } from './inbox.repository.js';
export { createInboxWorker } from './inbox.worker.js';
export type { InboxWorker } from './inbox.worker.js';
export { createOperatorService } from './operator.service.js';
export type { OperatorService } from './operator.service.js';
export { registerInboxMetrics } from './inbox.metrics.js';
