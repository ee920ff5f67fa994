/**
 * STORAGE_URL's S3 form, `s3://bucket/prefix?endpoint=…&region=…&path_style=true`, read into
 * the parts the S3 driver needs. Kept apart from the driver so that reading settings does not
 * load the AWS SDK.
 */
import { checkBlobKey } from './blob-storage.js';

export interface S3Location {
  bucket: string;
  /** Put in front of every key: empty, or ending in `/`. */
  prefix: string;
  endpoint: string | undefined;
  region: string;
  pathStyle: boolean;
}

/** The path without its leading and trailing slashes; a loop, since a regex for trailing runs backtracks quadratically. */
function trimSlashes(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === '/') start += 1;
  while (end > start && text[end - 1] === '/') end -= 1;
  return text.slice(start, end);
}

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Reads `s3://bucket/prefix?endpoint=…&region=…&path_style=true`; throws a message naming what is wrong (never echoing the URL). */
export function parseS3Url(text: string): S3Location {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('expected a URL such as s3://bucket/prefix?endpoint=http://127.0.0.1:9000&region=us-east-1&path_style=true');
  }
  if (url.protocol !== 's3:') throw new Error(`only s3:// URLs name object storage, got ${url.protocol}//`);
  if (url.username !== '' || url.password !== '')
    throw new Error('credentials do not belong in the URL; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
  if (!BUCKET_NAME.test(url.hostname)) throw new Error('the bucket name (the URL host) is not a valid S3 bucket name');
  const prefix = trimSlashes(url.pathname);
  if (prefix !== '') checkBlobKey(prefix);
  const endpoint = url.searchParams.get('endpoint') ?? undefined;
  if (endpoint !== undefined && !/^https?:\/\//.test(endpoint)) throw new Error('endpoint must be an http:// or https:// URL');
  const pathStyle = url.searchParams.get('path_style') ?? 'false';
  if (pathStyle !== 'true' && pathStyle !== 'false') throw new Error('path_style must be true or false');
  return {
    bucket: url.hostname,
    prefix: prefix === '' ? '' : `${prefix}/`,
    endpoint,
    region: url.searchParams.get('region') ?? process.env.AWS_REGION ?? 'us-east-1',
    pathStyle: pathStyle === 'true',
  };
}
