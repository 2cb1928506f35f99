/** The OpenAPI shape of a Meta webhook envelope, shared by the channels whose payloads arrive in one (WhatsApp, Messenger, Instagram). */
import { Type, type TSchema } from 'typebox';

/** One Meta webhook envelope: the app's subscription delivers `entry[]` of one product. */
export function metaEnvelope(object: string, description: string, entryMember: 'changes' | 'messaging'): TSchema {
  return Type.Object(
    {
      object: Type.Literal(object),
      entry: Type.Array(
        Type.Object(
          {
            id: Type.String({ description: 'The WhatsApp Business Account, page or Instagram account id' }),
            time: Type.Optional(Type.Integer({ description: 'Unix time, seconds or milliseconds' })),
            [entryMember]: Type.Array(
              Type.Object(
                {},
                {
                  additionalProperties: true,
                  description: entryMember === 'changes' ? '`{ field, value }` as the Cloud API sends it' : 'A messaging event as Meta sends it',
                },
              ),
            ),
          },
          { additionalProperties: true },
        ),
        { minItems: 1 },
      ),
    },
    { additionalProperties: true, description },
  );
}
