/**
 * Deletes chats their organization no longer keeps (`chat_retention_days`), every
 * CHAT_PURGE_INTERVAL_MS, as periodic work: one process of the fleet at a time, once per interval
 * (scheduling/periodic-work.ts). The deletes are plain conditions on the store, so even a run
 * forced on two processes at once deletes each chat once.
 */
import type { Kysely } from 'kysely';
import { PeriodicWork, type PeriodicRunOutcome, type PeriodicWorkLogger } from '../scheduling/periodic-work.js';
import { purgeExpiredChats } from '../store/chats-repository.js';
import type { Dialect } from '../store/dialect.js';
import type { Database } from '../store/schema.js';

export const CHAT_RETENTION_PURGE = 'chat-retention-purge';

export interface ChatRetentionPurgerOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  intervalMilliseconds: number;
  runner: string;
  /** Deletes the generated images of the chats purged (generated-image-files.ts). */
  deleteImagesOfDeletedChats: () => Promise<number>;
}

export class ChatRetentionPurger {
  private readonly schedule: PeriodicWork<number>;

  constructor(private readonly options: ChatRetentionPurgerOptions) {
    this.schedule = new PeriodicWork({
      ...options,
      name: CHAT_RETENTION_PURGE,
      work: () => this.purgeOnce(),
      describe: (deleted) => (deleted > 0 ? { deleted } : undefined),
    });
  }

  /** One pass, whatever the schedule says; returns how many chats it deleted. */
  async purgeOnce(now: Date = new Date()): Promise<number> {
    const deleted = await purgeExpiredChats(this.options.db, now);
    await this.options.deleteImagesOfDeletedChats();
    return deleted;
  }

  /** The scheduled pass: skipped when another process runs it now or ran it less than an interval ago. */
  runIfDue(now?: number): Promise<PeriodicRunOutcome<number>> {
    return this.schedule.runIfDue(now);
  }

  start(logger: PeriodicWorkLogger): void {
    this.schedule.start(logger);
  }

  stop(): Promise<void> {
    return this.schedule.stop();
  }
}
