/** Builds the services every route uses from the store and settings: the seam between HTTP and the domain. */
import { UsageService } from './usage/usage-service.js';
import { ApiKeyService } from './auth/api-key-service.js';
import { Authenticator, type CachedApiKey } from './auth/authenticator.js';
import type { Identity } from './auth/identity.js';
import { RateLimiter } from './auth/rate-limiter.js';
import { UserService } from './auth/user-service.js';
import { AuditLogService } from './auth/audit-log-service.js';
import { SignUpService } from './auth/sign-up/sign-up-service.js';
import { SignUpSettingsService } from './organizations/sign-up-settings-service.js';
import { OrganizationService } from './organizations/organization-service.js';
import { PasswordChangeService } from './auth/password-change-service.js';
import { passwordRulesOf } from './auth/passwords.js';
import { AssistantService } from './assistants/assistant-service.js';
import { AssistantConversionService } from './assistants/assistant-conversion-service.js';
import { AssistantSharingService } from './assistants/assistant-sharing-service.js';
import { AssistantTransferService } from './assistants/assistant-transfer-service.js';
import { createChatServices, type ChatServices } from './chats/chat-services.js';
import { CompletionService } from './completions/completion-service.js';
import { createEvaluationServices, type EvaluationServices } from './evaluation/evaluation-services.js';
import { RunRecordWriter } from './completions/run-record-writer.js';
import type { Settings } from './config/settings.js';
import { FileService } from './files/file-service.js';
import { GeneratedImageFiles } from './files/generated-image-files.js';
import { HealthService } from './health/health-service.js';
import { ServerDrain } from './health/server-drain.js';
import { runnerOwnerName } from './ingestion/runner-identity.js';
import { IngestionRunner } from './ingestion/ingestion-runner.js';
import { graphStageOf, ingestionRunnerBoundsOf } from './ingestion/ingestion-runner-settings.js';
import { smallFastModelForUploads } from './completions/tool-models.js';
import { KnowledgeBaseService } from './knowledge/knowledge-base-service.js';
import { KnowledgeDocumentService, knowledgeDocumentStorage } from './knowledge/knowledge-document-service.js';
import { KnowledgeJobEventService } from './knowledge/knowledge-job-events.js';
import { webPageReadingOf } from './knowledge/web-page-reading-settings.js';
import { KnowledgePassageService } from './knowledge/knowledge-passage-service.js';
import { WebPageDocuments } from './knowledge/web-page-documents.js';
import { webSourceServices, type WebSourceServices } from './knowledge/web-sources/web-source-services.js';
import { fullTextRankingOf } from './retrieval/full-text-ranking-settings.js';
import { organizationEmbedder } from './retrieval/organization-embedder.js';
import { ProviderSettingsService, type StoredConfig } from './organizations/provider-settings-service.js';
import { OutboundGuard } from './outbound/outbound-guard.js';
import { fetchThrough } from './outbound/fetch-through.js';
import { postThrough, serverAgent } from './outbound/outbound-post.js';
import { OrganizationSettingsService } from './organizations/organization-settings-service.js';
import { PluginCatalogueService } from './organizations/plugin-catalogue-service.js';
import type { Registries } from './pipeline/plugin-loading/registries.js';
import { RubricService } from './rubrics/rubric-service.js';
import { TemplateService } from './templates/template-service.js';
import { SecretBox } from './secrets/secret-box.js';
import type { BlobStorage } from './blobs/blob-storage.js';
import { openBlobStorage, storageUrlFor } from './blobs/open-blob-storage.js';
import { HotReadCache } from './store/hot-read-cache.js';
import type { AssistantQuotaRow, WindowSums } from './store/quota-repository.js';
import { AssistantQuotaService } from './usage/assistant-quota-service.js';
import { QuotaAdmission } from './usage/quota-admission.js';
import { OrganizationControls } from './organizations/organization-controls.js';
import type { Store } from './store/store.js';
import { LtiActivityService } from './lti/lti-activity-service.js';
import { LtiAdvantageService } from './lti/lti-advantage-service.js';
import { LtiLaunchService } from './lti/lti-launch-service.js';
import { LtiRegistrationService } from './lti/lti-registration-service.js';
import { McpServerService } from './organizations/mcp-server-service.js';
import { LtiToolKeys } from './lti/lti-tool-keys.js';
import { ModelListService } from './completions/model-list-service.js';
import { McpService } from './mcp/mcp-service.js';
import { mcpServerLimitsOf, mcpToolLimitsOf } from './mcp/mcp-settings.js';
import { FrontEndPersonService } from './auth/front-end-person-service.js';
import { SourceLinkService } from './knowledge/source-link-service.js';
import { knowledgeDocumentBoundsOf } from './knowledge/knowledge-document-settings.js';
import type { FrontEndServices } from './front-end-services.js';

