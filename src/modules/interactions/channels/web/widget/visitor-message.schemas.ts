import { Type, type Static } from 'typebox';

/** A message as the visitor sees it (the visitor API's history and the socket's `widget.message`). */
export const VisitorMessage = Type.Object({
  id: Type.Integer(),
  author: Type.Union([Type.Literal('visitor'), Type.Literal('agent')]),
  type: Type.String(),
  text: Type.Union([Type.String(), Type.Null()], { description: 'Plain text: never HTML' }),
  media: Type.Union([Type.Object({ url: Type.String(), kind: Type.String(), filename: Type.Union([Type.String(), Type.Null()]) }), Type.Null()]),
  status: Type.Union([Type.String(), Type.Null()]),
  occurred_at: Type.String({ format: 'date-time' }),
});
export type VisitorMessage = Static<typeof VisitorMessage>;
