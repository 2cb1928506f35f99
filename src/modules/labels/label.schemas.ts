import { Type, type Static } from 'typebox';
import { Id } from '../../platform/http/ids.js';
import { NullableString, StringEnum } from '../../platform/http/schema-types.js';

/** A label's colour: `#rrggbb`. */
const Color = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: '`#rrggbb`', examples: ['#2f80ed'] });
const Name = Type.String({ minLength: 1, maxLength: 50, pattern: '\\S', description: 'Unique within the entity, whatever its case' });

export const LabelResponse = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  color: Type.String(),
  description: NullableString(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type LabelResponse = Static<typeof LabelResponse>;
export const LabelListResponse = Type.Object({ data: Type.Array(LabelResponse) });

export const CreateLabelBody = Type.Object(
  { name: Name, color: Color, description: Type.Optional(NullableString({ maxLength: 200 })) },
  { additionalProperties: false },
);
export type CreateLabelBody = Static<typeof CreateLabelBody>;
export const UpdateLabelBody = Type.Object(
  { name: Type.Optional(Name), color: Type.Optional(Color), description: Type.Optional(NullableString({ maxLength: 200 })) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateLabelBody = Static<typeof UpdateLabelBody>;

/** Label ids of a request: each at most once, up to 20 (a filter or what to add or remove). */
export const LabelIds = Type.Array(Id, { minItems: 1, maxItems: 20, uniqueItems: true });

/**
 * A label on a conversation: its id (name and colour: GET /labels) and where it comes from, the conversation
 * itself, its contact or its lead (a label on more than one of them is listed once, from the nearest).
 */
export const AppliedLabel = Type.Object({
  id: Type.Integer(),
  source: StringEnum(['conversation', 'contact', 'lead']),
});
export type AppliedLabel = Static<typeof AppliedLabel>;

/** The list filters every labelled list takes (conversations, contacts, leads, the cartera). */
export const LabelFilterQuery = {
  label: Type.Optional({ ...LabelIds, description: 'Any of these labels (repeat the parameter: `label=3&label=8`)' }),
  label_all: Type.Optional({ ...LabelIds, description: 'All of these labels (repeat the parameter)' }),
};

/** Adding labels to one subject. */
export const AddLabelsBody = Type.Object({ label_ids: LabelIds }, { additionalProperties: false });
export type AddLabelsBody = Static<typeof AddLabelsBody>;
export const LabelParams = Type.Object({ id: Id, label_id: Id });
