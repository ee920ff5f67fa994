/**
 * How the API shows an organization's LTI registrations, as JSON Schemas: LTI 1.1 consumers (with
 * the secret only as created) and LTI 1.3 platforms, and the tool's own URLs a platform's
 * administrator pastes. The routes serialize answers with them and show them in the OpenAPI
 * document, and lti-registration-service.ts reads its view types from them, so each shape is
 * declared once.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { timestampSchema } from '../validation/shape-fragments.js';

const consumerProperties = {
  id: { type: 'integer' },
  organization_id: { type: 'integer' },
  name: { type: 'string' },
  consumer_key: { type: 'string' },
  frame_origins: { type: 'array', items: { type: 'string' } },
  created_at: timestampSchema,
} as const;
const consumerRequired = ['id', 'organization_id', 'name', 'consumer_key', 'frame_origins', 'created_at'] as const;

export const consumerViewSchema = {
  type: 'object',
  description: 'An LTI 1.1 consumer (never its secret)',
  properties: consumerProperties,
  required: consumerRequired,
  additionalProperties: false,
} as const;

export type LtiConsumerView = FromSchema<typeof consumerViewSchema>;

export const createdConsumerSchema = {
  type: 'object',
  description: 'The consumer, with its secret (shown once)',
  properties: { ...consumerProperties, consumer_secret: { type: 'string' } },
  required: [...consumerRequired, 'consumer_secret'],
  additionalProperties: false,
} as const;

export type CreatedLtiConsumer = FromSchema<typeof createdConsumerSchema>;

export const platformViewSchema = {
  type: 'object',
  description: 'An LTI 1.3 platform registration',
  properties: {
    id: { type: 'integer' },
    organization_id: { type: 'integer' },
    issuer: { type: 'string' },
    client_id: { type: 'string' },
    deployment_ids: { type: 'array', items: { type: 'string' } },
    auth_login_url: { type: 'string' },
    auth_token_url: { type: 'string' },
    jwks_url: { type: ['string', 'null'] },
    public_key: { type: ['string', 'null'] },
    frame_origins: { type: 'array', items: { type: 'string' } },
    created_at: timestampSchema,
    updated_at: timestampSchema,
  },
  required: [
    'id',
    'organization_id',
    'issuer',
    'client_id',
    'deployment_ids',
    'auth_login_url',
    'auth_token_url',
    'jwks_url',
    'public_key',
    'frame_origins',
    'created_at',
    'updated_at',
  ],
  additionalProperties: false,
} as const;

export type LtiPlatformView = FromSchema<typeof platformViewSchema>;

export const toolUrlsSchema = {
  type: 'object',
  description: "The URLs a learning platform's administrator pastes to add Merino",
  properties: {
    launch_url: { type: 'string', description: 'LTI 1.1 launch URL (Moodle: Tool URL)' },
    login_url: { type: 'string', description: 'LTI 1.3 initiate login URL' },
    redirect_uri: { type: 'string', description: 'LTI 1.3 redirection URI, also the target link and deep-linking URL' },
    jwks_url: { type: 'string', description: "LTI 1.3 tool's public keyset URL" },
    deep_linking_url: { type: 'string', description: 'LTI 1.3 content selection (deep linking) URL' },
  },
  required: ['launch_url', 'login_url', 'redirect_uri', 'jwks_url', 'deep_linking_url'],
  additionalProperties: false,
} as const;
