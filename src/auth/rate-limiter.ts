/**
 * Rate limits kept in the store (DESIGN §9), so they hold across every process sharing one
 * database: failed logins per account and per client address, and chat requests per user and per
 * API key. Subjects are built here from safe identifiers only: an email is hashed before it
 * becomes a subject, so neither the store nor a log ever holds what someone typed.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Settings } from '../config/settings.js';
import { AppError } from '../errors/app-error.js';
import {
  clearRateLimitCounter,
  countRateLimitEvent,
  pruneRateLimitCounters,
  readRateLimitCounter,
  type CounterState,
} from '../store/rate-limit-repository.js';
import { RateLimitEventBatcher } from '../store/rate-limit-event-batcher.js';
import type { Database } from '../store/schema.js';
import type { Identity } from './identity.js';

/** Counters older than the longest window are deleted at most this often per process. */
const PRUNE_INTERVAL_MILLISECONDS = 3_600_000;

export interface Limit {
  maximum: number;
  windowMilliseconds: number;
}

export type LoginLimitScope = 'account' | 'address';

export interface LoginSubjects {
  account: string;
  address: string;
}

/** The rate-limit answer a client gets: 429 with the seconds until the window ends, also sent as Retry-After. */
export function rateLimited(message: string, retryAfterSeconds: number): AppError {
  return new AppError('rate_limited', message, { details: { retry_after_seconds: retryAfterSeconds } });
}

function secondsUntilWindowEnds(state: CounterState, limit: Limit, now: number): number {
  return Math.max(1, Math.ceil((state.windowStartedAt + limit.windowMilliseconds - now) / 1000));
}

export class RateLimiter {
  private readonly loginAccountLimit: Limit;
  private readonly loginAddressLimit: Limit;
  private readonly chatUserLimit: Limit;
  private readonly chatApiKeyLimit: Limit;
  private readonly ltiLaunchLimit: Limit;
  /** Chat requests are counted in batches; both chat limits share one window length. */
  private readonly chatEvents: RateLimitEventBatcher;
  private lastPrune = 0;

  constructor(
    private readonly db: Kysely<Database>,
    settings: Pick<
      Settings,
      | 'loginFailuresPerAccountMaximum'
      | 'loginFailuresPerAddressMaximum'
      | 'loginFailureWindowSeconds'
      | 'chatRequestsPerUserMaximum'
      | 'chatRequestsPerApiKeyMaximum'
      | 'chatRateWindowSeconds'
      | 'ltiLaunchesPerAddressMaximum'
      | 'ltiLaunchWindowSeconds'
    >,
  ) {
    const loginWindow = settings.loginFailureWindowSeconds * 1000;
    this.loginAccountLimit = { maximum: settings.loginFailuresPerAccountMaximum, windowMilliseconds: loginWindow };
    this.loginAddressLimit = { maximum: settings.loginFailuresPerAddressMaximum, windowMilliseconds: loginWindow };
    const chatWindow = settings.chatRateWindowSeconds * 1000;
    this.chatUserLimit = { maximum: settings.chatRequestsPerUserMaximum, windowMilliseconds: chatWindow };
    this.chatApiKeyLimit = { maximum: settings.chatRequestsPerApiKeyMaximum, windowMilliseconds: chatWindow };
    this.chatEvents = new RateLimitEventBatcher(db, chatWindow);
    this.ltiLaunchLimit = { maximum: settings.ltiLaunchesPerAddressMaximum, windowMilliseconds: settings.ltiLaunchWindowSeconds * 1000 };
  }

  /** Counts one LTI login or launch from a client address; throws 429 past the limit. */
  async admitLtiLaunch(clientAddress: string): Promise<void> {
    const now = Date.now();
    this.pruneNow(now);
    const limit = this.ltiLaunchLimit;
    const state = await countRateLimitEvent(this.db, `lti-launch-address:${clientAddress}`, now, limit.windowMilliseconds);
    if (state.count > limit.maximum) {
      const retryAfterSeconds = secondsUntilWindowEnds(state, limit, now);
      throw rateLimited(`Too many LTI launches from this address; try again in ${retryAfterSeconds} seconds.`, retryAfterSeconds);
    }
  }

