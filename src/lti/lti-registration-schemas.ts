/**
 * How the API shows an organization's LTI registrations, as JSON Schemas: LTI 1.1 consumers (with
 * the secret only as created) and LTI 1.3 platforms, and the tool's own URLs a platform's
 * administrator pastes, and the bodies that create and change them. The routes validate bodies and
 * serialize answers with them and show them in the OpenAPI
 * document, and lti-registration-service.ts reads its view types from them, so each shape is
 * declared once.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { idSchema, timestampSchema } from '../validation/shape-fragments.js';

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

export const originListSchema = {
  type: 'array',
  maxItems: 20,
  items: { type: 'string', minLength: 1, maxLength: 300 },
  description: 'origins (https://lms.example.edu) allowed to show Merino in a frame after launches from here',
} as const;

export const organizationFilter = {
  organization_id: { ...idSchema, description: "default: the caller's organization" },
} as const;

const urlText = { type: 'string', minLength: 1, maxLength: 2000 } as const;
export const platformBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['issuer', 'client_id', 'deployment_ids', 'auth_login_url', 'auth_token_url'],
  properties: {
    organization_id: idSchema,
    issuer: { type: 'string', minLength: 1, maxLength: 500, description: "the platform's issuer (iss), e.g. https://moodle.example.edu" },
    client_id: { type: 'string', minLength: 1, maxLength: 255, description: 'the client id the platform gave Merino' },
    deployment_ids: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 255 } },
    auth_login_url: { ...urlText, description: "the platform's OIDC authentication request URL" },
    auth_token_url: { ...urlText, description: "the platform's OAuth2 access token URL" },
    jwks_url: { ...urlText, type: ['string', 'null'], description: "the platform's public keyset URL (or give public_key)" },
    public_key: { type: ['string', 'null'], minLength: 1, maxLength: 10_000, description: 'a PEM public key instead of jwks_url' },
    frame_origins: originListSchema,
  },
} as const;

/** A new LTI 1.1 consumer: its name, and the origins that may frame its launches. */
export const newConsumerSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    organization_id: idSchema,
    name: { type: 'string', minLength: 1, maxLength: 200 },
    frame_origins: originListSchema,
  },
} as const;

/** A change to an LTI 1.1 consumer: a new name or new framing origins. */
export const consumerPatchSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { name: { type: 'string', minLength: 1, maxLength: 200 }, frame_origins: originListSchema },
} as const;
