/**
 * The services around kept chats, built together because they share the store, the learner
 * pseudonyms and the process's lease name: the chats themselves with their running answers, the
 * learners' ratings, the owner's insights that chat answers feed, and the retention purge.
 */
import type { Settings } from '../config/settings.js';
import type { CompletionService } from '../completions/completion-service.js';
import { InsightsService } from '../insights/insights-service.js';
import type { Store } from '../store/store.js';
import { AnswerFeedbackService } from './answer-feedback-service.js';
import { ChatRetentionPurger } from './chat-retention-purger.js';
import { ChatRunKeeper } from './chat-run-keeper.js';
import { ChatService } from './chat-service.js';

export interface ChatServices {
  chats: ChatService;
  /** Ratings of answers: the chat owner's, and members' for an assistant's managers. */
  answerFeedback: AnswerFeedbackService;
  /** An assistant's use by learners, for whoever manages it (docs/assistant-insights.md). */
  insights: InsightsService;
  /** Not started here: main.ts (and the test server) start it and stop it on shutdown. */
  chatRetentionPurger: ChatRetentionPurger;
}

export interface ChatServicesOptions {
  store: Store;
  settings: Settings;
  completions: CompletionService;
  /** A learner's stable pseudonym: a keyed digest of their id, never reversible without the key. */
  pseudonymDigest: (userId: number) => string;
  /** This process's name on the leases it holds. */
  leaseOwner: string;
  /** Aborts when the server stops. */
  serverStopping: AbortSignal;
  /** Deletes the generated images of chats that no longer exist (generated-image-files.ts). */
  deleteImagesOfDeletedChats: () => Promise<number>;
}

export function createChatServices(options: ChatServicesOptions): ChatServices {
  const { store, settings, completions, pseudonymDigest, leaseOwner, serverStopping, deleteImagesOfDeletedChats } = options;
  return {
    chats: new ChatService({
      db: store.db,
      completions,
      limits: {
        messagesMaximum: settings.chatMessagesMaximum,
        topicTermsPerQuestionMaximum: settings.insightsTopicTermsPerQuestionMaximum,
      },
      runs: new ChatRunKeeper({
        db: store.db,
        dialect: store.dialect,
        leaseMilliseconds: settings.chatRunLeaseMilliseconds,
        leaseOwner,
        unwatchedMillisecondsMaximum: settings.chatRunUnwatchedSecondsMaximum * 1_000,
        runsPerUserMaximum: settings.chatRunsPerUserMaximum,
        serverStopping,
      }),
      pseudonymDigest,
      deleteImagesOfDeletedChats,
    }),
    answerFeedback: new AnswerFeedbackService({ db: store.db, pseudonymDigest, turnsMaximum: settings.insightsFeedbackTurnsMaximum }),
    insights: new InsightsService({
      db: store.db,
      limits: {
        rangeDaysMaximum: settings.usageRangeDaysMaximum,
        topicsMaximum: settings.insightsTopicsMaximum,
        topicQuestionsMinimum: settings.insightsTopicQuestionsMinimum,
        sourcesMaximum: settings.insightsSourcesMaximum,
      },
    }),
    chatRetentionPurger: new ChatRetentionPurger({
      db: store.db,
      dialect: store.dialect,
      intervalMilliseconds: settings.chatPurgeIntervalMilliseconds,
      runner: leaseOwner,
      deleteImagesOfDeletedChats,
    }),
  };
}
