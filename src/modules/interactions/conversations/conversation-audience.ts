/**
 * Who hears which conversation on the sockets (issue 30, docs/api.md "Realtime" → "Who hears what"): the
 * `RealtimeAudience` the gateway is given at composition. A member with `conversations.view_all` hears the
 * whole entity; any other hears its own conversations (employee room), the waiting ones of its routing
 * queues (queue rooms) and those of its leads (lead rooms), which is exactly what `visibleTo` lets it read.
 * The gateway asks again at every re-authorization, so a lost conversation stops being heard within seconds.
 */
import type { Db } from '../../../db/client.js';
import type { AudienceMember, AudienceScope, RealtimeAudience } from '../../../platform/realtime/events.js';
import { effectiveLeadsOf } from '../../records/index.js';
import { queuesOfMembers, visibleAmong } from './conversation.repository.js';
import { VIEW_ALL } from './conversation-visibility.js';

/** `permissionsOf` answers a member's current permissions (undefined: no longer a member); composition passes identity's resolution. */
export function createConversationAudience(deps: {
  db: Db;
  permissionsOf(member: AudienceMember): Promise<ReadonlySet<string> | undefined>;
}): RealtimeAudience {
  const restricted = (m: AudienceMember) => ({ entityId: m.entityId, employeeId: m.employeeId, userId: m.userId, viewAll: false, replyAny: false });
  return {
    async scopes(members) {
      const out = new Map<string, AudienceScope>();
      const permissions = await Promise.all(members.map((m) => deps.permissionsOf(m)));
      const limitedByEntity = new Map<number, AudienceMember[]>();
      members.forEach((m, i) => {
        const codes = permissions[i];
        if (codes === undefined) return;
        if (codes.has(VIEW_ALL)) out.set(`${m.userId}:${m.entityId}`, { viewAll: true, queueIds: [], leadIds: [] });
        else limitedByEntity.set(m.entityId, [...(limitedByEntity.get(m.entityId) ?? []), m]);
      });
      for (const [entityId, limited] of limitedByEntity) {
        const employeeIds = limited.map((m) => m.employeeId);
        const [queues, leads] = await Promise.all([queuesOfMembers(deps.db, entityId, employeeIds), effectiveLeadsOf(deps.db, entityId, employeeIds)]);
        for (const m of limited)
          out.set(`${m.userId}:${m.entityId}`, { viewAll: false, queueIds: queues.get(m.employeeId) ?? [], leadIds: leads.get(m.employeeId) ?? [] });
      }
      return out;
    },
    visible: (member, target) => visibleAmong(deps.db, restricted(member), target.conversationIds, target.externalChatIds),
  };
}
