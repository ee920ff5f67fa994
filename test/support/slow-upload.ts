/**
 * A multipart upload sent a part at a time over one open request, for tests that need an upload
 * in progress when a process is killed or swept: its temporary file exists while the request
 * stays open, and keeps being written to for as long as the test sends more.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';

export interface SlowUpload {
  /** Sends more of the file, keeping the request open. */
  send(part: string): void;
  /** Sends the rest of the file and the closing boundary; resolves with the answer. */
  finish(rest: string): Promise<{ status: number; body: any }>;
}

/** Starts a multipart upload and sends only its first part, keeping the request open. */
export function startSlowUpload(baseUrl: string, urlPath: string, token: string, fileName: string, firstPart: string): SlowUpload {
  const boundary = `----merino-slow-${randomBytes(8).toString('hex')}`;
  const url = new URL(urlPath, baseUrl);
  const outgoing = http.request({
    method: 'POST',
    hostname: url.hostname,
    port: url.port,
    path: url.pathname,
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text) }));
    });
  });
  // A killed server resets the connection: that failure is expected, not a test error.
  answer.catch(() => undefined);
  outgoing.write(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: text/plain\r\n\r\n${firstPart}`,
  );
  return {
    send(part) {
      outgoing.write(part);
    },
    finish(rest) {
      outgoing.end(`${rest}\r\n--${boundary}--\r\n`);
      return answer;
    },
  };
}
