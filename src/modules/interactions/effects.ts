/** Publishes projection effects after commit: realtime events through the gateway, domain events on the bus. */
import type { EventBus } from '../../platform/events/bus.js';
import type { Realtime } from '../../platform/realtime/gateway.js';
import type { Effects } from './projection.service.js';

export async function publishEffects(deps: { realtime: Realtime; events: EventBus }, effects: Effects): Promise<void> {
  for (const e of effects.realtime) deps.realtime.toEntity(e.entityId, e.event, e.payload, { externalChatId: e.externalChatId, conversationId: e.conversationId });
  for (const d of effects.domain) await deps.events.publish(d.name, d.payload);
}
