export {
  createCommunicationsClient,
  type CommunicationsClient,
  type CommunicationsTarget,
  type CommunicationsPlatform,
  type MediaStream,
} from './communications.client.js';
export { isCommunicationsError } from './communications.errors.js';
