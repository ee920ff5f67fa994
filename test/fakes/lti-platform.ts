/**
 * An LTI 1.3 platform (what Moodle 4 is to a registered tool) for tests, over loopback HTTP: its
 * own RSA keys and JWKS (`/jwks`, rotatable), the OIDC authorization endpoint (`/auth`) that
 * answers a tool's login redirect with a form_post page carrying a signed id_token and the
 * state, and the deep-linking return endpoint (`/deep-link-return`) that verifies the tool's
 * LtiDeepLinkingResponse against the tool's own JWKS, as a platform must. For a real browser it
 * also serves a course page (`/course`) that opens the tool's login in an iframe with
 * `lti_storage_target=_parent` and answers the LTI Client Side postMessages `lti.put_data` and
 * `lti.get_data` (platform storage, kept per sending origin) as the spec says a platform does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

const CLAIM = 'https://purl.imsglobal.org/spec/lti/claim/';
const DEEP_LINKING_CLAIM = 'https://purl.imsglobal.org/spec/lti-dl/claim/';

interface PlatformKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** What the next id_token says; each field replaces the platform's default for it. */
export interface NextLaunch {
  messageType?: 'LtiResourceLinkRequest' | 'LtiDeepLinkingRequest';
  subject?: string;
  roles?: string[];
  resourceLinkId?: string;
  custom?: Record<string, string>;
  audience?: string | string[];
  deploymentId?: string;
  /** Seconds from now; negative for a token that has expired. */
  expiresIn?: number;
  /** When the token says it was issued, in seconds from now (`iat`); positive dates it in the future. */
  issuedIn?: number;
  /** Sign with this key id (one the platform holds, published or not). */
  kid?: string;
  /** Claims added as they are, after the others. */
  extraClaims?: Record<string, unknown>;
}

export interface FormPost {
  action: string;
  fields: Record<string, string>;
}

async function newKey(kid: string): Promise<PlatformKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

/**
 * The course page's platform storage: answers put and get for the origin that sent them, and
 * reports each message to the page's `storageLog` so a test can see what the tool asked.
 */
const STORAGE_SCRIPT = `
const stored = {};
window.storageLog = [];
window.addEventListener('message', (event) => {
  const message = event.data;
  if (!message || typeof message !== 'object' || typeof message.subject !== 'string') return;
  window.storageLog.push({ subject: message.subject, origin: event.origin, key: message.key });
  if (document.body.dataset.answers !== 'yes') return;
  const own = (stored[event.origin] ??= {});
  const reply = { subject: message.subject + '.response', message_id: message.message_id, key: message.key };
  if (message.subject === 'lti.put_data') {
    own[message.key] = message.value;
    reply.value = message.value;
  } else if (message.subject === 'lti.get_data') {
    if (message.key in own) reply.value = own[message.key];
    else reply.error = { code: 'bad_request', message: 'There is no value stored for this key' };
  } else return;
  event.source.postMessage(reply, event.origin);
});`;

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** The action and hidden fields of the first form in a page (the tool's and the platform's pages are ours to parse). */
export function formIn(html: string): FormPost {
  const action = /<form[^>]*action="([^"]*)"/.exec(html)?.[1] ?? '';
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1]!] = match[2]!
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
  }
  return { action: action.replace(/&amp;/g, '&'), fields };
}

export class FakeLtiPlatform {
  readonly clientId = 'merino-client-id';
  readonly deploymentId = 'deployment-1';
  next: NextLaunch = {};
  /** Deep-linking responses received and verified, newest last. */
  readonly deepLinkingResponses: JWTPayload[] = [];
  jwksRequests = 0;
  /** The tool's login initiation URL, which the course page frames. */
  toolLoginUrl = '';
  /** Whether the course page answers platform-storage messages (a platform that does not support them stays silent). */
  answersStorage = true;
  private readonly keys = new Map<string, PlatformKey>();
  private published: string[] = [];
  private server: Server | undefined;
  private issuerUrl = '';
  private toolJwksUrl = '';

  get issuer(): string {
    return this.issuerUrl;
  }

  get jwksUrl(): string {
    return `${this.issuerUrl}/jwks`;
  }

  get authUrl(): string {
    return `${this.issuerUrl}/auth`;
  }

  get deepLinkReturnUrl(): string {
    return `${this.issuerUrl}/deep-link-return`;
  }

