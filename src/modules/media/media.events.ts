/**
 * What media publishes when processing ends: the domain event `media.processed` (after commit) and the
 * realtime event `interaction.media.processed` to the entity's room (docs/api.md, "Realtime events").
 */
import { Type, type Static } from 'typebox';
import { defineServerEvent, type RealtimeEmitter } from '../../platform/realtime/events.js';
import { MEDIA_KINDS, type MediaKind } from './media.kinds.js';

interface MediaProcessed {
  entityId: number;
  mediaId: number;
  kind: MediaKind;
  status: 'ready' | 'failed';
}

declare module '../../platform/events/domain-events.js' {
  interface DomainEventMap {
    'media.processed': MediaProcessed;
  }
}

/** Payload of `interaction.media.processed` (its single source; docs/api.md is checked against it). */
export const MediaProcessedPayload = Type.Object({
  media_id: Type.Integer(),
  kind: Type.Enum(MEDIA_KINDS),
  status: Type.Enum(['ready', 'failed']),
  processing: Type.Union([Type.Enum(['optimized', 'unchanged', 'unprocessed']), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type MediaProcessedPayload = Static<typeof MediaProcessedPayload>;

declare module '../../platform/realtime/events.js' {
  interface ServerToClientEvents {
    'interaction.media.processed': (payload: MediaProcessedPayload) => void;
  }
}

defineServerEvent('interaction.media.processed', MediaProcessedPayload);

/** The one emit of `interaction.media.processed`, to the entity's room. */
export function emitMediaProcessed(realtime: RealtimeEmitter, entityId: number, payload: MediaProcessedPayload): void {
  realtime.toEntity(entityId, 'interaction.media.processed', payload);
}
