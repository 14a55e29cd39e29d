// Buckets of S3-compatible services (AWS S3, MinIO, R2, B2), reached with Bun's own S3 client.

/** Where a bucket's copies go: `s3://bucket/prefix`, an S3-compatible endpoint, and the AWS credentials. */
export interface S3Target {
  bucket: string;
  /** The key prefix, without a trailing slash ("" for the bucket's root). */
  prefix: string;
  endpoint?: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** The client of an `s3://` target, with the credentials given (Bun's own S3 client, path-style addresses). */
export function s3Client(target: S3Target): Bun.S3Client {
  return new Bun.S3Client({
    bucket: target.bucket,
    endpoint: target.endpoint,
    region: target.region,
    accessKeyId: target.accessKeyId,
    secretAccessKey: target.secretAccessKey,
    sessionToken: target.sessionToken,
  });
}

/** `s3://bucket/some/prefix` as bucket and prefix, or null when it is not one. */
export function parseS3Url(value: string): { bucket: string; key: string } | null {
  const found = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(value);
  return found ? { bucket: found[1]!, key: (found[2] ?? "").replace(/\/+$/, "") } : null;
}
