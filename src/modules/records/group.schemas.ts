import { Type, type Static } from 'typebox';
import { pageOf, pageQuery } from '../../platform/http/pagination.js';

export const GroupResponse = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type GroupResponse = Static<typeof GroupResponse>;
export const GroupListResponse = pageOf(GroupResponse);

export const GroupListQuery = Type.Object({
  ...pageQuery(50),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Case-insensitive substring of the name' })),
});
export type GroupListQuery = Static<typeof GroupListQuery>;

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
export const CreateGroupBody = Type.Object({ name: Name }, { additionalProperties: false });
export type CreateGroupBody = Static<typeof CreateGroupBody>;
export const UpdateGroupBody = Type.Object({ name: Type.Optional(Name) }, { additionalProperties: false, minProperties: 1 });
export type UpdateGroupBody = Static<typeof UpdateGroupBody>;
