/** The channel catalogue (SPEC "Interactions resources"): each channel, its availability, channel type codes and what it can carry. */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StringEnum } from '../../../platform/http/schema-types.js';
import { CHANNEL_AVAILABILITIES, CHANNELS } from '../model/index.js';
import { OUTBOUND_KINDS, type OutboundKind } from '../message-kinds/index.js';
import { platformCarries } from './channel-registry.js';

const ChannelList = Type.Object({
  data: Type.Array(
    Type.Object({
      channel: Type.String(),
      availability: StringEnum(CHANNEL_AVAILABILITIES),
      channel_type_codes: Type.Array(Type.String(), { description: 'codes an entity channel account of this channel carries; none while planned' }),
      message_types: Type.Array(Type.String(), { description: 'outbound message kinds the channel carries (`POST .../messages/<kind>`); none while planned' }),
    }),
  ),
});
/** The channel catalogue as served: message types from what the platform's message builder carries. */
const CHANNEL_LIST = {
  data: CHANNELS.map(({ channel, availability, platform, channel_type_codes }) => ({
    channel,
    availability,
    channel_type_codes: [...channel_type_codes],
    message_types: platform === null ? [] : (Object.keys(OUTBOUND_KINDS) as OutboundKind[]).filter((kind) => platformCarries(platform, kind)),
  })),
};

/** `GET /interactions/channels` (served bare and under /api). */
export const channelRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/interactions/channels',
    {
      config: { auth: 'jwt' },
      schema: { tags: ['interactions'], summary: 'Channels, their availability, channel type codes and message types', response: { 200: ChannelList } },
    },
    async () => CHANNEL_LIST,
  );
};
