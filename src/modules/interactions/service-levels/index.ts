/**
 * Service levels (issue 31): business hours and their calculator, SLA policies (`/interactions/business-hours`,
 * `/interactions/sla-policies`), the conversations' SLA clocks, moved in the transactions of the changes that
 * move them, and the timers that record breaches once.
 */
export { dueOf, slaStatusOf } from './sla-clock.js';
export { serviceLevelRoutes } from './service-levels.routes.js';
export { createServiceLevels } from './service-levels.service.js';
export type { SlaAlert, SlaClocks } from './service-levels.service.js';
