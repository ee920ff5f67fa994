/**
 * The `s3` blob driver: any S3-compatible object store (AWS S3, MinIO, Ceph, Garage…) through
 * the official AWS SDK, configured by STORAGE_URL, e.g.
 * `s3://bucket/prefix?endpoint=http://127.0.0.1:9000&region=us-east-1&path_style=true`.
 * Credentials come from the SDK's usual sources (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY,
 * a profile, an instance role), never from the URL, so the URL can be logged. Writes go through
 * the SDK's multipart uploader: a file larger than one part is sent in parts, a few at a time,
 * and an object appears under its key only when the upload completes. This is the operator's own
 * storage, so it is not subject to the outbound rules that guard organization-set URLs. The SDK is
 * loaded on first use: its modules take a few MiB of heap, which servers on other storage never pay.
 */
import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { AppError } from '../errors/app-error.js';
import {
  checkBlobKey,
  checkBlobPrefix,
  checkByteRange,
  HashingCounter,
  type BlobInfo,
  type BlobStorage,
  type ByteRange,
  type WrittenBlob,
} from './blob-storage.js';
import type { S3Location } from './s3-location.js';

export interface S3BlobStorageOptions {
  location: S3Location;
  /** STORAGE_S3_PART_BYTES: S3 takes parts of 5 MiB to 5 GiB (the last may be smaller). */
  partBytes: number;
  /** How many parts of one upload are sent at once. */
  partsInFlight: number;
  /** How long a request may wait for a connection or for its next byte before it fails. */
  timeoutMilliseconds: number;
}

/**
 * Any failure of the storage itself (refused or timed-out connection, credentials refused, a 5xx)
 * as the 503 `storage_unavailable`: clients learn the storage failed, never the SDK's text or the
 * endpoint. The original stays in `cause` for the log.
 */
function unavailable(error: unknown): AppError {
  return new AppError('storage_unavailable', undefined, { cause: error });
}

/** The SDK's two packages, loaded together the first time a storage call needs them. */
interface Sdk {
  s3: typeof import('@aws-sdk/client-s3');
  storage: typeof import('@aws-sdk/lib-storage');
}

let sdkLoading: Promise<Sdk> | undefined;

function loadSdk(): Promise<Sdk> {
  sdkLoading ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]).then(([s3, storage]) => ({ s3, storage }));
  return sdkLoading;
}

function isMissing(error: unknown, sdk: Sdk): boolean {
  if (!(error instanceof sdk.s3.S3ServiceException)) return false;
  return error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404;
}

export class S3BlobStorage implements BlobStorage {
  readonly driver = 's3';
  private readonly location: S3Location;
  private connecting: Promise<{ sdk: Sdk; client: S3Client }> | undefined;

  constructor(private readonly options: S3BlobStorageOptions) {
    this.location = options.location;
  }

  /** The SDK and one client, made on the first call. */
  private connect(): Promise<{ sdk: Sdk; client: S3Client }> {
    this.connecting ??= loadSdk().then((sdk) => ({
      sdk,
      client: new sdk.s3.S3Client({
        region: this.location.region,
        ...(this.location.endpoint !== undefined && { endpoint: this.location.endpoint }),
        forcePathStyle: this.location.pathStyle,
        // Checksums only where S3 requires them: many S3-compatible stores do not take the newer trailing checksums.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        requestHandler: { connectionTimeout: this.options.timeoutMilliseconds, requestTimeout: this.options.timeoutMilliseconds },
      }),
    }));
    return this.connecting;
  }

  private objectKey(key: string): string {
    return `${this.location.prefix}${checkBlobKey(key)}`;
  }

