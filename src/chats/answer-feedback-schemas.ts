/**
 * Ratings of answers as the API takes and shows them (docs/chats.md): a thumb up or down with an
 * optional comment, one per answer, given by the chat's owner; and, for an assistant's managers,
 * the ratings of members' answers by pseudonym. Each shape is declared once, here.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { pageQuerySchema, type PageQuery } from '../validation/page-query-schema.js';
import { timestampSchema, utcDaySchema } from '../validation/shape-fragments.js';

const ratingSchema = { type: 'string', enum: ['up', 'down'], description: 'thumb up (helpful) or down (not helpful)' } as const;

export const feedbackSchema = {
  type: 'object',
  description: "The owner's rating of this answer",
  properties: {
    rating: ratingSchema,
    comment: { type: ['string', 'null'], description: 'what the owner wrote with the rating, if anything' },
    updated_at: timestampSchema,
  },
  required: ['rating', 'comment', 'updated_at'],
} as const;

export type FeedbackView = FromSchema<typeof feedbackSchema>;

/** The body of `PUT /api/chats/{id}/messages/{messageId}/feedback`; the comment's length is a setting. */
export function feedbackBodySchema(commentCharactersMaximum: number) {
  return {
    type: 'object',
    required: ['rating'],
    additionalProperties: false,
    properties: {
      rating: ratingSchema,
      comment: { type: ['string', 'null'], maxLength: commentCharactersMaximum, description: 'optional; blank is kept as none' },
    },
  } as const;
}

const feedbackFilters = {
  rating: { ...ratingSchema, description: 'only thumbs up, or only thumbs down' },
  from: { ...utcDaySchema, description: 'only ratings given or changed on or after this UTC day, YYYY-MM-DD' },
  to: { ...utcDaySchema, description: 'only ratings given or changed on or before this UTC day, YYYY-MM-DD' },
} as const;

/** The query of `GET /api/assistants/{id}/feedback`: a page, and the filters. */
export function assistantFeedbackQuerySchema(pageSizeMaximum: number) {
  return pageQuerySchema(pageSizeMaximum, feedbackFilters);
}

export type AssistantFeedbackQuery = PageQuery<typeof feedbackFilters>;

/** A message of the conversation that led to a rated answer: the learner's questions and the assistant's answers, no steps. */
const feedbackTurnSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    role: { type: 'string', enum: ['user', 'assistant'] },
    content: { type: 'string' },
    created_at: timestampSchema,
  },
  required: ['id', 'role', 'content', 'created_at'],
  additionalProperties: false,
} as const;

export const assistantFeedbackSchema = {
  type: 'object',
  description: "A member's rating of an answer of your assistant, the learner by pseudonym",
  properties: {
    id: { type: 'integer' },
    chat_id: { type: 'integer' },
    message_id: { type: 'integer' },
    learner: { type: 'string', description: 'the learner by a stable pseudonym, as in the chats list' },
    ...feedbackSchema.properties,
    created_at: timestampSchema,
    turns: {
      type: 'array',
      description: 'the conversation that led to the answer, oldest first, the rated answer last (at most INSIGHTS_FEEDBACK_TURNS_MAX)',
      items: feedbackTurnSchema,
    },
  },
  required: ['id', 'chat_id', 'message_id', 'learner', ...feedbackSchema.required, 'created_at', 'turns'],
} as const;

export type AssistantFeedbackView = FromSchema<typeof assistantFeedbackSchema>;
