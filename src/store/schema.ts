/**
 * The shape of every table as Kysely sees it. Both dialects store the same values: integer ids,
 * ISO-8601 text timestamps, 0/1 integer flags and JSON as text, so one code path serves SQLite
 * and PostgreSQL alike.
 */
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

export type Flag = 0 | 1;

export interface OrganizationsTable {
  id: Generated<number>;
  slug: string;
  name: string;
  is_system: Flag;
  status: string;
  /** JSON object: providers, models, feature settings. Secrets in it are encrypted by later issues. */
  config: string;
  /** Whether the organization's learners may create API keys (1 until an admin says otherwise). */
  learners_create_api_keys: Generated<Flag>;
  /** Whether users an LTI launch names Instructor become creators (0 until an admin says otherwise). */
  lti_instructors_create: Generated<Flag>;
  /** How many days a chat is kept after its last change; null keeps chats forever. */
  chat_retention_days: Generated<number | null>;
  /** Whether assistants' owners (and admins) may read the chats members had with their assistants. */
  owners_can_read_chats: Generated<Flag>;
  /** Whether a trusted front end may create a learner for an email nobody has (0 until an admin says otherwise). */
  front_end_creates_learners: Generated<Flag>;
  created_at: string;
  updated_at: string;
}

export type OrganizationRole = 'admin' | 'creator' | 'learner';

export interface UsersTable {
  id: Generated<number>;
  organization_id: number;
  /** Always lower-case; unique. */
  email: string;
  name: string;
  password_hash: string | null;
  /** Email and name, lower-cased by the application; see search-pattern.ts. */
  search_text: string;
  is_system_admin: Flag;
  disabled: Flag;
  /** 1 after an admin reset the password: every call but a password change is refused until then. */
  must_change_password: Generated<Flag>;
  created_at: string;
  updated_at: string;
}

export interface OrganizationRolesTable {
  id: Generated<number>;
  organization_id: number;
  user_id: number;
  role: OrganizationRole;
  created_at: string;
}

/** An organization's self sign-up (docs/sign-up.md); no row means sign-up is off. */
export interface OrganizationSignUpsTable {
  organization_id: number;
  enabled: Generated<Flag>;
  /** SHA-256 of the normalized sign-up key; the key itself is shown once and never stored. */
  key_hash: string | null;
  key_created_at: string | null;
  /** Lower-case domain new people's emails must end in (`@<domain>`); null allows any. */
  allowed_email_domain: string | null;
  /** The role people who sign up get. */
  role: Generated<'creator' | 'learner'>;
  updated_at: string;
}

