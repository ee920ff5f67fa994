/**
 * Deletes chats their organization no longer keeps (`chat_retention_days`), every
 * CHAT_PURGE_INTERVAL_MS. Every process runs it; the deletes are plain conditions on the store, so
 * runs at the same moment delete each chat once and keep no state of their own.
 */
import type { Kysely } from 'kysely';
import { purgeExpiredChats } from '../store/chats-repository.js';
import type { Database } from '../store/schema.js';

export interface PurgeLogger {
  info(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export class ChatRetentionPurger {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly intervalMilliseconds: number,
  ) {}

  /** One pass; returns how many chats it deleted. */
  async purgeOnce(now: Date = new Date()): Promise<number> {
    return purgeExpiredChats(this.db, now);
  }

  start(logger: PurgeLogger): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      if (this.running !== undefined) return;
      this.running = this.purgeOnce()
        .then((deleted) => {
          if (deleted > 0) logger.info({ deleted }, 'expired chats deleted');
        })
        .catch((error: unknown) => logger.error({ errorName: (error as Error | null | undefined)?.name }, 'chat purge failed'))
        .finally(() => {
          this.running = undefined;
        });
    }, this.intervalMilliseconds);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
