/** The media proxy: an agent downloads a conversation's media through this service, which fetches it from the communications service. */
export { mediaProxyRoutes } from './media-proxy.routes.js';
export { createMediaProxyService } from './media-proxy.service.js';
