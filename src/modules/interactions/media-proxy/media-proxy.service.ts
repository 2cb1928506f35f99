/**
 * The media proxy (SPEC "Interactions": `GET /interactions/media/:mediaId`): streams a platform media
 * object of a message of the caller's entity through the service, from the communications service, with
 * its type, length and byte ranges. The caller never sees a provider URL or token; a media id that no
 * message of a conversation the caller sees carries is 404, whoever else holds it.
 */
import type { Db } from '../../../db/client.js';
import { notFound, AppError } from '../../../platform/errors.js';
import { isCommunicationsError, type CommunicationsClient, type MediaStream } from '../../../integrations/communications/index.js';
import type { CommunicationsConfigService } from '../communications/index.js';
import { viewerHasMedia, viewerOf, type ViewerSource } from '../conversations/index.js';

export interface MediaProxyService {
  /** Errors: 404 `not_found`; 502 `communications_unavailable` when the service cannot give the bytes. */
  open(p: ViewerSource, mediaId: string, range: string | undefined): Promise<MediaStream>;
}

export function createMediaProxyService(deps: { db: Db; client: CommunicationsClient; config: CommunicationsConfigService }): MediaProxyService {
  return {
    async open(p, mediaId, range) {
      const entityId = p.entityId;
      if (!(await viewerHasMedia(deps.db, viewerOf(p), mediaId))) throw notFound('media', mediaId);
      const target = await deps.config.resolveTarget(entityId);
      try {
        return await deps.client.fetchMedia(target, mediaId, { range });
      } catch (err) {
        if (isCommunicationsError(err) && err.details.status === 404) throw notFound('media', mediaId);
        if (isCommunicationsError(err)) throw new AppError(502, 'communications_unavailable', 'Bad gateway', `The media could not be fetched: ${err.message}`);
        throw err;
      }
    },
  };
}
