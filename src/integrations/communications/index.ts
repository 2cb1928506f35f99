export { createCommunicationsClient, type CommunicationsClient, type CommunicationsTarget, type CommunicationsPlatform, type SendingAccount, type ProviderTemplate, type ProviderTemplateInput, type MediaStream } from './communications.client.js';
export { CommunicationsError, isCommunicationsError, type CommunicationsErrorKind } from './communications.errors.js';
