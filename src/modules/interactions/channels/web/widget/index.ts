/**
 * The visitor's side of the website chat: the `/widget` socket namespace and its events, visitor tokens and
 * identity signatures, the per-IP and per-visitor rate limits, and the widget script with its demo page. It
 * knows no table: the website chat's service (`channels/web/chat/`) gives it the handlers that read and write.
 */
export { checkIdentitySignature, createVisitorTokens, type VisitorTokens } from './visitor-token.js';
export { VisitorMessage } from './visitor-message.schemas.js';
export { createWidgetHub, type WidgetHub } from './widget-socket.js';
export { createWidgetLimits, type WidgetLimits } from './widget-limits.js';
export { buildWidget, demoPage, widgetAsset } from './widget-asset.js';
