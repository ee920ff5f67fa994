/**
 * Chats and their messages as the API shows them (docs/chats.md), as JSON Schemas: chat-view.ts
 * reads ChatView and ChatStep from them, and its ChatMessageView is pinned to its schema by
 * test/chat-views-match-their-response-schemas.test.ts, so each shape is declared once. Every
 * property listed as required is always sent.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { sourceSchema, timestampSchema } from '../validation/shape-fragments.js';
import { feedbackSchema } from './answer-feedback-schemas.js';

const TITLE_CHARACTERS_MAXIMUM = 200;

const chatProperties = {
  id: { type: 'integer' },
  assistant_id: { type: 'integer' },
  assistant_name: { type: 'string' },
  title: { type: 'string', description: 'empty until the first answer names the chat from its question, or the owner does' },
  created_at: timestampSchema,
  updated_at: timestampSchema,
} as const;

const chatRequired = ['id', 'assistant_id', 'assistant_name', 'title', 'created_at', 'updated_at'] as const;

export const chatSchema = { type: 'object', description: 'A kept chat', properties: chatProperties, required: chatRequired } as const;

export type ChatView = FromSchema<typeof chatSchema>;

export const stepSchema = {
  type: 'object',
  description: 'one tool step of an answer, as its status events said it',
  properties: {
    id: { type: 'string' },
    tool: { type: 'string' },
    display_name: { type: 'string' },
    state: { type: 'string', enum: ['running', 'done', 'error'] },
    duration_ms: { type: ['integer', 'null'] },
    parent: { type: 'string', description: "the step this one is nested under (a called assistant's own steps)" },
  },
  required: ['id', 'tool', 'display_name', 'state', 'duration_ms'],
} as const;

/** A summary of one tool step of an answer, as the stream's status events said it. */
export type ChatStep = FromSchema<typeof stepSchema>;

export const chatMessageSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    role: { type: 'string', enum: ['user', 'assistant'] },
    content: { type: 'string' },
    reasoning: { type: ['string', 'null'] },
    sources: { type: 'array', items: sourceSchema },
    steps: { type: 'array', items: stepSchema },
    usage: {
      anyOf: [
        {
          type: 'object',
          properties: { prompt_tokens: { type: 'integer' }, completion_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } },
          additionalProperties: true,
        },
        { type: 'null' },
      ],
    },
    finish_reason: {
      type: ['string', 'null'],
      description:
        "the model's finish reason; `stopped` when the learner pressed Stop (or nobody followed the answer for `CHAT_RUN_UNWATCHED_SECONDS_MAX`); `interrupted` when the server process writing it died, keeping what it had logged; null for a question",
    },
    created_at: timestampSchema,
    parent_id: { type: ['integer', 'null'], description: 'the message this one follows; null for a first question' },
    version_ids: {
      type: 'array',
      items: { type: 'integer' },
      description:
        'the ids of every version of this message (regenerated answers, edited questions), itself included, oldest first; PUT /api/chats/{id}/active-version shows another',
    },
    feedback: {
      anyOf: [feedbackSchema, { type: 'null' }],
      description: "the owner's rating of this answer; null if none, or for a question",
    },
  },
  required: [
    'id',
    'role',
    'content',
    'reasoning',
    'sources',
    'steps',
    'usage',
    'finish_reason',
    'created_at',
    'parent_id',
    'version_ids',
    'feedback',
  ],
} as const;

export const chatWithMessagesSchema = {
  type: 'object',
  description: 'A kept chat with the messages of the branch it shows, oldest first',
  properties: { ...chatProperties, messages: { type: 'array', items: chatMessageSchema } },
  required: [...chatRequired, 'messages'],
} as const;

const learnerProperty = {
  learner: { type: 'string', description: 'the learner by a stable pseudonym, e.g. "Learner 4f2a1c"; never their email' },
} as const;

export const readableChatSchema = {
  type: 'object',
  description: "A member's chat",
  properties: { ...chatProperties, ...learnerProperty },
  required: [...chatRequired, 'learner'],
} as const;

export const readableChatWithMessagesSchema = {
  type: 'object',
  description: "A member's chat with its messages, oldest first, the learner by pseudonym",
  properties: { ...chatWithMessagesSchema.properties, ...learnerProperty },
  required: [...chatWithMessagesSchema.required, 'learner'],
} as const;

export const titleSchema = { type: 'string', minLength: 1, maxLength: TITLE_CHARACTERS_MAXIMUM, pattern: '\\S' } as const;
