/**
 * The `labels` field of trigger contexts (issue 49): the label ids what the event is about carries, ascending. For
 * the events about a conversation, the conversation's `label_ids` (its own, its contact's and its lead's) read
 * through interactions; for the lead events, the lead's own, read through records. Events do not carry them: they
 * are read when a trigger's filters name the field (before matching) and again when a condition naming it runs, so
 * a condition after a wait or a label step sees the set as it is then (docs/decisions.md "Labels in workflows").
 */
import type { ConversationAutomation } from '../interactions/index.js';
import type { TriggerEvent } from './field-registry.js';
import { conversationRef } from './workflow.actions.js';

/** Events whose `labels` are their lead's (the others with the field are about a conversation). */
const LEAD_EVENTS: ReadonlySet<TriggerEvent> = new Set(['lead.created', 'lead.assigned', 'lead.unassigned']);

/** The `labels` of a trigger context of `event`; undefined when it names no conversation (or lead) of its entity. */
export type LabelFieldsReader = (event: TriggerEvent, trigger: Record<string, unknown>) => Promise<number[] | undefined>;

export function createLabelFieldsReader(deps: {
  conversations: Pick<ConversationAutomation, 'labelsOf'>;
  /** The lead's own label ids, ascending (records). */
  leadLabels(leadId: number): Promise<number[]>;
}): LabelFieldsReader {
  return async (event, trigger) => {
    if (LEAD_EVENTS.has(event)) return typeof trigger.lead_id === 'number' ? deps.leadLabels(trigger.lead_id) : undefined;
    const ref = conversationRef(trigger);
    return ref && typeof trigger.entity_id === 'number' ? deps.conversations.labelsOf(trigger.entity_id, ref) : undefined;
  };
}
