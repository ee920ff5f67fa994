/**
 * The JSON text of chat messages for a provider's request body, without escaping the unchanging
 * parts of a long prompt again on every request. Node 20's V8 escapes a string for JSON at about
 * 3 ns a character, so a 20,000-character file that a template puts in every prompt cost 60–70 µs
 * of each request to escape (the multi-tool assistant of `npm run bench:gateway`).
 *
 * Template rendering knows what a rendered message is made of: the template's own text, each
 * tool's value and the user's text (and the system prompt, one piece). It records those pieces
 * with the message. A connector asks
 * here for the message's JSON, and gets it joined from each piece's escaped form, the long pieces'
 * forms kept between requests (a file's text is one string that the file-text cache holds, request
 * after request). The user's text is never kept. A message with nothing recorded, or whose content
 * has changed since, gets `JSON.stringify`'s text; JSON.parse reads the same message either way.
 */
import { SizeBoundedCache } from '../../caching/size-bounded-cache.js';
import type { ChatMessage } from './messages.js';

/**
 * Pieces shorter than this are escaped on each request: keeping them would save little, and most
 * are a search's passages, which differ from one request to the next.
 */
const KEPT_PIECE_CHARACTERS_MINIMUM = 4_096;

/** PROMPT_JSON_CACHE_CHARACTERS's default. */
const PROMPT_JSON_CACHE_CHARACTERS_DEFAULT = 4_000_000;

interface EscapedPiece {
  escaped: string;
  /** The piece's length and its escaped form's, what the entry counts against the bound. */
  characters: number;
}

interface RenderedContent {
  content: string;
  pieces: readonly string[];
  /** The user's own text among the pieces, which is escaped afresh and never kept. */
  userText: string;
}

const renderedContents = new WeakMap<ChatMessage, RenderedContent>();
function piecesKeptUpTo(charactersMaximum: number): SizeBoundedCache<string, EscapedPiece> {
  return new SizeBoundedCache(charactersMaximum, (piece) => piece.characters);
}

let keptPieces = piecesKeptUpTo(PROMPT_JSON_CACHE_CHARACTERS_DEFAULT);

/** PROMPT_JSON_CACHE_CHARACTERS: characters of long prompt pieces and their escaped forms a process keeps; 0 keeps none. */
export function keepPromptJson(charactersMaximum: number): void {
  keptPieces = piecesKeptUpTo(charactersMaximum);
}

/** Characters of prompt pieces and their escaped forms kept now. */
export function keptPromptJsonCharacters(): number {
  return keptPieces.heldSize;
}

/** Records that `message`'s content is `pieces` joined, `userText` being the user's own text among them. */
export function recordRenderedContent(message: ChatMessage, pieces: readonly string[], userText: string): void {
  if (typeof message.content === 'string') renderedContents.set(message, { content: message.content, pieces, userText });
}

function escapedText(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function escapedPiece(piece: string, userText: string): string {
  if (piece.length < KEPT_PIECE_CHARACTERS_MINIMUM || piece === userText) return escapedText(piece);
  const kept = keptPieces.get(piece);
  if (kept !== undefined) return kept.escaped;
  const escaped = escapedText(piece);
  keptPieces.set(piece, { escaped, characters: piece.length + escaped.length });
  return escaped;
}

/** `message` as JSON text, as `JSON.stringify` would give it (its content last). */
export function messageJson(message: ChatMessage): string {
  const rendered = renderedContents.get(message);
  if (rendered === undefined || rendered.content !== message.content) return JSON.stringify(message);
  const { content: _content, ...rest } = message;
  const head = JSON.stringify(rest);
  // Added up rather than joined, so the request body is copied once, when it is encoded.
  let content = '';
  for (const piece of rendered.pieces) content += escapedPiece(piece, rendered.userText);
  return `${head.slice(0, -1)}${head === '{}' ? '' : ','}"content":"${content}"}`;
}
