/** Channel accounts: an entity's messaging accounts (`/entity-channel-accounts`, codes `entity_channel_accounts.*`) and their registration from inbound events. */
export { PLATFORM_CODE_VALUES, existingAccountIds, insertAccountIfAbsent, registerAccount } from './entity-channel-account.repository.js';
export type { ChannelAccountRef } from './entity-channel-account.repository.js';
export { entityChannelAccountRoutes } from './entity-channel-account.routes.js';
export { createEntityChannelAccountService } from './entity-channel-account.service.js';
