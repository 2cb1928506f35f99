/** Bodies and answers of `POST /interactions/conversations/bulk` (issue 49, "Bulk actions"). */
import { Type, type Static } from 'typebox';
import { BULK_MAX_ITEMS, bulkResponse } from '../../../platform/http/bulk.js';
import { Id } from '../../../platform/http/ids.js';
import { LabelIds } from '../../labels/index.js';

const BULK_ACTIONS = ['resolve', 'reopen', 'pending', 'snooze', 'assign', 'unassign', 'label', 'unlabel'] as const;

export const BulkActionBody = Type.Object(
  {
    action: Type.Union(
      BULK_ACTIONS.map((a) => Type.Literal(a)),
      { description: 'The single action applied to each conversation, with its rules (docs/api/interactions.md, "Bulk actions")' },
    ),
    conversation_ids: Type.Array(Id, { minItems: 1, maxItems: BULK_MAX_ITEMS, uniqueItems: true }),
    until: Type.Optional(Type.String({ format: 'date-time', description: '`snooze` only, and required by it' })),
    employee_id: Type.Optional(Type.Integer({ minimum: 1, description: '`assign` only, and required by it' })),
    label_ids: Type.Optional({ ...LabelIds, description: '`label` and `unlabel` only, and required by them' }),
  },
  { additionalProperties: false },
);
export type BulkActionBody = Static<typeof BulkActionBody>;

export const BulkActionResponse = bulkResponse('conversation');
export type BulkActionResponse = Static<typeof BulkActionResponse>;
