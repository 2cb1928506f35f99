/** Canned replies (issue 49): saved answers, searched, filled for a conversation and sent through the send path. */
export { createCannedReplies } from './canned-reply.service.js';
export { cannedReplyRoutes } from './canned-reply.routes.js';
export { seedCannedRepliesDemo } from './canned-reply.demo.js';
