/**
 * Signed links to cited passages, for front ends that show only an answer's text (Open WebUI): a
 * link names the person it was made for, the assistant whose answer cited the passage, the
 * passage, and when it ends, signed with a keyed digest of the server's secret key (SecretBox),
 * so it cannot be altered or made up. It opens the passage with its neighbours, nothing else:
 * for the person it names (signed in or not, as the link alone speaks for them while it lasts),
 * or for a signed-in reader of the knowledge base. Anyone else signed in gets 404.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { identityOf } from '../auth/authenticator.js';
import type { CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import { isLockedOutBySuspension, sourceLinkReader } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import type { Source } from '../pipeline/conversation/events.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { Database } from '../store/schema.js';
import { findUserById } from '../store/users-repository.js';
import type { PassageInContext } from './knowledge-passage-schemas.js';
import type { KnowledgePassageService } from './knowledge-passage-service.js';

/** What a link grants: the person, the citing assistant, the passage, and the end (epoch seconds). */
export interface SourceLinkGrant {
  userId: number;
  assistantId: number;
  knowledgeBaseId: number;
  documentId: number;
  chunkIndex: number;
  expiresAt: number;
}

/** The Merino passage a source cites, when it names one (a knowledge server's collection has no Merino view). */
export function passageOfSource(source: Source): Omit<SourceLinkGrant, 'expiresAt' | 'userId' | 'assistantId'> | undefined {
  const knowledgeBaseId = Number(source.knowledge_base_id);
  const documentId = Number(source.document_id);
  const chunkIndex = source.chunk_index;
  const ids = [knowledgeBaseId, documentId];
  if (!ids.every((id) => Number.isSafeInteger(id) && id >= 1 && id <= INTEGER_MAXIMUM)) return undefined;
  if (typeof chunkIndex !== 'number' || !Number.isSafeInteger(chunkIndex) || chunkIndex < 0 || chunkIndex > INTEGER_MAXIMUM)
    return undefined;
  if (!/^\d{1,10}$/.test(String(source.knowledge_base_id)) || !/^\d{1,10}$/.test(String(source.document_id))) return undefined;
  return { knowledgeBaseId, documentId, chunkIndex };
}

const DIGEST_PURPOSE = 'source-link-v1';
/** Six decimal fields and a hex digest: fixed shapes, so reading a hostile token cannot backtrack. */
const TOKEN_SHAPE = /^(\d{1,10})\.(\d{1,10})\.(\d{1,10})\.(\d{1,10})\.(\d{1,10})\.(\d{1,12})\.([0-9a-f]{64})$/;
const INTEGER_MAXIMUM = 2_147_483_647;

const notFound = (): AppError => new AppError('not_found', 'Source link not found.');

export interface SourceLinkOptions {
  db: Kysely<Database>;
  secrets: SecretBox;
  passages: KnowledgePassageService;
  lifetimeHours: number;
}

export class SourceLinkService {
  constructor(private readonly options: SourceLinkOptions) {}

  private digestOf(payload: string): string {
    return this.options.secrets.keyedDigest(DIGEST_PURPOSE, payload);
  }

  /** The token of a link for this grant, ending SOURCE_LINK_LIFETIME_HOURS from `now`. */
  sign(grant: Omit<SourceLinkGrant, 'expiresAt'>, now = Date.now()): string {
    const expiresAt = Math.floor(now / 1000) + this.options.lifetimeHours * 3_600;
    const payload = [grant.userId, grant.assistantId, grant.knowledgeBaseId, grant.documentId, grant.chunkIndex, expiresAt].join('.');
    return `${payload}.${this.digestOf(payload)}`;
  }

  /** The grant of a genuine token: 404 for anything altered or made up, 410 once it has ended. */
  verify(token: string, now = Date.now()): SourceLinkGrant {
    const match = TOKEN_SHAPE.exec(token);
    if (!match) throw notFound();
    const payload = token.slice(0, token.lastIndexOf('.'));
    const given = Buffer.from(match[7]!, 'hex');
    if (!timingSafeEqual(given, Buffer.from(this.digestOf(payload), 'hex'))) throw notFound();
    const [userId, assistantId, knowledgeBaseId, documentId, chunkIndex, expiresAt] = match.slice(1, 7).map(Number) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    if ([userId, assistantId, knowledgeBaseId, documentId, chunkIndex].some((value) => value > INTEGER_MAXIMUM)) throw notFound();
    if (expiresAt * 1000 <= now) throw new AppError('source_link_expired');
    return { userId, assistantId, knowledgeBaseId, documentId, chunkIndex, expiresAt };
  }

  /**
   * The passage a link names. Signed in as someone else, the viewer must be able to read the
   * knowledge base themselves; otherwise the link speaks for the person it names, who must still
   * exist, be enabled and be allowed to read the passage through the assistant.
   */
  async open(token: string, viewer: CallContext | undefined): Promise<PassageInContext> {
    const grant = this.verify(token);
    const passage = { knowledgeBaseId: grant.knowledgeBaseId, documentId: grant.documentId, chunkIndex: grant.chunkIndex };
    if (viewer !== undefined && sourceLinkReader(viewer.identity, grant.userId) === 'viewer')
      return this.options.passages.passageInContext(viewer, passage);
    const person = await findUserById(this.options.db, grant.userId);
    const lockedOut =
      person === undefined ||
      person.disabled === 1 ||
      isLockedOutBySuspension({ isSystemAdmin: person.is_system_admin === 1, organizationStatus: person.organization_status });
    if (lockedOut) throw notFound();
    // The link stands in for the person's own sign-in, for this passage only.
    const identity: Identity = viewer?.identity ?? identityOf(person, 'session', 0);
    return this.options.passages.passageInContext(
      { identity, requestId: viewer?.requestId ?? null },
      { ...passage, assistantId: grant.assistantId },
    );
  }
}