  /** Starts listening; `toolJwksUrl` is where the platform fetches the tool's keys to check its answers. */
  async start(toolJwksUrl: string): Promise<void> {
    this.toolJwksUrl = toolJwksUrl;
    await this.addKey('platform-key-1', true);
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        response.statusCode = 500;
        response.end(String(error));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.issuerUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Creates a key; published keys appear in the JWKS. */
  async addKey(kid: string, publish: boolean): Promise<void> {
    this.keys.set(kid, await newKey(kid));
    if (publish) this.published.push(kid);
  }

  publish(kid: string): void {
    if (!this.published.includes(kid)) this.published.push(kid);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.issuerUrl);
    if (url.pathname === '/jwks') {
      this.jwksRequests += 1;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: this.published.map((kid) => this.keys.get(kid)!.publicJwk) }));
      return;
    }
    if (url.pathname === '/course') {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(this.coursePage());
      return;
    }
    if (url.pathname === '/auth') {
      const post = await this.authorize(url);
      response.setHeader('content-type', 'text/html');
      const inputs = Object.entries(post.fields)
        .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeAttribute(value)}">`)
        .join('');
      response.end(
        `<!doctype html><title>Platform</title><form method="post" action="${escapeAttribute(post.action)}">${inputs}<button>Continue</button></form>`,
      );
      return;
    }
    if (url.pathname === '/deep-link-return' && request.method === 'POST') {
      let body = '';
      for await (const chunk of request) body += String(chunk);
      const jwt = new URLSearchParams(body).get('JWT') ?? '';
      const { payload } = await jwtVerify(jwt, createRemoteJWKSet(new URL(this.toolJwksUrl)), {
        issuer: this.clientId,
        audience: this.issuerUrl,
      });
      this.deepLinkingResponses.push(payload);
      response.end('<!doctype html><title>Added</title><p>Activity added</p>');
      return;
    }
    response.statusCode = 404;
    response.end();
  }

  /** A course page framing the tool's login with platform storage offered, as Moodle or Canvas frames an activity. */
  private coursePage(): string {
    const login = new URL(this.toolLoginUrl);
    login.search = new URLSearchParams({
      iss: this.issuerUrl,
      login_hint: 'framed-user',
      target_link_uri: login.href.replace(/\/login$/, '/launch'),
      client_id: this.clientId,
      lti_deployment_id: this.deploymentId,
      lti_storage_target: '_parent',
    }).toString();
    return `<!doctype html><html lang="en"><head><title>Course</title><script>${STORAGE_SCRIPT}</script></head>
<body data-answers="${this.answersStorage ? 'yes' : 'no'}"><h1>Biology 101</h1>
<iframe name="activity" title="Activity" src="${escapeAttribute(login.href)}" style="width:100%;height:600px"></iframe></body></html>`;
  }

  /** The platform's side of the OIDC login: checks the tool's request and answers the form_post it would send back. */
  async authorize(url: URL): Promise<FormPost> {
    const parameters = url.searchParams;
    for (const [name, expected] of [
      ['scope', 'openid'],
      ['response_type', 'id_token'],
      ['response_mode', 'form_post'],
      ['prompt', 'none'],
      ['client_id', this.clientId],
    ] as const) {
      if (parameters.get(name) !== expected) throw new Error(`the tool sent ${name}=${parameters.get(name)}`);
    }
    const redirectUri = parameters.get('redirect_uri') ?? '';
    const idToken = await this.idToken(parameters.get('nonce') ?? '');
    return { action: redirectUri, fields: { id_token: idToken, state: parameters.get('state') ?? '' } };
  }

  /** A signed id_token for the next launch, with this nonce. */
  async idToken(nonce: string): Promise<string> {
    const next = this.next;
    const key = this.keys.get(next.kid ?? this.published[0]!)!;
    const messageType = next.messageType ?? 'LtiResourceLinkRequest';
    const now = Math.floor(Date.now() / 1000);
    const issuedAt = now + (next.issuedIn ?? 0);
    const claims: Record<string, unknown> = {
      nonce,
      name: 'Pat Platform',
      email: 'pat@platform.example',
      [`${CLAIM}message_type`]: messageType,
      [`${CLAIM}version`]: '1.3.0',
      [`${CLAIM}deployment_id`]: next.deploymentId ?? this.deploymentId,
      [`${CLAIM}roles`]: next.roles ?? ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'],
      [`${CLAIM}target_link_uri`]: 'ignored',
      [`${CLAIM}launch_presentation`]: { return_url: `${this.issuerUrl}/course/7`, document_target: 'iframe' },
      ...(messageType === 'LtiResourceLinkRequest' && {
        [`${CLAIM}resource_link`]: { id: next.resourceLinkId ?? 'rl-1', title: 'Week 1 tutor' },
      }),
      ...(next.custom && { [`${CLAIM}custom`]: next.custom }),
      ...(messageType === 'LtiDeepLinkingRequest' && {
        [`${DEEP_LINKING_CLAIM}deep_linking_settings`]: {
          deep_link_return_url: this.deepLinkReturnUrl,
          accept_types: ['ltiResourceLink'],
          accept_presentation_document_targets: ['iframe', 'window'],
          data: 'platform-opaque-data',
        },
      }),
      ...next.extraClaims,
    };
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
      .setIssuer(this.issuerUrl)
      .setAudience(next.audience ?? this.clientId)
      .setSubject(next.subject ?? 'platform-user-1')
      .setIssuedAt(issuedAt)
      .setExpirationTime(now + (next.expiresIn ?? 300))
      .sign(key.privateKey);
  }
}
