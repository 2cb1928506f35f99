export { createCommunicationsClient, type CommunicationsClient, type CommunicationsTarget, type CommunicationsPlatform, type SendingAccount } from './communications.client.js';
export { CommunicationsError, isCommunicationsError, type CommunicationsErrorKind } from './communications.errors.js';
