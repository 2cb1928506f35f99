/** Conversation reports (`/interactions/reports/*`), read from the conversation event log the other rooms write (activity/). */
export { reportRoutes } from './report.routes.js';
export { createReportService } from './report.service.js';