  async write(key: string, bytes: AsyncIterable<Uint8Array>): Promise<WrittenBlob> {
    const { sdk, client } = await this.connect();
    const counter = new HashingCounter();
    // The source's own failure (a size limit, a content check, a client gone) is passed on as it is.
    let sourceFailure: { error: unknown } | undefined;
    async function* source(): AsyncGenerator<Uint8Array> {
      try {
        yield* counter.pass(bytes);
      } catch (error) {
        sourceFailure = { error };
        throw error;
      }
    }
    const upload = new sdk.storage.Upload({
      client,
      params: { Bucket: this.location.bucket, Key: this.objectKey(key), Body: Readable.from(source()) },
      partSize: this.options.partBytes,
      queueSize: this.options.partsInFlight,
      // A failed upload removes the parts it sent.
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      if (sourceFailure !== undefined) throw sourceFailure.error;
      throw unavailable(error);
    }
    return counter.result();
  }

  async read(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined> {
    checkByteRange(range);
    const objectKey = this.objectKey(key);
    if (range !== undefined) {
      const info = await this.stat(key);
      if (info === undefined) return undefined;
      // S3 answers a range starting past the end with 416; an empty stream says the same thing without an error.
      if (range.start >= info.sizeBytes) return Readable.from([]);
    }
    const { sdk, client } = await this.connect();
    try {
      const answer = await client.send(
        new sdk.s3.GetObjectCommand({
          Bucket: this.location.bucket,
          Key: objectKey,
          ...(range !== undefined && { Range: `bytes=${range.start}-${range.end ?? ''}` }),
        }),
      );
      return answer.Body as Readable;
    } catch (error) {
      if (isMissing(error, sdk)) return undefined;
      throw unavailable(error);
    }
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    const objectKey = this.objectKey(key);
    const { sdk, client } = await this.connect();
    try {
      const answer = await client.send(new sdk.s3.HeadObjectCommand({ Bucket: this.location.bucket, Key: objectKey }));
      return { key, sizeBytes: answer.ContentLength ?? 0, modifiedAt: answer.LastModified?.getTime() ?? 0 };
    } catch (error) {
      if (isMissing(error, sdk)) return undefined;
      throw unavailable(error);
    }
  }

  async delete(key: string): Promise<void> {
    const objectKey = this.objectKey(key);
    const { sdk, client } = await this.connect();
    await client.send(new sdk.s3.DeleteObjectCommand({ Bucket: this.location.bucket, Key: objectKey })).catch((error: unknown) => {
      throw unavailable(error);
    });
  }

  async deletePrefix(prefix: string): Promise<void> {
    checkBlobPrefix(prefix);
    for await (const blob of this.list(prefix)) await this.delete(blob.key);
  }

  async move(from: string, to: string): Promise<void> {
    const source = this.objectKey(from);
    const { sdk, client } = await this.connect();
    await client
      .send(
        new sdk.s3.CopyObjectCommand({
          Bucket: this.location.bucket,
          Key: this.objectKey(to),
          CopySource: `${this.location.bucket}/${source}`,
        }),
      )
      .catch((error: unknown) => {
        throw unavailable(error);
      });
    await this.delete(from);
  }

  async *list(prefix: string): AsyncGenerator<BlobInfo> {
    checkBlobPrefix(prefix);
    const { sdk, client } = await this.connect();
    let continuationToken: string | undefined;
    do {
      const page = await client
        .send(
          new sdk.s3.ListObjectsV2Command({
            Bucket: this.location.bucket,
            Prefix: `${this.location.prefix}${prefix}`,
            ...(continuationToken !== undefined && { ContinuationToken: continuationToken }),
          }),
        )
        .catch((error: unknown) => {
          throw unavailable(error);
        });
      for (const object of page.Contents ?? []) {
        const key = object.Key?.slice(this.location.prefix.length) ?? '';
        yield { key, sizeBytes: object.Size ?? 0, modifiedAt: object.LastModified?.getTime() ?? 0 };
      }
      continuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (continuationToken !== undefined);
  }

  /** Aborts multipart uploads a killed process left open (a bucket lifecycle rule can do the same). */
  async sweepUnfinished(graceMilliseconds: number): Promise<number> {
    const cutoff = Date.now() - graceMilliseconds;
    const { sdk, client } = await this.connect();
    const answer = await client.send(
      new sdk.s3.ListMultipartUploadsCommand({ Bucket: this.location.bucket, Prefix: this.location.prefix }),
    );
    let aborted = 0;
    for (const upload of answer.Uploads ?? []) {
      if ((upload.Initiated?.getTime() ?? cutoff) >= cutoff || upload.Key === undefined || upload.UploadId === undefined) continue;
      await client.send(
        new sdk.s3.AbortMultipartUploadCommand({ Bucket: this.location.bucket, Key: upload.Key, UploadId: upload.UploadId }),
      );
      aborted += 1;
    }
    return aborted;
  }

  async close(): Promise<void> {
    if (this.connecting !== undefined) (await this.connecting).client.destroy();
  }
}
