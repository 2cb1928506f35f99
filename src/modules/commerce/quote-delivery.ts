/**
 * A quote as a PDF, downloaded or sent into a conversation as a document message: the PDF is stored as a
 * media object of the entity (media module) and sent through the conversations-out path (interactions),
 * so the service window, channel rules and delivery states apply. Sending a draft marks it sent.
 */
import type { Principal } from '../../platform/auth/authenticator.js';
import { notFound } from '../../platform/errors.js';
import type { OutboundService } from '../interactions/index.js';
import type { MediaService } from '../media/index.js';
import type { PartyLookups } from './commerce-parties.js';
import { renderQuotePdf } from './quote-pdf.js';
import type { QuoteService } from './quote.service.js';
import type { QuoteResponse } from './quote.schemas.js';

export interface QuoteDeliveryDeps {
  quotes: Pick<QuoteService, 'get' | 'move'>;
  lookups: Pick<PartyLookups, 'lead'>;
  entityName(entityId: number): Promise<string>;
  media: Pick<MediaService, 'ingest'>;
  outbound: Pick<OutboundService, 'send'>;
  /** Whether conversation `id` is the entity's (interactions). */
  /** Whether `p` sees conversation `id` (interactions' visibility rule; another entity's is never seen). */
  conversationExists(p: Principal, id: number): Promise<boolean>;
}

export function createQuoteDelivery(deps: QuoteDeliveryDeps) {
  async function pdfOf(p: Principal, quote: QuoteResponse) {
    const lead = await deps.lookups.lead(p.entityId, quote.lead_id);
    return renderQuotePdf(quote, { entityName: await deps.entityName(p.entityId), leadName: lead?.name ?? `Lead ${quote.lead_id}` });
  }

  return {
    /** The PDF of quote `id` as a stream, with its file name. 404 for another entity's quote. */
    async pdf(p: Principal, id: number) {
      const quote = await deps.quotes.get(p, id);
      return { fileName: `cotizacion-${quote.id}.pdf`, stream: await pdfOf(p, quote) };
    },

    /**
     * Sends the PDF into conversation `conversationId` as a document (caption: number and total); a draft
     * moves to sent first (409 `invalid_transition` for a quote that can no longer be sent: approved,
     * rejected, expired). Returns the message, pending.
     */
    async sendToConversation(p: Principal, id: number, conversationId: number) {
      if (!(await deps.conversationExists(p, conversationId))) throw notFound('conversation', conversationId);
      let quote = await deps.quotes.get(p, id);
      if (quote.status === 'draft') quote = await deps.quotes.move(p, id, 'send');
      else if (quote.status !== 'sent') await deps.quotes.move(p, id, 'send'); // refused with 409 for the record
      const fileName = `cotizacion-${quote.id}.pdf`;
      const stored = await deps.media.ingest(p, {
        file: await pdfOf(p, quote),
        fileName,
        contentType: 'application/pdf',
        kind: 'document',
        truncated: () => false,
      });
      return deps.outbound.send({ entityId: p.entityId, employeeId: p.employeeId, permissions: p.permissions }, conversationId, {
        kind: 'document',
        body: { media_id: stored.id, filename: fileName, caption: `Cotización No. ${quote.id}: ${quote.currency} ${quote.total}` },
      });
    },
  };
}

export type QuoteDelivery = ReturnType<typeof createQuoteDelivery>;
