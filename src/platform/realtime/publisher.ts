/**
 * The one publisher of socket events (DESIGN "Channels, publishing, units of work"; issue 47): to the agents
 * of an entity on `/interactions` (`ServerToClientEvents`) and to a website visitor's sockets on `/widget`
 * (`VisitorServerEvents`), each with its typed map. Events caused by a change reach it after the commit
 * through the change's collector (`ChangeEvents`, platform/transactions); ephemeral ones (typing) are given
 * to it at once. No other file broadcasts to a room (test/architecture/boundaries.test.ts).
 */
import type { Namespace } from 'socket.io';
import type { RealtimeEmitter } from './events.js';
import { chatRoom, conversationRoom, employeeRoom, entityRoom, leadRoom, memberRoom, queueRoom, visitorRoom } from './rooms.js';

/** Socket.IO's types cannot pair a generic event name with its payload; the emitter's signatures do. */
type Broadcast = { emit(event: string, payload: unknown): boolean };

/** The publisher over the agents' namespace and the visitors' (the same server and adapter: broadcasts cross instances). */
export function createPublisher(agents: Namespace, visitors: Namespace): RealtimeEmitter {
  return {
    toEntity(entityId, event, payload, target = {}) {
      if (target.personal === true) {
        const members = (target.employeeIds ?? []).map((employeeId) => memberRoom(entityId, employeeId));
        if (members.length > 0) (agents.to(members) as unknown as Broadcast).emit(event, payload);
        return;
      }
      const rooms = [entityRoom(entityId)];
      if (target.externalChatId !== undefined) rooms.push(chatRoom(entityId, target.externalChatId));
      if (target.conversationId !== undefined) rooms.push(conversationRoom(entityId, target.conversationId));
      // A handful of room names: Socket.IO unites their members, each socket receives the event once.
      for (const employeeId of target.employeeIds ?? []) rooms.push(employeeRoom(entityId, employeeId));
      if (target.queueId !== undefined && target.queueId !== null) rooms.push(queueRoom(entityId, target.queueId));
      if (target.leadId !== undefined) rooms.push(leadRoom(entityId, target.leadId));
      (agents.to(rooms) as unknown as Broadcast).emit(event, payload);
    },
    toVisitor(websiteToken, externalChatId, event, payload) {
      (visitors.to(visitorRoom(websiteToken, externalChatId)) as unknown as Broadcast).emit(event, payload);
    },
  };
}
