/**
 * What media publishes when processing ends: the domain event `media.processed` (after commit) and the
 * realtime event `interaction.media.processed` to the entity's room (docs/api.md, "Realtime events").
 */
import type { Realtime } from '../../platform/realtime/gateway.js';
import type { MediaKind } from './media.kinds.js';

export interface MediaProcessed {
  entityId: number;
  mediaId: number;
  kind: MediaKind;
  status: 'ready' | 'failed';
}

declare module '../../platform/events/bus.js' {
  interface DomainEventMap {
    'media.processed': MediaProcessed;
  }
}

/** Payload of `interaction.media.processed`. */
export interface MediaProcessedPayload {
  media_id: number;
  kind: MediaKind;
  status: 'ready' | 'failed';
  processing: 'optimized' | 'unchanged' | 'unprocessed' | null;
  error: string | null;
}

/** The one emit of `interaction.media.processed`. */
export function emitMediaProcessed(realtime: Realtime, entityId: number, payload: MediaProcessedPayload): void {
  realtime.toEntity(entityId, 'interaction.media.processed', payload);
}
