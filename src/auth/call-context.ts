/** What a service needs to know about the call it serves: who asks, and the request id for the audit log. */
import type { Identity } from './identity.js';

export interface CallContext {
  identity: Identity;
  requestId: string | null;
}