  loginSubjects(email: string, clientAddress: string): LoginSubjects {
    const emailHash = createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
    return { account: `login-account:${emailHash}`, address: `login-address:${clientAddress}` };
  }

  private loginLimit(scope: LoginLimitScope): Limit {
    return scope === 'account' ? this.loginAccountLimit : this.loginAddressLimit;
  }

  /** The first login limit that is used up, with the seconds until it frees, or undefined when login may be tried. */
  async loginLockout(subjects: LoginSubjects): Promise<{ scope: LoginLimitScope; retryAfterSeconds: number } | undefined> {
    const now = Date.now();
    for (const scope of ['account', 'address'] as const) {
      const limit = this.loginLimit(scope);
      const state = await readRateLimitCounter(this.db, subjects[scope], now, limit.windowMilliseconds);
      if (state !== undefined && state.count >= limit.maximum)
        return { scope, retryAfterSeconds: secondsUntilWindowEnds(state, limit, now) };
    }
    return undefined;
  }

  /** Counts a failed login against both subjects; answers the scopes this failure just locked. */
  async recordLoginFailure(subjects: LoginSubjects): Promise<Array<{ scope: LoginLimitScope; retryAfterSeconds: number }>> {
    const now = Date.now();
    this.pruneNow(now);
    const lockedNow: Array<{ scope: LoginLimitScope; retryAfterSeconds: number }> = [];
    for (const scope of ['account', 'address'] as const) {
      const limit = this.loginLimit(scope);
      const state = await countRateLimitEvent(this.db, subjects[scope], now, limit.windowMilliseconds);
      if (state.count === limit.maximum) lockedNow.push({ scope, retryAfterSeconds: secondsUntilWindowEnds(state, limit, now) });
    }
    return lockedNow;
  }

  /** A successful login forgets the account's failures; the address's stay, so one known password cannot reset them. */
  async recordLoginSuccess(subjects: LoginSubjects): Promise<void> {
    await clearRateLimitCounter(this.db, subjects.account);
  }

  /** Counts one chat request against its user and, when made with one, its API key; throws 429 past either limit. */
  async admitChatRequest(identity: Identity): Promise<void> {
    const now = Date.now();
    this.pruneNow(now);
    const counted: Array<{ subject: string; limit: Limit; what: string }> = [
      { subject: `chat-user:${identity.userId}`, limit: this.chatUserLimit, what: 'this user' },
    ];
    if (identity.credential === 'api_key')
      counted.push({ subject: `chat-api-key:${identity.credentialId}`, limit: this.chatApiKeyLimit, what: 'this API key' });
    // One statement counts the request against the user and the key, together with the other
    // requests of this turn of the event loop (rate-limit-event-batcher.ts). A request its user's
    // limit refuses thus still counts against its key too.
    const states = await this.chatEvents.count(counted.map((entry) => entry.subject));
    for (const { subject, limit, what } of counted) {
      const state = states.get(subject);
      if (state !== undefined && state.count > limit.maximum) {
        const retryAfterSeconds = secondsUntilWindowEnds(state, limit, now);
        throw rateLimited(
          `Too many chat requests for ${what}: at most ${limit.maximum} every ${limit.windowMilliseconds / 1000} seconds; try again in ${retryAfterSeconds} seconds.`,
          retryAfterSeconds,
        );
      }
    }
  }

  /** Deletes long-expired counters now and then; a failure here must never fail the request that triggered it. */
  private pruneNow(now: number): void {
    if (now - this.lastPrune < PRUNE_INTERVAL_MILLISECONDS) return;
    this.lastPrune = now;
    const longest = Math.max(
      this.loginAccountLimit.windowMilliseconds,
      this.chatUserLimit.windowMilliseconds,
      this.ltiLaunchLimit.windowMilliseconds,
    );
    pruneRateLimitCounters(this.db, now - longest).catch(() => undefined);
  }
}
