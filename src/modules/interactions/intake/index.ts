/** The webhook intake: accepted events waiting to be applied to the conversation projection, the worker that applies them in batches, retries and dead letters, and the operator lists. */
export { insertNew as insertNewIntakeEvents } from './intake.repository.js';
export type { NewIntakeEvent } from './intake.repository.js';
export { createIntakeWorker } from './intake.worker.js';
export type { IntakeWorker } from './intake.worker.js';
export { createOperatorService } from './operator.service.js';
export type { OperatorService } from './operator.service.js';
export { registerIntakeMetrics } from './intake.metrics.js';
