/**
 * What imports tell the entity's sockets: `import.progress` (docs/api.md, "Realtime events"), about every second
 * while an import runs and once when it ends or is cancelled.
 */
import { defineServerEvent, type RealtimeEmitter } from '../../platform/realtime/events.js';
import { ImportProgressPayload } from './import.schemas.js';

declare module '../../platform/realtime/events.js' {
  interface ServerToClientEvents {
    'import.progress': (payload: ImportProgressPayload) => void;
  }
}

defineServerEvent('import.progress', ImportProgressPayload);

/** The one emit of `import.progress`, to the entity's room. */
export function emitImportProgress(realtime: RealtimeEmitter, entityId: number, payload: ImportProgressPayload): void {
  realtime.toEntity(entityId, 'import.progress', payload);
}
