/**
 * The customer-service window (issue "Conversations out"): WhatsApp, Messenger and Instagram allow
 * free-form messages for 24 h after the customer's last message; after that only a template (WhatsApp)
 * can be sent (docs/decisions.md, "The service window").
 */
const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** When the conversation's service window closes (null: the customer never wrote, so it is closed). */
export function serviceWindowExpiresAt(lastInboundAt: Date | null): Date | null {
  return lastInboundAt === null ? null : new Date(lastInboundAt.getTime() + SERVICE_WINDOW_MS);
}
