/**
 * Every migration, in order. Names sort lexically and are recorded in the store, so a migration
 * is never renamed or edited once released: add a new one instead.
 */
import { oneTimePasswordsMigration } from './0073-one-time-passwords.js';
import { usageDailyAndModelPricesMigration } from './0074-usage-daily-and-model-prices.js';
import { usageReportsAndUploadersMigration } from './0078-usage-reports-and-uploaders.js';
import { organizationSignUpMigration } from './0076-organization-sign-up.js';
import { quotaReservationsAndAssistantQuotasMigration } from './0077-quota-reservations-and-assistant-quotas.js';
import { auditLogOrganizationIndexMigration } from './0079-audit-log-organization-index.js';
import { assistantTestsMigration } from './0080-assistant-tests.js';
import { usageRollUpsByAssistantAndPersonMigration } from './0083-usage-roll-ups-by-assistant-and-person.js';
import { testRunLeasesMigration } from './0084-test-run-leases.js';
import { usageQuarterlyPeopleMigration } from './0086-usage-quarterly-people.js';
import { mcpServersMigration } from './0087-mcp-servers.js';
import { mcpSessionsMigration } from './0089-mcp-sessions.js';
import { generatedImageFilesMigration } from './0090-generated-image-files.js';
import { entityGraphMigration } from './0091-entity-graph.js';
import { webCrawlsAndPageRefreshMigration } from './0093-web-crawls-and-page-refresh.js';
import { perKnowledgeBaseSearchIndexMigration } from './0094-per-knowledge-base-search-index.js';
import { documentTextsInTheStoreMigration } from './0095-document-texts-in-the-store.js';
import { titleFieldLengthsMigration } from './0096-title-field-lengths.js';
import { indexVersionMigration } from './0097-index-version.js';
import { chunkTermListsMigration } from './0098-chunk-term-lists.js';
import { noTermCountsMigration } from './0099-no-term-counts.js';
import { postingsFoundByTheirKeyMigration } from './0100-postings-found-by-their-key.js';
import { rateLimitCountersWithoutWindowIndexMigration } from './0101-rate-limit-counters-without-window-index.js';
import { chatRunsMigration } from './0070-chat-runs.js';
import type { Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { foundationMigration } from './0001-foundation.js';
import { filesMigration } from './0002-files.js';
import { tracesAndUsageMigration } from './0003-traces-and-usage.js';
import { rubricsMigration } from './0004-rubrics.js';
import { knowledgeBasesMigration } from './0005-knowledge-bases.js';
import { ingestionJobsMigration } from './0006-ingestion-jobs.js';
import { chunkEmbeddingsMigration } from './0007-chunk-embeddings.js';
import { documentPageCountMigration } from './0008-document-page-count.js';
import { apiKeyTrustAndExpiryMigration } from './0009-api-key-trust-and-expiry.js';
import { rubricIdsPerOrganizationMigration } from './0010-rubric-ids-per-organization.js';
import { rateLimitCountersMigration } from './0011-rate-limit-counters.js';
import { ingestionAttemptsSinceQueuedMigration } from './0012-ingestion-attempts-since-queued.js';
import { assistantOrchestratorFlagMigration } from './0013-assistant-orchestrator-flag.js';
import { ltiMigration } from './0030-lti.js';
import { chatsMigration } from './0014-chats.js';
import { blobsMigration } from './0050-blobs.js';
import { periodicRunsMigration } from './0051-periodic-runs.js';
import { ltiLoginBindingMigration } from './0060-lti-login-binding.js';
import { documentUploadLeaseMigration } from './0061-document-upload-lease.js';
import { answerVersionsAndFeedbackMigration } from './0071-answer-versions-and-feedback.js';
import { knowledgeBaseLanguageMigration } from './0072-knowledge-base-language.js';
import { assistantInsightsRollUpsMigration } from './0081-assistant-insights-roll-ups.js';
import { templatesMigration } from './0082-templates.js';
import { frontEndLearnersAndSourceLinksMigration } from './0088-front-end-learners-and-source-links.js';

export function allMigrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001-foundation': foundationMigration(dialect),
    '0002-files': filesMigration(dialect),
    '0003-traces-and-usage': tracesAndUsageMigration(dialect),
    '0004-rubrics': rubricsMigration(dialect),
    '0005-knowledge-bases': knowledgeBasesMigration(dialect),
    '0006-ingestion-jobs': ingestionJobsMigration(dialect),
    '0007-chunk-embeddings': chunkEmbeddingsMigration(dialect),
    '0008-document-page-count': documentPageCountMigration(),
    '0009-api-key-trust-and-expiry': apiKeyTrustAndExpiryMigration(),
    '0010-rubric-ids-per-organization': rubricIdsPerOrganizationMigration(dialect),
    '0011-rate-limit-counters': rateLimitCountersMigration(),
    '0012-ingestion-attempts-since-queued': ingestionAttemptsSinceQueuedMigration(),
    '0013-assistant-orchestrator-flag': assistantOrchestratorFlagMigration(),
    // Numbered apart from 0014 onwards, which other branches add meanwhile.
    '0030-lti': ltiMigration(dialect),
    '0014-chats': chatsMigration(dialect),
    '0050-blobs': blobsMigration(dialect),
    '0051-periodic-runs': periodicRunsMigration(),
    // After the newest migration: Kysely refuses a name sorting before one already run.
    '0060-lti-login-binding': ltiLoginBindingMigration(),
    '0061-document-upload-lease': documentUploadLeaseMigration(),
    '0070-chat-runs': chatRunsMigration(dialect),
    '0071-answer-versions-and-feedback': answerVersionsAndFeedbackMigration(dialect),
    '0072-knowledge-base-language': knowledgeBaseLanguageMigration(),
    '0073-one-time-passwords': oneTimePasswordsMigration(),
    '0074-usage-daily-and-model-prices': usageDailyAndModelPricesMigration(),
    '0076-organization-sign-up': organizationSignUpMigration(),
    '0077-quota-reservations-and-assistant-quotas': quotaReservationsAndAssistantQuotasMigration(dialect),
    '0078-usage-reports-and-uploaders': usageReportsAndUploadersMigration(),
    '0079-audit-log-organization-index': auditLogOrganizationIndexMigration(),
    '0080-assistant-tests': assistantTestsMigration(dialect),
    '0081-assistant-insights-roll-ups': assistantInsightsRollUpsMigration(dialect),
    '0082-templates': templatesMigration(dialect),
    '0083-usage-roll-ups-by-assistant-and-person': usageRollUpsByAssistantAndPersonMigration(dialect),
    '0084-test-run-leases': testRunLeasesMigration(),
    '0086-usage-quarterly-people': usageQuarterlyPeopleMigration(dialect),
    '0087-mcp-servers': mcpServersMigration(dialect),
    '0088-front-end-learners-and-source-links': frontEndLearnersAndSourceLinksMigration(),
    '0089-mcp-sessions': mcpSessionsMigration(dialect),
    '0090-generated-image-files': generatedImageFilesMigration(),
    '0091-entity-graph': entityGraphMigration(dialect),
    '0093-web-crawls-and-page-refresh': webCrawlsAndPageRefreshMigration(dialect),
    '0094-per-knowledge-base-search-index': perKnowledgeBaseSearchIndexMigration(dialect),
    '0095-document-texts-in-the-store': documentTextsInTheStoreMigration(dialect),
    '0096-title-field-lengths': titleFieldLengthsMigration(dialect),
    '0097-index-version': indexVersionMigration(dialect),
    '0098-chunk-term-lists': chunkTermListsMigration(dialect),
    '0099-no-term-counts': noTermCountsMigration(dialect),
    '0100-postings-found-by-their-key': postingsFoundByTheirKeyMigration(dialect),
    '0101-rate-limit-counters-without-window-index': rateLimitCountersWithoutWindowIndexMigration(),
  };
}