export interface Services extends ChatServices, EvaluationServices, FrontEndServices, WebSourceServices {
  settings: Settings;
  store: Store;
  /** Where uploaded files and knowledge-base originals live (docs/blob-storage.md); closed on shutdown. */
  blobs: BlobStorage;
  health: HealthService;
  /** This process's graceful stop: readiness fails, then streams still running end with a clear error. */
  drain: ServerDrain;
  authenticator: Authenticator;
  /** Usage logs and traces of runs, written in batches; closed (flushed) when the process stops. */
  runRecords: RunRecordWriter;
  /** Login and chat limits, counted in the store so they hold across processes. */
  rateLimiter: RateLimiter;
  users: UserService;
  organizations: OrganizationService;
  /** Reading the audit log (each service writes its own entries). */
  auditLog: AuditLogService;
  passwordChanges: PasswordChangeService;
  apiKeys: ApiKeyService;
  /** Assistants themselves: create, read, list, update, delete, publish, assistant-tool candidates. */
  assistants: AssistantService;
  /** Who else an assistant is shared with. */
  assistantSharing: AssistantSharingService;
  /** LAMB export documents in and out: import, its dry run, export. */
  assistantTransfer: AssistantTransferService;
  /** Classic → multi-tool conversion and its dry run. */
  assistantConversion: AssistantConversionService;
  files: FileService;
  generatedImages: GeneratedImageFiles;
  rubrics: RubricService;
  /** The template library: prompt and rubric templates (docs/templates.md). */
  templates: TemplateService;
  registries: Registries;
  completions: CompletionService;
  providerSettings: ProviderSettingsService;
  /** The studio's Model list: what each provider serves, asked of the provider and cached. */
  modelLists: ModelListService;
  organizationSettings: OrganizationSettingsService;
  /** The organization's enabled plugins and limits, as runs, saves and uploads read them. */
  organizationControls: OrganizationControls;
  /** The installed plugins, described, with an organization's enabled states (its admins' settings page). */
  pluginCatalogue: PluginCatalogueService;
  /** Self sign-up with an organization's key (docs/sign-up.md). */
  signUps: SignUpService;
  /** An organization's self sign-up as its admins set it: on or off, domain, role, key. */
  signUpSettings: SignUpSettingsService;
  knowledgeBases: KnowledgeBaseService;
  knowledgeDocuments: KnowledgeDocumentService;
  /** Web pages added to a knowledge base by URL (docs/knowledge-bases.md, "Web pages"). */
  webPageDocuments: WebPageDocuments;
  knowledgeJobEvents: KnowledgeJobEventService;
  knowledgePassages: KnowledgePassageService;
  /** Not started here: main.ts (and the test server) start it and stop it on shutdown. */
  ingestionRunner: IngestionRunner;
  ltiRegistrations: LtiRegistrationService;
  ltiLaunches: LtiLaunchService;
  ltiAdvantage: LtiAdvantageService;
  ltiActivities: LtiActivityService;
  ltiToolKeys: LtiToolKeys;
  /** Usage reports from the daily roll-up, and organizations' model prices. */
  usage: UsageService;
  /** Assistants' own monthly cost limits and alerts (docs/quotas.md). */
  assistantQuotas: AssistantQuotaService;
}

/** A day: how long a process keeps the sums of a month's settled days (src/usage/quota-admission.ts). */
const SETTLED_SUMS_LIFETIME_MILLISECONDS = 86_400_000;

