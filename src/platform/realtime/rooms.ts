/**
 * The Socket.IO rooms of both namespaces, named in one place: the gateways join sockets to them, the
 * publisher emits to them.
 */

/** `/interactions`: every socket of an entity that sees the whole entity. */
export const entityRoom = (entityId: number) => `interactions:entity:${entityId}`;
/** `/interactions`: a chat's subscribers. */
export const chatRoom = (entityId: number, externalChatId: string) => `interactions:entity:${entityId}:chat:${externalChatId}`;
/** `/interactions`: a conversation's subscribers. */
export const conversationRoom = (entityId: number, conversationId: number) => `interactions:entity:${entityId}:conversation:${conversationId}`;
/** `/interactions`: an agent's own conversations (assigned to them). */
export const employeeRoom = (entityId: number, employeeId: number) => `interactions:entity:${entityId}:employee:${employeeId}`;
/** `/interactions`: every socket of one member, whatever it hears of conversations: their personal events (notifications). */
export const memberRoom = (entityId: number, employeeId: number) => `interactions:entity:${entityId}:member:${employeeId}`;
/** `/interactions`: a routing queue's members. */
export const queueRoom = (entityId: number, queueId: number) => `interactions:entity:${entityId}:queue:${queueId}`;
/** `/interactions`: a lead's sellers. */
export const leadRoom = (entityId: number, leadId: number) => `interactions:entity:${entityId}:lead:${leadId}`;

/** `/widget`: every socket of one visitor (its tabs, and a verified visitor's devices) of one website. */
export const visitorRoom = (websiteToken: string, externalChatId: string) => `widget:${websiteToken}:${externalChatId}`;
/** `/widget`: the sockets of one token generation of a visitor, closed together when it is revoked. */
export const visitorGenerationRoom = (websiteToken: string, externalChatId: string, generation: number) =>
  `${visitorRoom(websiteToken, externalChatId)}#${generation}`;