export interface SessionsTable {
  id: Generated<number>;
  user_id: number;
  /** SHA-256 of the opaque token; the token itself is never stored. */
  token_hash: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

/** An MCP session at `/mcp` (docs/mcp.md), usable only by the credential that opened it. */
export interface McpSessionsTable {
  id: Generated<number>;
  /** SHA-256 of the session id the client holds; the id itself is never stored. */
  id_hash: string;
  user_id: number;
  credential: string;
  credential_id: number;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

export interface ApiKeysTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** The first characters of the key, shown in lists so a user can tell keys apart. */
  key_prefix: string;
  key_hash: string;
  created_at: string;
  /** Written at most once a minute per key, so a busy key does not cost a write per request. */
  last_used_at: string | null;
  /** Set only by a system admin: the key of a front end whose forwarded-user header may be believed. */
  trusted_front_end: Flag;
  /** When the key stops working; null for a key that lives until it is deleted. */
  expires_at: string | null;
  /** Set only on a trusted front end's key: its answers end with a markdown "Sources" block of signed links. */
  source_links: Generated<Flag>;
}

export interface AssistantsTable {
  id: Generated<number>;
  organization_id: number;
  owner_id: number;
  name: string;
  description: string;
  system_prompt: string;
  prompt_template: string;
  /** LAMB's `api_callback`: the metadata JSON, always normalised with `_format_version: 2`. */
  metadata: string;
  /** `metadata.assistant_type` as the normalizer reads it, kept beside it for filtering. */
  assistant_type: 'classic' | 'multi_tool';
  /** 1 for a multi-tool assistant with an enabled assistant tool (isOrchestrator), kept beside metadata for filtering. */
  orchestrator: Generated<Flag>;
  /** LAMB's `RAG_collections`: comma-separated knowledge-base ids. */
  rag_collections: string;
  rag_top_k: number;
  /** Name and description, lower-cased by the application; see search-pattern.ts. */
  search_text: string;
  published: Flag;
  published_at: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface AssistantSharesTable {
  id: Generated<number>;
  assistant_id: number;
  user_id: number;
  shared_by_user_id: number;
  created_at: string;
}

export interface AuditLogTable {
  id: Generated<number>;
  created_at: string;
  actor_user_id: number | null;
  organization_id: number | null;
  action: string;
  target_type: string;
  target_id: string | null;
  /** JSON object of safe identifiers only: never secrets or user text. */
  details: string;
  request_id: string | null;
}

export interface FilesTable {
  id: Generated<number>;
  owner_id: number;
  organization_id: number;
  /** `<owner_id>/<sanitised original name>`: what clients and the single-file tool's config name the file by; unique among live files. */
  file_path: string;
  /** The file's name on disk inside the owner's folder, chosen by the server and never derived from user text. */
  stored_name: string;
  /** The name the uploader's client sent, without any folder part; for display only. */
  original_name: string;
  content_type: string;
  size_bytes: number;
  /** Hex SHA-256 of the stored bytes. */
  sha256: string;
  created_at: string;
  deleted_at: string | null;
  /** The web chat a generated image was made in (migration 0090): deleting the chat deletes the image. Null for uploads. */
  chat_id: Generated<number | null>;
}

export interface TracesTable {
  /** A random UUID, so ids of other owners' traces cannot be guessed. */
  id: string;
  created_at: string;
  assistant_id: number;
  owner_id: number;
  organization_id: number;
  caller_user_id: number;
  request_id: string | null;
  /** JSON of the redacted PipelineTrace: identifiers, sizes, timings, markers; never contents. */
  trace: string;
}

export interface UsageLogsTable {
  id: Generated<number>;
  created_at: string;
  organization_id: number;
  user_id: number;
  assistant_id: number;
  connector: string;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  duration_ms: number;
  /** completed, failed:<error code>, or cancelled (the client went away). */
  outcome: string;
  request_id: string | null;
  /** 'test' for the model calls of an assistant's test runs (migration 0080); null for everything else. */
  traffic?: 'test' | null;
}

/** The daily roll-up of usage_logs (migration 0074); counters are bigints, which PostgreSQL's driver reads as text. */
export interface UsageDailyTable {
  /** YYYY-MM-DD, the UTC day of the usage rows it sums. */
  day: string;
  organization_id: number;
  user_id: number;
  assistant_id: number;
  model: string;
  requests: number | string;
  prompt_tokens: number | string;
  completion_tokens: number | string;
  /** Millionths of a US dollar, priced when each usage row was written. */
  cost_micro_usd: number | string;
}

/** The monthly roll-up (migration 0078): usage_daily's counters summed by calendar month, for reports over whole months. */
export interface UsageMonthlyTable extends Omit<UsageDailyTable, 'day'> {
  /** YYYY-MM, the UTC month of the days it sums. */
  month: string;
}

/** An organization's day per model (migration 0078): usage_daily summed over people and assistants, for day and model reports and totals. */
export type UsageDailyModelsTable = Omit<UsageDailyTable, 'user_id' | 'assistant_id'>;

/** An organization's day per assistant and model (migration 0083): usage_daily summed over people. */
export type UsageDailyAssistantsTable = Omit<UsageDailyTable, 'user_id'>;

/** An organization's month per assistant and model (migration 0083): usage_monthly summed over people. */
export type UsageMonthlyAssistantsTable = Omit<UsageMonthlyTable, 'user_id'>;

/** An organization's month per person (migration 0083): usage_monthly summed over assistants and models. */
export type UsageMonthlyPeopleTable = Omit<UsageMonthlyTable, 'assistant_id' | 'model'>;

/** An organization's week per person (migration 0083); `week` is the week's Monday, YYYY-MM-DD (UTC). */
export interface UsageWeeklyPeopleTable extends Omit<UsageDailyTable, 'day' | 'assistant_id' | 'model'> {
  week: string;
}

/** An organization's calendar quarter per person (migration 0086); `quarter` is its first month, YYYY-MM. */
export interface UsageQuarterlyPeopleTable extends Omit<UsageDailyTable, 'day' | 'assistant_id' | 'model'> {
  quarter: string;
}

/** An organization's own price for a model, in US dollars per million tokens. */
export interface ModelPricesTable {
  organization_id: number;
  model: string;
  input_usd_per_million: number;
  output_usd_per_million: number;
}

/** A run admitted by the token and cost quotas and not yet settled (migration 0077, docs/quotas.md). */
export interface QuotaReservationsTable {
  id: Generated<number>;
  organization_id: number;
  user_id: number;
  assistant_id: number;
  tokens: number | string;
  cost_micro_usd: number | string;
  expires_at: string;
}

/** An assistant's monthly cost limit, set by its owner. */
export interface AssistantQuotasTable {
  assistant_id: number;
  cost_per_month_usd: number;
  /** JSON array of whole percents, ascending. */
  alert_thresholds: string;
  updated_at: string;
}

/** A threshold of an assistant's cost limit, the first time it was crossed in a UTC month (YYYY-MM). */
export interface AssistantQuotaAlertsTable {
  assistant_id: number;
  month: string;
  threshold: number;
  crossed_at: string;
}

export interface KnowledgeBasesTable {
  id: Generated<number>;
  owner_id: number;
  organization_id: number;
  name: string;
  description: string;
  /** Name and description, lower-cased by the application; see search-pattern.ts. */
  search_text: string;
  visibility: 'private' | 'organization';
  chunk_size: number;
  chunk_overlap: number;
  /** How the chunks are embedded: the connector and model; null until a model is chosen. */
  embedding_connector: EmbeddingConnector | null;
  embedding_model: string | null;
  /** The length of its vectors, learned from the first ones stored; null before. */
  embedding_dimensions: number | null;
  /** Its material's language as a BCP-47 tag (`en`, `es`, `pt-BR`); null when not said. */
  language: string | null;
  /** How its text is analysed for full-text search (text-analysis.ts): `english` unless chosen. */
  search_language: Generated<string>;
  /** Chunks in its full-text index and the sum of their weighted lengths: its BM25 statistics. */
  index_chunk_count: Generated<number>;
  index_length_total: Generated<number>;
  /**
   * Its indexed chunks with a title field, and the sum of their title-field lengths (unweighted):
   * the title field's average for BM25F, over the chunks that have one, as Lucene takes a field's (migration 0096).
   */
  index_titled_chunk_count: Generated<number>;
  index_title_length_total: Generated<number>;
  /** Raised by every change to its postings (migration 0097): posting lists held in memory are used only at the version they were read at. */
  index_version: Generated<number>;
  /** The reindex job's place: chunks with a greater id still wait; null when the index is whole. */
  reindex_cursor: number | null;
  /** Chunks the running reindex has done: its progress. */
  reindex_done: Generated<number>;
  /** 1 when ingestion builds its entity graph (docs/graph-search.md), 0 when not. */
  graph_enabled: Generated<number>;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export type EmbeddingConnector = 'openai' | 'ollama';

export type DocumentStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';

export interface KnowledgeDocumentsTable {
  id: Generated<number>;
  knowledge_base_id: number;
  file_name: string;
  content_type: string;
  size_bytes: number;
  source_url: string | null;
  status: DocumentStatus;
  error: string | null;
  chunk_count: number;
  /** Pages of a paged format (PDF), once ingested; null otherwise. */
  page_count: number | null;
  metadata: string;
  /** The process still uploading it (a runner name, runner-identity.ts); null once its job is queued. */
  upload_owner: string | null;
  /** Until when that process keeps the upload its own without renewing; past it, the upload was interrupted. */
  upload_lease_expires_at: string | null;
  /** SHA-256 (hex) of the text last stored for a URL document; null until it is first refreshed. */
  content_hash: string | null;
  /** When a URL document's page was last fetched by a refresh. */
  last_checked_at: string | null;
  /** How its last refresh went: `changed`, `unchanged` or `failed`. */
  refresh_outcome: string | null;
  /** Why its last refresh failed (the old passages are kept). */
  refresh_error: string | null;
  /** Refresh it this often (seconds), or never when null. */
  refresh_every_seconds: number | null;
  /** When its scheduled refresh is next due (ISO time); null without a schedule. */
  refresh_due_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A crawl of same-site links from one page (migration 0093, web-site-crawl-service.ts). */
export interface WebCrawlsTable {
  id: Generated<number>;
  knowledge_base_id: number;
  requested_by: number;
  start_url: string;
  depth: number;
  pages_maximum: number;
  status: 'running' | 'completed' | 'failed';
  pages_read: number;
  pages_failed: number;
  pages_found: number;
  /** JSON `[{url, reason}]`. */
  failures: string;
  /** JSON `[{document_id, job_id, url}]`. */
  documents: string;
  runner: string | null;
  /** Until when `runner` holds the crawl without renewing; null once it ended. */
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface KnowledgeChunksTable {
  id: Generated<number>;
  knowledge_base_id: number;
  document_id: number;
  chunk_index: number;
  text: string;
  /** JSON: filename, document_id, chunk_index, chunk_count, page, source_url and the document's own metadata. */
  metadata: string;
  /** Its field-weighted length in the search index (kb_postings); null while not indexed. */
  index_length: Generated<number | null>;
  /** Its title field's length in terms, unweighted (migration 0096); null while not indexed. */
  index_title_length: Generated<number | null>;
  /** Its distinct terms in the search index, a JSON array (migration 0098), by which its postings are found when it is unindexed; null while not indexed. */
  index_terms: Generated<string | null>;
}

/** The text of a small JSON document, kept in the store rather than as a file (migration 0095). */
export interface KnowledgeDocumentTextsTable {
  document_id: number;
  text: string;
}

/** One analysed term of one chunk, in its knowledge base's full-text index (migration 0094). */
export interface KnowledgePostingsTable {
  knowledge_base_id: number;
  term: string;
  chunk_id: number;
  /** Field-weighted count of the term in the chunk (BM25F). */
  frequency: number;
  /** The chunk's field-weighted length, repeated here so a search reads the index alone. */
  length: number;
}

/** An entity of a knowledge base's graph, once per normalised name (docs/graph-search.md). */
export interface GraphEntitiesTable {
  id: Generated<number>;
  knowledge_base_id: number;
  /** Lower case, accents and punctuation gone, spaces single: what a question's words are matched against. */
  normalized_name: string;
  display_name: string;
  type: string;
}

/** An entity read from a chunk: deleting the chunk deletes the mention. */
export interface GraphMentionsTable {
  entity_id: number;
  chunk_id: number;
  knowledge_base_id: number;
}

/** A relation between two entities, as the chunk `chunk_id` states it. */
export interface GraphRelationsTable {
  id: Generated<number>;
  knowledge_base_id: number;
  from_entity_id: number;
  to_entity_id: number;
  label: string;
  chunk_id: number;
}

export interface KnowledgeChunkEmbeddingsTable {
  /** The chunk this vector embeds; deleting the chunk deletes its vector. */
  chunk_id: number;
  knowledge_base_id: number;
  /** The vector's length; only vectors of the query's length are compared with it. */
  dimensions: number;
  /**
   * Float32 little-endian bytes (SQLite blob, PostgreSQL bytea), or, in a PostgreSQL `vector`
   * column (pgvector), the text form `[0.1,0.2,…]`, which is how pg reads and writes that type.
   * See chunk-vector-repository.ts.
   */
  embedding: Uint8Array | string;
}

export type IngestionJobStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';

export interface IngestionJobsTable {
  id: Generated<number>;
  knowledge_base_id: number;
  document_id: number;
  status: IngestionJobStatus;
  progress_current: number;
  progress_total: number;
  message: string | null;
  /** The safe message of what failed, shown to the user. */
  error: string | null;
  /** How often a runner claimed the job. */
  attempts: number;
  /** How often a runner claimed the job since its upload or last retry: what INGESTION_ATTEMPTS_MAX caps. */
  attempts_since_queued: Generated<number>;
  /** The runner working on it; with lease_expires_at passed, another runner may take it over. */
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  /** Who uploaded the document: its embeddings are counted to them (null for jobs queued before migration 0078). */
  requested_by: number | null;
}

export interface RubricsTable {
  id: Generated<number>;
  /** The public string id (LAMB's `rubricId`), unique forever: a deleted rubric keeps its id. */
  rubric_id: string;
  owner_id: number;
  organization_id: number;
  title: string;
  description: string;
  /** `private`: the owner and the admins over it; `organization`: every member may read and use it. */
  visibility: 'private' | 'organization';
  /** LAMB's rubric JSON, validated and completed (ids, timestamps) by src/rubrics/rubric-document.ts. */
  rubric_data: string;
  /** Title and description, lower-cased by the application; see search-pattern.ts. */
  search_text: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** A template of the library (docs/templates.md): a prompt template or a rubric template. */
export interface TemplatesTable {
  id: Generated<number>;
  kind: 'prompt' | 'rubric';
  /** `personal`: its owner's; `organization`: its organization's creators; `system`: every creator. */
  visibility: 'personal' | 'organization' | 'system';
  owner_id: number;
  organization_id: number;
  name: string;
  description: string;
  /** A BCP-47 tag such as `en` or `es`, or null when not said. */
  language: string | null;
  /** The kind's content as JSON (src/templates/template-content.ts). */
  content: string;
  /** Name, description and tags, lower-cased by the application; see search-pattern.ts. */
  search_text: string;
  created_at: string;
  updated_at: string;
}

/** One tag of a template, lower-cased; a template has each tag once. */
export interface TemplateTagsTable {
  template_id: number;
  tag: string;
}

/** One fixed-window rate-limit counter per limited subject (see rate-limit-repository.ts). */
export interface PeriodicRunsTable {
  /** The kind of work, e.g. `chat-retention-purge`. */
  name: string;
  /** The process that started the last run (an ingestion-runner-style `<machine>:<pid>:<random>` name). */
  runner: string;
  /** Milliseconds since the epoch; bigints, which PostgreSQL's driver reads as text. */
  started_at: ColumnType<number | string, number, number>;
  finished_at: ColumnType<number | string | null, number | null, number | null>;
  run_count: number;
}

export interface RateLimitCountersTable {
  /** What is limited, e.g. `login-address:<address>` or `chat-api-key:<id>`; never a secret or user text. */
  subject: string;
  /** Milliseconds since the epoch; a bigint, which PostgreSQL's driver reads as text. */
  window_started_at: ColumnType<number | string, number, number>;
  count: number;
}

export interface ChatsTable {
  id: Generated<number>;
  /** The owner's organization, whose chat policies (retention, who may read) apply. */
  organization_id: number;
  owner_id: number;
  assistant_id: number;
  /** Empty until the first answer names the chat, or the owner does. */
  title: string;
  /** The title, lower-cased by the application; see search-pattern.ts. */
  search_text: string;
  created_at: string;
  updated_at: string;
  /** The last message of the branch the owner is looking at (migration 0071); null in an empty chat. */
  active_leaf_id: number | null;
}

export interface ChatMessagesTable {
  id: Generated<number>;
  chat_id: number;
  role: 'user' | 'assistant';
  content: string;
  reasoning: string | null;
  /** JSON array of the answer's sources. */
  sources: string;
  /** JSON array of the tool steps: {id, tool, display_name, state, duration_ms, parent}. */
  steps: string;
  /** JSON usage of the answer, or null for a user message. */
  usage: string | null;
  finish_reason: string | null;
  created_at: string;
  /** The message this one follows (migration 0071); null for a first question. Siblings are versions. */
  parent_id: number | null;
}

/** One rating of an answer by its chat's owner (migration 0071). */
export interface AnswerFeedbackTable {
  id: Generated<number>;
  message_id: number;
  chat_id: number;
  rating: 'up' | 'down';
  comment: string | null;
  created_at: string;
  updated_at: string;
}

/** One test case of an assistant (migration 0080): the learner's turns and the expectations, as JSON text. */
export interface AssistantTestCasesTable {
  id: Generated<number>;
  assistant_id: number;
  name: string;
  kind: string;
  turns: string;
  expectations: string;
  created_by: number;
  created_at: string;
  updated_at: string;
}

/** One run of some of an assistant's test cases against a snapshot of it (migration 0080). */
export interface AssistantTestRunsTable {
  id: Generated<number>;
  assistant_id: number;
  started_by: number;
  /** 'saved' or 'draft': which assistant the snapshot was taken of. */
  snapshot_source: string;
  /** The assistant as it ran (AssistantRecord's configurable fields), JSON text. */
  snapshot: string;
  /** JSON array of the case ids, in the order they run. */
  case_ids: string;
  /** running, completed, stopped or interrupted. */
  status: string;
  stop_requested: Generated<Flag>;
  estimated_cost_micro_usd: number;
  created_at: string;
  finished_at: string | null;
  /** The process running it (runner-identity.ts); null for runs older than migration 0084. */
  lease_owner: string | null;
  /** Until when that process promised to renew; past it (or once the process is known dead) the run is interrupted. */
  lease_expires_at: string | null;
}

/** One case's result in a run (migration 0080); `details` holds the sources, tool steps and per-expectation verdicts as JSON text. */
export interface AssistantTestResultsTable {
  id: Generated<number>;
  run_id: number;
  case_id: number;
  case_name: string;
  verdict: string;
  answer: string;
  details: string;
  prompt_tokens: number;
  completion_tokens: number;
  cost_micro_usd: number;
  duration_ms: number;
  created_at: string;
}

/** An assistant's counters for one UTC day (migration 0081), added to when a chat answer or a rating is kept. */
export interface AssistantInsightsDailyTable {
  assistant_id: number;
  /** YYYY-MM-DD, the UTC day the answer was kept (a rating counts on its answer's day). */
  day: string;
  chats: Generated<number | string>;
  questions: Generated<number | string>;
  answers: Generated<number | string>;
  prompt_tokens: Generated<number | string>;
  completion_tokens: Generated<number | string>;
  /** Millionths of a US dollar, priced when the answer was kept. */
  cost_micro_usd: Generated<number | string>;
  tool_calls: Generated<number | string>;
  tool_failures: Generated<number | string>;
  retrieval_questions: Generated<number | string>;
  retrieval_empty: Generated<number | string>;
  feedback_up: Generated<number | string>;
  feedback_down: Generated<number | string>;
}

/** What `assistant_insights_items` counts: who asked, how long answers took, the sources used, the question terms. */
export type InsightsItemKind = 'learner' | 'answer_time' | 'source' | 'topic';

/** How often one item of a kind came up for an assistant on one UTC day (migration 0081). */
export interface AssistantInsightsItemsTable {
  assistant_id: number;
  kind: InsightsItemKind;
  day: string;
  /** A learner's user id, a histogram bucket, a source's key or a term. */
  item: string;
  /** A source's title; null for the other kinds. */
  label: string | null;
  uses: number | string;
}

/** The same counts per calendar month (migration 0081), for ranges that span whole months. */
export interface AssistantInsightsMonthlyItemsTable extends Omit<AssistantInsightsItemsTable, 'day'> {
  /** YYYY-MM (UTC). */
  month: string;
}

export type ChatRunStatus = 'running' | 'completed' | 'stopped' | 'timed_out' | 'failed' | 'interrupted';

/** One answer being produced for a chat, by one process under a lease (migration 0070). */
export interface ChatRunsTable {
  id: Generated<number>;
  chat_id: number;
  owner_id: number;
  status: ChatRunStatus;
  /** 1 once the owner pressed Stop; the process producing the run checks it. */
  stop_requested: ColumnType<number, number | undefined, number>;
  /** The process producing the run, and until when it promised to renew. */
  lease_owner: string;
  lease_expires_at: string;
  /** When a client last followed the run; an unwatched run ends after CHAT_RUN_UNWATCHED_SECONDS_MAX. */
  watched_at: string;
  started_at: string;
  ended_at: string | null;
}

/** A run's pipeline events in order, as JSON (an `error` event ends a failed run). */
export interface ChatRunEventsTable {
  id: Generated<number>;
  run_id: number;
  sequence: number;
  event: string;
}

/** One blob of the `postgres` blob driver (see src/blobs/postgres-blob-storage.ts). */
export interface BlobsTable {
  id: Generated<number>;
  /** Null while the blob is being written: it gets its key only once every chunk is in. */
  key: string | null;
  size_bytes: ColumnType<number | string, number, number>;
  sha256: string;
  /** The size of every chunk but the last, so a range read knows which chunks to fetch. */
  chunk_bytes: number;
  /** Milliseconds since the epoch at which the write started. */
  created_at: ColumnType<number | string, number, number>;
}

/** The bytes of a blob, `chunk_bytes` at a time, in order of `chunk_index`. */
export interface BlobChunksTable {
  blob_id: number;
  chunk_index: number;
  bytes: Uint8Array;
}

/** An MCP server an organization registered (migration 0087). */
export interface McpServersTable {
  id: Generated<number>;
  organization_id: number;
  name: string;
  url: string;
  /** JSON array of `{name, value_encrypted}`: header values sealed with the secret box. */
  headers: string;
  created_by: number | null;
  created_at: string;
  updated_at: string;
}

export interface LtiConsumersTable {
  id: Generated<number>;
  organization_id: number;
  name: string;
  /** Public, unique across the installation: a launch names its consumer by it. */
  consumer_key: string;
  /** The shared secret, encrypted with the secret box; shown once at creation. */
  secret_encrypted: string;
  /** JSON array of origins allowed to frame Merino after this consumer's launches (CSP frame-ancestors). */
  frame_origins: string;
  created_by: number | null;
  created_at: string;
  revoked_at: string | null;
}

export interface LtiPlatformsTable {
  id: Generated<number>;
  organization_id: number;
  issuer: string;
  client_id: string;
  /** JSON array of the deployment ids this registration accepts. */
  deployment_ids: string;
  auth_login_url: string;
  auth_token_url: string;
  jwks_url: string | null;
  /** A PEM SPKI public key, for platforms registered without a JWKS URL. */
  public_key: string | null;
  frame_origins: string;
  created_at: string;
  updated_at: string;
}

export interface LtiUsedNoncesTable {
  scope: string;
  nonce: string;
  expires_at: ColumnType<number | string, number, number>;
}

export interface LtiLoginStatesTable {
  state: string;
  platform_id: number;
  nonce: string;
  expires_at: ColumnType<number | string, number, number>;
  /** SHA-256 (hex) of the secret the login gave the browser; null only for states older than migration 0060. */
  browser_secret_hash: string | null;
  /** The platform's storage frame (`lti_storage_target`) when the login offered platform storage. */
  storage_target: string | null;
}

export interface LtiUsersTable {
  id: Generated<number>;
  /** `consumer:<id>` or `platform:<id>`: LTI user ids are unique only within their consumer or platform. */
  source: string;
  lti_user_id: string;
  user_id: number;
  created_at: string;
}

export interface LtiLinksTable {
  id: Generated<number>;
  organization_id: number;
  source: string;
  resource_link_id: string;
  title: string;
  assistant_id: number | null;
  bound_by: number | null;
  created_at: string;
  updated_at: string;
}

export interface LtiLaunchesTable {
  id: Generated<number>;
  link_id: number;
  user_id: number;
  session_id: number;
  instructor: Flag;
  return_url: string | null;
  created_at: string;
}

export interface LtiToolKeysTable {
  kid: string;
  public_jwk: string;
  private_key_encrypted: string;
  created_at: string;
}

export interface Database {
  organizations: OrganizationsTable;
  users: UsersTable;
  organization_roles: OrganizationRolesTable;
  organization_sign_ups: OrganizationSignUpsTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  mcp_sessions: McpSessionsTable;
  assistants: AssistantsTable;
  assistant_shares: AssistantSharesTable;
  audit_log: AuditLogTable;
  traces: TracesTable;
  knowledge_bases: KnowledgeBasesTable;
  kb_documents: KnowledgeDocumentsTable;
  kb_document_texts: KnowledgeDocumentTextsTable;
  kb_chunks: KnowledgeChunksTable;
  kb_chunk_embeddings: KnowledgeChunkEmbeddingsTable;
  kb_postings: KnowledgePostingsTable;
  kb_graph_entities: GraphEntitiesTable;
  kb_graph_mentions: GraphMentionsTable;
  kb_graph_relations: GraphRelationsTable;
  ingestion_jobs: IngestionJobsTable;
  usage_logs: UsageLogsTable;
  usage_daily: UsageDailyTable;
  usage_monthly: UsageMonthlyTable;
  usage_daily_models: UsageDailyModelsTable;
  usage_daily_assistants: UsageDailyAssistantsTable;
  usage_monthly_assistants: UsageMonthlyAssistantsTable;
  usage_monthly_people: UsageMonthlyPeopleTable;
  usage_weekly_people: UsageWeeklyPeopleTable;
  usage_quarterly_people: UsageQuarterlyPeopleTable;
  model_prices: ModelPricesTable;
  quota_reservations: QuotaReservationsTable;
  assistant_quotas: AssistantQuotasTable;
  assistant_quota_alerts: AssistantQuotaAlertsTable;
  files: FilesTable;
  rubrics: RubricsTable;
  templates: TemplatesTable;
  template_tags: TemplateTagsTable;
  rate_limit_counters: RateLimitCountersTable;
  periodic_runs: PeriodicRunsTable;
  chats: ChatsTable;
  chat_messages: ChatMessagesTable;
  answer_feedback: AnswerFeedbackTable;
  assistant_test_cases: AssistantTestCasesTable;
  assistant_test_runs: AssistantTestRunsTable;
  assistant_test_results: AssistantTestResultsTable;
  assistant_insights_daily: AssistantInsightsDailyTable;
  assistant_insights_items: AssistantInsightsItemsTable;
  assistant_insights_monthly_items: AssistantInsightsMonthlyItemsTable;
  chat_runs: ChatRunsTable;
  chat_run_events: ChatRunEventsTable;
  blobs: BlobsTable;
  blob_chunks: BlobChunksTable;
  lti_consumers: LtiConsumersTable;
  mcp_servers: McpServersTable;
  lti_platforms: LtiPlatformsTable;
  lti_used_nonces: LtiUsedNoncesTable;
  lti_login_states: LtiLoginStatesTable;
  lti_users: LtiUsersTable;
  lti_links: LtiLinksTable;
  lti_launches: LtiLaunchesTable;
  lti_tool_keys: LtiToolKeysTable;
  web_crawls: WebCrawlsTable;
}

export type OrganizationRow = Selectable<OrganizationsTable>;
export type OrganizationSignUpRow = Selectable<OrganizationSignUpsTable>;
export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type McpSessionRow = Selectable<McpSessionsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type AssistantRow = Selectable<AssistantsTable>;
export type NewAssistantRow = Insertable<AssistantsTable>;
export type AssistantUpdate = Updateable<AssistantsTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
export type FileRow = Selectable<FilesTable>;
export type NewFileRow = Insertable<FilesTable>;
export type RubricRow = Selectable<RubricsTable>;
export type NewRubricRow = Insertable<RubricsTable>;
export type RubricUpdate = Updateable<RubricsTable>;
export type TemplateRow = Selectable<TemplatesTable>;
export type NewTemplateRow = Insertable<TemplatesTable>;
export type TemplateUpdate = Updateable<TemplatesTable>;
export type LtiConsumerRow = Selectable<LtiConsumersTable>;
export type McpServerRow = Selectable<McpServersTable>;
export type LtiPlatformRow = Selectable<LtiPlatformsTable>;
export type LtiLinkRow = Selectable<LtiLinksTable>;

export function toFlag(value: boolean): Flag {
  return value ? 1 : 0;
}

export function nowTimestamp(): string {
  return new Date().toISOString();
}