export function createServices(store: Store, settings: Settings, registries: Registries): Services {
  const secrets =
    settings.secretKey === undefined ? SecretBox.fromKeyFile(settings.dataDirectory) : SecretBox.fromPassphrase(settings.secretKey);
  // Every URL an organization sets is saved and reached through this guard (DESIGN §9).
  const outbound = new OutboundGuard({
    allowedHosts: settings.outboundAllowedHosts,
    responseBytesMaximum: settings.upstreamResponseBytesMaximum,
  });
  // Per-process caches of hot reads, each bounded in age so several processes stay consistent (docs/deployment.md, "Caches").
  const cacheBounds = { entriesMaximum: settings.hotReadCacheEntriesMaximum };
  const apiKeyIdentities = new HotReadCache<string, CachedApiKey>({
    ...cacheBounds,
    lifetimeMilliseconds: settings.apiKeyCacheMilliseconds,
  });
  const owners = new HotReadCache<number, Identity>({ ...cacheBounds, lifetimeMilliseconds: settings.hotReadCacheMilliseconds });
  /** After a change to a person's account, this process reads their identity afresh. */
  const forgetPeople = (): void => {
    apiKeyIdentities.clear();
    owners.clear();
  };
  const organizationSettings = new HotReadCache<number, StoredConfig>({
    ...cacheBounds,
    lifetimeMilliseconds: settings.hotReadCacheMilliseconds,
  });
  const serverDispatcher = serverAgent(settings.upstreamResponseBytesMaximum);
  const providerSettings = new ProviderSettingsService(store.db, secrets, {
    serverProviders: settings,
    outbound,
    server: { fetch: fetchThrough(serverDispatcher), post: postThrough(serverDispatcher) },
    cache: organizationSettings,
  });
  // Shares the provider settings' cache: both are parts of the organization's config JSON.
  const organizationControls = new OrganizationControls(store.db, registries, organizationSettings);
  const blobs = openBlobStorage(storageUrlFor(settings, store.dialect), store, settings);
  const documentStorage = knowledgeDocumentStorage(blobs);
  const runRecords = new RunRecordWriter(store.db, {
    windowMilliseconds: settings.runRecordWindowMilliseconds,
    batchMaximum: settings.runRecordBatchMaximum,
  });
  const embedder = organizationEmbedder({
    providersFor: (organizationId) => providerSettings.providersFor(organizationId),
    timeoutMilliseconds: settings.embeddingTimeoutMilliseconds,
    countUsage: (row) => runRecords.write({ usage: row }),
  });
  const knowledgeBases = new KnowledgeBaseService({
    db: store.db,
    dialect: store.dialect,
    vectorBackend: store.vectorBackend,
    fullTextRanking: fullTextRankingOf(settings),
    documentFiles: documentStorage,
    embedder,
    knowledgeServerFor: (organizationId) => providerSettings.knowledgeServerFor(organizationId),
    knowledgeServerTimeoutMilliseconds: settings.knowledgeServerTimeoutMilliseconds,
    knowledgeServerResponseBytesMaximum: settings.knowledgeServerResponseBytesMaximum,
    smallFastModelFor: (organizationId) => providerSettings.smallFastModelFor(organizationId),
  });
  const rateLimiter = new RateLimiter(store.db, settings);
  const rubrics = new RubricService(store.db);
  const authenticator = new Authenticator(store.db, settings, rateLimiter, apiKeyIdentities);
  const ltiToolKeys = new LtiToolKeys(store.db, secrets);
  const ltiLaunches = new LtiLaunchService({
    db: store.db,
    secrets,
    authenticator,
    timestampSkewSeconds: settings.ltiTimestampSkewSeconds,
    sessionTtlHours: settings.sessionTtlHours,
  });
  const files = new FileService(store.db, {
    blobs,
    bytesMaximum: settings.fileUploadBytesMaximum,
    textCacheCharactersMaximum: settings.fileTextCacheCharactersMaximum,
    previewCharactersMaximum: settings.filePreviewCharactersMaximum,
    limitsFor: (organizationId) => organizationControls.limitsFor(organizationId),
  });
  const imageBounds = { bytesMaximum: settings.imageBytesMaximum, timeoutMilliseconds: settings.imageTimeoutMilliseconds };
  const generatedImages = new GeneratedImageFiles(store.db, {
    blobs,
    ...imageBounds,
    limitsFor: (id) => organizationControls.limitsFor(id),
  });
  const assistantQuotas = new AssistantQuotaService({
    db: store.db,
    dialect: store.dialect,
    cache: new HotReadCache<number, AssistantQuotaRow | null>({ ...cacheBounds, lifetimeMilliseconds: settings.hotReadCacheMilliseconds }),
    flushRecords: () => runRecords.flush(),
  });
  const quotaAdmission = new QuotaAdmission({
    db: store.db,
    dialect: store.dialect,
    reservationMilliseconds: settings.quotaReservationSeconds * 1_000,
    limitsFor: (organizationId) => organizationControls.limitsFor(organizationId),
    assistantLimitFor: (assistantId) => assistantQuotas.limitFor(assistantId),
    onAssistantSpend: (notice) => assistantQuotas.noticeSpend(notice),
    // Its keys name the days summed, which no longer change: the lifetime only bounds what is kept.
    settledSums: new HotReadCache<string, WindowSums>({ ...cacheBounds, lifetimeMilliseconds: SETTLED_SUMS_LIFETIME_MILLISECONDS }),
  });
  const mcpServers = new McpServerService({ db: store.db, secrets, outbound, ...mcpToolLimitsOf(settings) });
  const completions = new CompletionService({
    db: store.db,
    settings,
    registries,
    fileReaderFor: (owner) => files.readerFor(owner),
    imageStoreFor: (requester, chatId) => generatedImages.storeFor(requester, chatId),
    rubricReaderFor: (owner) => rubrics.readerFor(owner),
    knowledgeSearchFor: (owner, attribution) => knowledgeBases.searcherFor(owner, attribution),
    providersFor: (organizationId) => providerSettings.providersFor(organizationId),
    smallFastModelFor: (organizationId) => providerSettings.smallFastModelFor(organizationId),
    moodleFor: (organizationId) => providerSettings.moodleFor(organizationId),
    webSearchFor: (organizationId) => providerSettings.webSearchFor(organizationId),
    mcpServersFor: (owner, requester) => mcpServers.portFor(owner, requester),
    disabledPluginsFor: (organizationId) => organizationControls.disabledPluginsFor(organizationId),
    owners,
    runRecords,
    admitRun: (request) => quotaAdmission.admit(request),
  });
  const drain = new ServerDrain();
  const evaluation = createEvaluationServices({
    store,
    settings,
    leaseOwner: runnerOwnerName(),
    registries,
    completions,
    runRecords,
    providersFor: (organizationId) => providerSettings.providersFor(organizationId),
    smallFastModelFor: (organizationId) => providerSettings.smallFastModelFor(organizationId),
    rubricReaderFor: (owner) => rubrics.readerFor(owner),
    serverStopping: drain.streamsEnd,
    passageSampleFor: (owner, collectionIds, charactersMaximum) => knowledgeBases.passageSample(owner, collectionIds, charactersMaximum),
  });
  const mcp = new McpService({
    db: store.db,
    completions,
    rateLimiter,
    serverStopping: drain.streamsEnd,
    ...mcpServerLimitsOf(settings),
  });
  const knowledgePassages = new KnowledgePassageService(store.db);
  const knowledgeDocuments = new KnowledgeDocumentService({
    db: store.db,
    storage: documentStorage,
    uploadOwner: runnerOwnerName(),
    ...knowledgeDocumentBoundsOf(settings),
    limitsFor: (organizationId) => organizationControls.limitsFor(organizationId),
  });
  return {
    ...evaluation,
    mcp,
    frontEndPeople: new FrontEndPersonService(store.db),
    sourceLinks: new SourceLinkService({
      db: store.db,
      secrets,
      passages: knowledgePassages,
      lifetimeHours: settings.sourceLinkLifetimeHours,
    }),
    settings,
    store,
    runRecords,
    blobs,
    health: new HealthService(store.db, store.dialect, drain),
    drain,
    authenticator,
    ltiRegistrations: new LtiRegistrationService(store.db, secrets, outbound),
    mcpServers,
    ltiLaunches,
    ltiAdvantage: new LtiAdvantageService({
      db: store.db,
      launches: ltiLaunches,
      toolKeys: ltiToolKeys,
      outbound,
      tokenClockSkewSeconds: settings.ltiTokenClockSkewSeconds,
      loginStateSeconds: settings.ltiLoginStateSeconds,
      jwksTimeoutMilliseconds: settings.ltiJwksTimeoutMilliseconds,
      jwksCacheSeconds: settings.ltiJwksCacheSeconds,
      jwksRefetchCooldownMilliseconds: settings.ltiJwksRefetchCooldownMilliseconds,
      sessionTtlHours: settings.sessionTtlHours,
    }),
    ltiActivities: new LtiActivityService(store.db),
    ltiToolKeys,
    rateLimiter,
    assistantQuotas,
    usage: new UsageService({
      db: store.db,
      dialect: store.dialect,
      rangeDaysMaximum: settings.usageRangeDaysMaximum,
      groupsMaximum: settings.usageGroupsMaximum,
      flushRecords: () => runRecords.flush(),
    }),
    users: new UserService(store.db, passwordRulesOf(settings), forgetPeople),
    organizations: new OrganizationService(store.db, () => apiKeyIdentities.clear()),
    auditLog: new AuditLogService(store.db),
    passwordChanges: new PasswordChangeService(store.db, passwordRulesOf(settings), forgetPeople),
    apiKeys: new ApiKeyService(store.db, () => apiKeyIdentities.clear()),
    assistants: new AssistantService(store.db, registries, (owner, filePath) => files.mayRead(owner, filePath)),
    assistantSharing: new AssistantSharingService(store.db),
    assistantTransfer: new AssistantTransferService(
      store.db,
      registries,
      {
        fileReaderFor: (owner) => files.readerFor(owner),
        rubricReaderFor: (owner) => rubrics.readerFor(owner),
        knowledgeSearchFor: (owner) => knowledgeBases.searcherFor(owner),
      },
      (owner, filePath) => files.mayRead(owner, filePath),
    ),
    assistantConversion: new AssistantConversionService(store.db, registries),
    files,
    generatedImages,
    rubrics,
    templates: new TemplateService(store.db, async (context, rubricId, organizationId) => {
      const exported = await rubrics.export(context, rubricId, 'json', organizationId);
      return exported.format === 'json' ? exported.document : {};
    }),
    registries,
    providerSettings,
    modelLists: new ModelListService({
      connectors: registries.connectors,
      providersFor: (organizationId) => providerSettings.providersFor(organizationId),
      modelChoicesFor: (organizationId) => providerSettings.modelChoicesFor(organizationId),
      cacheMilliseconds: settings.modelListCacheMilliseconds,
      timeoutMilliseconds: settings.modelListTimeoutMilliseconds,
      entriesMaximum: settings.hotReadCacheEntriesMaximum,
      testConnectorsForEveryone: settings.modelListTestConnectors,
    }),
    organizationSettings: new OrganizationSettingsService(store.db, providerSettings, organizationControls),
    organizationControls,
    pluginCatalogue: new PluginCatalogueService(store.db, registries, organizationControls),
    signUps: new SignUpService({ db: store.db, rateLimiter, authenticator, passwordRules: passwordRulesOf(settings) }),
    signUpSettings: new SignUpSettingsService(store.db),
    knowledgeBases,
    knowledgePassages,
    knowledgeDocuments,
    webPageDocuments: new WebPageDocuments(knowledgeDocuments, webPageReadingOf(settings, outbound.fetchFor('url'))),
    ...webSourceServices(store, settings, { documents: knowledgeDocuments, storage: documentStorage, outbound, organizationControls }),
    knowledgeJobEvents: new KnowledgeJobEventService({
      db: store.db,
      pollMilliseconds: settings.jobEventPollMilliseconds,
      streamsPerUserMaximum: settings.jobEventStreamsPerUserMaximum,
    }),
    ingestionRunner: new IngestionRunner({
      db: store.db,
      dialect: store.dialect,
      vectorBackend: store.vectorBackend,
      storage: documentStorage,
      embedder,
      ...ingestionRunnerBoundsOf(settings),
      graph: graphStageOf(settings, smallFastModelForUploads({ settings, registries, providerSettings, runRecords })),
    }),
    completions,
    ...createChatServices({
      store,
      settings,
      completions,
      pseudonymDigest: (userId) => secrets.keyedDigest('chat-learner-pseudonym', String(userId)),
      leaseOwner: runnerOwnerName(),
      serverStopping: drain.streamsEnd,
      deleteImagesOfDeletedChats: () => generatedImages.deleteImagesOfDeletedChats(),
    }),
  };
}
