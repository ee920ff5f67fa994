/**
 * Rate limits kept in the store (DESIGN §9), so they hold across every process sharing one
 * database: failed logins per account and per client address, chat requests per user and per
 * API key, and self sign-ups per client address. Subjects are built here from safe identifiers only: an email is hashed before it
 * becomes a subject, so neither the store nor a log ever holds what someone typed.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Settings } from '../config/settings.js';
import { AppError } from '../errors/app-error.js';
import {
  clearRateLimitCounter,
  countRateLimitEvent,
  countRateLimitEvents,
  pruneRateLimitCounters,
  releaseRateLimitEvent,
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

const LOGIN_LIMIT_SCOPES: readonly LoginLimitScope[] = ['account', 'address'];

export interface LoginSubjects {
  account: string;
  address: string;
}

/** A login attempt's place in the account's and the address's windows, held while its password is checked. */
export interface LoginReservation {
  subjects: LoginSubjects;
  places: Record<LoginLimitScope, CounterState>;
}

export type LoginAdmission =
  { admitted: true; reservation: LoginReservation } | { admitted: false; scope: LoginLimitScope; retryAfterSeconds: number };

/** The rate-limit answer a client gets: 429 with the seconds until the window ends, also sent as Retry-After. */
export function rateLimited(message: string, retryAfterSeconds: number): AppError {
  return new AppError('rate_limited', message, { details: { retry_after_seconds: retryAfterSeconds } });
}

/**
 * Never more than the window itself: a concurrent request (here or in another process) may have
 * opened the window a few milliseconds after this request read its clock.
 */
export function secondsUntilWindowEnds(state: CounterState, limit: Limit, now: number): number {
  const windowSeconds = Math.ceil(limit.windowMilliseconds / 1000);
  const remaining = Math.ceil((state.windowStartedAt + limit.windowMilliseconds - now) / 1000);
  return Math.min(windowSeconds, Math.max(1, remaining));
}

export class RateLimiter {
  private readonly loginAccountLimit: Limit;
  private readonly loginAddressLimit: Limit;
  private readonly chatUserLimit: Limit;
  private readonly chatApiKeyLimit: Limit;
  private readonly ltiLaunchLimit: Limit;
  private readonly signUpLimit: Limit;
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
      | 'signUpAttemptsPerAddressMaximum'
      | 'signUpWindowSeconds'
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
    this.signUpLimit = { maximum: settings.signUpAttemptsPerAddressMaximum, windowMilliseconds: settings.signUpWindowSeconds * 1000 };
  }

  /**
   * Counts one self sign-up from a client address, before its key or password is looked at, in
   * one atomic statement (so a burst on several processes is held to the limit too). Every
   * attempt counts, successful or not: a right key must not let one address make accounts
   * without end. Throws 429 past the limit.
   */
  async admitSignUpAttempt(clientAddress: string): Promise<void> {
    const now = Date.now();
    this.pruneNow(now);
    const limit = this.signUpLimit;
    const state = await countRateLimitEvent(this.db, `sign-up-address:${clientAddress}`, now, limit.windowMilliseconds);
    if (state.count > limit.maximum) {
      const retryAfterSeconds = secondsUntilWindowEnds(state, limit, now);
      throw rateLimited(`Too many sign-ups from this address; try again in ${retryAfterSeconds} seconds.`, retryAfterSeconds);
    }
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

  /**
   * Takes a place in both login windows before the password is checked, in one atomic statement,
   * so the attempts of a burst (on one process or many) each see the others: at most the maximum
   * are ever admitted to the slow hash. An admitted attempt keeps its place when it fails (it is
   * the failure the limit counts) and gives it back when it succeeds; a refused one gives its
   * places back at once, so waiting out a lock-out never lengthens it.
   */
  async admitLoginAttempt(subjects: LoginSubjects): Promise<LoginAdmission> {
    const now = Date.now();
    this.pruneNow(now);
    const counted = await countRateLimitEvents(
      this.db,
      new Map([
        [subjects.account, 1],
        [subjects.address, 1],
      ]),
      now,
      this.loginAccountLimit.windowMilliseconds,
    );
    const places = { account: counted.get(subjects.account)!, address: counted.get(subjects.address)! };
    const reservation: LoginReservation = { subjects, places };
    for (const scope of LOGIN_LIMIT_SCOPES) {
      const limit = this.loginLimit(scope);
      if (places[scope].count > limit.maximum) {
        await this.releaseLoginAttempt(reservation);
        return { admitted: false, scope, retryAfterSeconds: secondsUntilWindowEnds(places[scope], limit, now) };
      }
    }
    return { admitted: true, reservation };
  }

  /** The attempt's password was wrong: its places stay counted. Answers the scopes this failure just used up. */
  loginFailed(reservation: LoginReservation): Array<{ scope: LoginLimitScope; retryAfterSeconds: number }> {
    const now = Date.now();
    return LOGIN_LIMIT_SCOPES.flatMap((scope) => {
      const limit = this.loginLimit(scope);
      const place = reservation.places[scope];
      return place.count === limit.maximum ? [{ scope, retryAfterSeconds: secondsUntilWindowEnds(place, limit, now) }] : [];
    });
  }

  /** A successful login forgets the account's failures; the address's stay, so one known password cannot reset them. */
  async loginSucceeded(reservation: LoginReservation): Promise<void> {
    await clearRateLimitCounter(this.db, reservation.subjects.account);
    await releaseRateLimitEvent(this.db, reservation.subjects.address, reservation.places.address.windowStartedAt);
  }

  /** Gives back both places of an attempt that was not a failed guess (refused, or a right password for a disabled account). */
  async releaseLoginAttempt(reservation: LoginReservation): Promise<void> {
    for (const scope of LOGIN_LIMIT_SCOPES)
      await releaseRateLimitEvent(this.db, reservation.subjects[scope], reservation.places[scope].windowStartedAt);
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
      this.signUpLimit.windowMilliseconds,
    );
    pruneRateLimitCounters(this.db, now - longest).catch(() => undefined);
  }
}
