/**
 * The conversation lifecycle's transition table (issue 30; docs/decisions.md "Conversation lifecycle"),
 * written once: the routes, the service, the documentation and the exhaustive test read it.
 *
 * | from \ action | resolve  | reopen | pending | snooze            | inbound message |
 * |---------------|----------|--------|---------|-------------------|-----------------|
 * | open          | resolved | 409    | pending | snoozed           | open (no change)|
 * | pending       | resolved | open   | 409     | snoozed           | open            |
 * | snoozed       | resolved | open   | pending | snoozed (moved)   | open            |
 * | resolved      | 409      | open   | 409     | 409               | open            |
 *
 * A 409 is `status_transition_not_allowed` with `conversation_status` and `action`. A snooze's
 * `until` must lie in the future and at most `MAX_SNOOZE_DAYS` ahead (422 `snooze_until_invalid`).
 */
import { conflict, unprocessable } from '../../../platform/errors.js';
import type { ConversationStatus } from '../model/index.js';

export const LIFECYCLE_ACTIONS = ['resolve', 'reopen', 'pending', 'snooze'] as const;
export type LifecycleAction = (typeof LIFECYCLE_ACTIONS)[number];

/** The status each action leads to. */
export const ACTION_TARGET: Readonly<Record<LifecycleAction, ConversationStatus>> = {
  resolve: 'resolved',
  reopen: 'open',
  pending: 'pending',
  snooze: 'snoozed',
};

/** The statuses each action may start from (the table above). */
export const ALLOWED_FROM: Readonly<Record<LifecycleAction, readonly ConversationStatus[]>> = {
  resolve: ['open', 'pending', 'snoozed'],
  reopen: ['pending', 'snoozed', 'resolved'],
  pending: ['open', 'snoozed'],
  // snoozed → snoozed moves the snooze to the new instant.
  snooze: ['open', 'pending', 'snoozed'],
};

/** Statuses an inbound message moves back to `open`. */
export const REOPENED_BY_INBOUND: readonly ConversationStatus[] = ['pending', 'snoozed', 'resolved'];

const MAX_SNOOZE_DAYS = 365;

/** Throws 409 `status_transition_not_allowed` when `action` makes no sense from `from`. */
export function assertTransition(from: ConversationStatus, action: LifecycleAction): void {
  if (!ALLOWED_FROM[action].includes(from))
    throw conflict('status_transition_not_allowed', `A ${from} conversation cannot be given "${action}"`, { conversation_status: from, action });
}

/** Throws 422 `snooze_until_invalid` unless `until` is after `now` and at most `MAX_SNOOZE_DAYS` later. */
export function assertSnoozeUntil(until: Date, now: Date): void {
  if (until.getTime() <= now.getTime())
    throw unprocessable('snooze_until_invalid', 'until must be in the future', { until: until.toISOString(), now: now.toISOString() });
  if (until.getTime() - now.getTime() > MAX_SNOOZE_DAYS * 86_400_000)
    throw unprocessable('snooze_until_invalid', `until must be at most ${MAX_SNOOZE_DAYS} days ahead`, { until: until.toISOString() });
}
