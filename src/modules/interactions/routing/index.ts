/** Routing and assignment: routing queues, members, filters and round robin (SPEC routing_*), and assigning a conversation by hand, by queue or by workflow. */
export { ASSIGN_PERMISSION, assignmentRoutes } from './assignment.routes.js';
export { createAssignmentService } from './assignment.service.js';
export type { AssignmentService } from './assignment.service.js';
export { routeConversation } from './routing.engine.js';
export type { Assignment } from './routing.engine.js';
export { routingRoutes } from './routing.routes.js';
export { createRoutingService } from './routing.service.js';
export { findQueue } from './routing.repository.js';
