/**
 * Names and payloads of the typed server-to-client events of namespace /interactions (docs/api/interactions.md).
 * Payloads reuse the HTTP response shapes of conversations and messages.
 */
export const RealtimeEvent = {
  messageCreated: 'interaction.message.created',
  messageStatus: 'interaction.message.status',
  conversationCreated: 'interaction.conversation.created',
  conversationUpdated: 'interaction.conversation.updated',
  conversationAssigned: 'interaction.conversation.assigned',
  conversationRead: 'interaction.conversation.read',
} as const;
export type RealtimeEventName = (typeof RealtimeEvent)[keyof typeof RealtimeEvent];
