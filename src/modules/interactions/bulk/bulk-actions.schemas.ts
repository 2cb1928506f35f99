/** Bodies and answers of `POST /interactions/conversations/bulk` (issue 49, "Bulk actions"). */
import { Type, type Static } from 'typebox';

/** Most conversations one call acts on. */
const BULK_MAX_ITEMS = 500;

const BULK_ACTIONS = ['resolve', 'reopen', 'pending', 'snooze', 'assign', 'unassign'] as const;

export const BulkActionBody = Type.Object(
  {
    action: Type.Union(
      BULK_ACTIONS.map((a) => Type.Literal(a)),
      { description: 'The single action applied to each conversation, with its rules (docs/api/interactions.md, "Bulk actions")' },
    ),
    conversation_ids: Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: BULK_MAX_ITEMS, uniqueItems: true }),
    until: Type.Optional(Type.String({ format: 'date-time', description: '`snooze` only, and required by it' })),
    employee_id: Type.Optional(Type.Integer({ minimum: 1, description: '`assign` only, and required by it' })),
  },
  { additionalProperties: false },
);
export type BulkActionBody = Static<typeof BulkActionBody>;

const ItemResult = Type.Union([
  Type.Object({ id: Type.Integer(), ok: Type.Literal(true) }),
  Type.Object({
    id: Type.Integer(),
    ok: Type.Literal(false),
    status: Type.Integer({ description: 'The HTTP status the single action would have answered' }),
    code: Type.String({ description: "The single action's problem code (`not_found`, `status_transition_not_allowed`, ...)" }),
    detail: Type.String(),
  }),
]);

export const BulkActionResponse = Type.Object({
  action: Type.String(),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  results: Type.Array(ItemResult, { description: 'One per conversation, in the order given' }),
});
export type BulkActionResponse = Static<typeof BulkActionResponse>;
