/**
 * What a trusted front end says about the person chatting, read from the headers Open WebUI 0.6+
 * sends with ENABLE_FORWARD_USER_INFO_HEADERS: `X-OpenWebUI-User-Email` (who), `-User-Name`
 * (percent-encoded by Open WebUI; the name of a learner created for them), and `-User-Id`,
 * `-User-Role` and `X-OpenWebUI-Chat-Id`, which are checked for size but never believed: Merino's
 * own account and role decide. Read only for requests permissions.ts lets name someone.
 */
import type { FastifyRequest } from 'fastify';
import type { ForwardedPerson } from '../auth/front-end-person-service.js';
import { AppError } from '../errors/app-error.js';

export const FORWARDED_EMAIL_HEADER = 'x-openwebui-user-email';
const FORWARDED_NAME_HEADER = 'x-openwebui-user-name';
/** Sent by Open WebUI and documented, but never believed (Merino's own records decide). */
const UNBELIEVED_HEADERS = ['x-openwebui-user-id', 'x-openwebui-user-role', 'x-openwebui-chat-id'] as const;
/** Longer than any email (254) or Open WebUI id; a longer value is refused, not cut. */
const HEADER_CHARACTERS_MAXIMUM = 320;
const EMAIL_SHAPE = /^[^\s@]{1,200}@[^\s@]{1,200}$/;
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers[name];
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (value !== undefined && value.length > HEADER_CHARACTERS_MAXIMUM)
    throw new AppError('invalid_parameter', `The ${name} header is longer than ${HEADER_CHARACTERS_MAXIMUM} characters.`, { param: name });
  return value;
}

/** Open WebUI percent-encodes the name (keeping spaces); a name that is not valid encoding is taken as sent. */
function decodedName(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let name = value;
  try {
    name = decodeURIComponent(value);
  } catch {
    // Sent unencoded by an older Open WebUI or another front end.
  }
  const cleaned = name.replace(CONTROL_CHARACTERS, ' ').trim();
  return cleaned === '' ? undefined : cleaned;
}

/** The person the headers name, or undefined when the request names nobody (it then runs as the key's own account). */
export function forwardedPersonOf(request: FastifyRequest): ForwardedPerson | undefined {
  for (const name of UNBELIEVED_HEADERS) headerValue(request, name);
  const email = headerValue(request, FORWARDED_EMAIL_HEADER)?.trim().toLowerCase();
  if (email === undefined) return undefined;
  if (!EMAIL_SHAPE.test(email))
    throw new AppError('invalid_parameter', `The ${FORWARDED_EMAIL_HEADER} header is not an email address.`, {
      param: FORWARDED_EMAIL_HEADER,
    });
  return { email, name: decodedName(headerValue(request, FORWARDED_NAME_HEADER)) };
}
