/**
 * The quote state machine (SPEC leaves quote states unshown; docs/decisions.md "Commerce"):
 *   draft → sent → approved | rejected
 *   draft | sent → expired, once `valid_until` (a date, in the entity's zone) has passed
 * Only a draft can be edited. Every other move is refused with 409 `invalid_transition`.
 */
import { conflict } from '../../platform/errors.js';
import type { QuoteStatus } from './commerce.table.js';

export type QuoteAction = 'send' | 'approve' | 'reject';

const MOVES: Record<QuoteAction, { from: QuoteStatus; to: QuoteStatus }> = {
  send: { from: 'draft', to: 'sent' },
  approve: { from: 'sent', to: 'approved' },
  reject: { from: 'sent', to: 'rejected' },
};

/** The status a quote really has on `today` (YYYY-MM-DD): an open quote past its validity is expired. */
export function effectiveStatus(status: QuoteStatus, validUntil: string, today: string): QuoteStatus {
  return (status === 'draft' || status === 'sent') && validUntil < today ? 'expired' : status;
}

/** The status `action` leads to from `current`; 409 `invalid_transition` when the machine has no such move. */
export function transition(current: QuoteStatus, action: QuoteAction): QuoteStatus {
  const move = MOVES[action];
  if (current !== move.from) {
    throw conflict('invalid_transition', `A ${current} quote cannot be ${action === 'send' ? 'sent' : `${action}d`}`, { status: current, action });
  }
  return move.to;
}

/** 409 `quote_not_editable` unless the quote is a draft. */
export function assertEditable(current: QuoteStatus): void {
  if (current !== 'draft') throw conflict('quote_not_editable', `A ${current} quote cannot be changed; only drafts can`, { status: current });
}
