import { createHash, createHmac } from "node:crypto";

/** A small S3-compatible server on loopback: one bucket, path-style PUT, GET, DELETE and ListObjectsV2, SigV4 checked. */
export interface S3Server {
  url: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The objects held, by key. */
  objects: Map<string, Uint8Array>;
  /** Every request, as `METHOD key-or-?list`, in order. */
  log: string[];
  stop(): void;
}

// RFC 3986 encoding, as SigV4 wants it in the canonical query string.
const encode = (value: string) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: string | Buffer, text: string) => createHmac("sha256", key).update(text).digest();
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Whether the request carries a valid AWS Signature Version 4 made with the secret. */
function signatureValid(request: Request, url: URL, accessKeyId: string, secret: string): boolean {
  const found = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
    request.headers.get("authorization") ?? "",
  );
  if (!found || found[1] !== accessKeyId) return false;
  const [, , date, region, signedHeaders, signature] = found as unknown as [string, string, string, string, string, string];
  const amzDate = request.headers.get("x-amz-date") ?? "";
  const query = [...url.searchParams]
    .map(([key, value]) => [encode(key), encode(value)])
    .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join("&");
  const headers = signedHeaders
    .split(";")
    .map((name) => `${name}:${(request.headers.get(name) ?? "").trim().replace(/\s+/g, " ")}\n`)
    .join("");
  const canonical = [request.method, url.pathname, query, headers, signedHeaders, request.headers.get("x-amz-content-sha256") ?? ""].join("\n");
  const scope = `${date}/${region}/s3/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonical)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), "s3"), "aws4_request");
  return hmac(key, toSign).toString("hex") === signature;
}

const xml = (status: number, body: string) =>
  new Response(`<?xml version="1.0" encoding="UTF-8"?>${body}`, { status, headers: { "content-type": "application/xml" } });
const error = (status: number, code: string) => xml(status, `<Error><Code>${code}</Code><Message>${code}</Message></Error>`);

/** Starts the server on a free port. */
export function startS3Server(bucket = "backups"): S3Server {
  const accessKeyId = "AKIATESTFORMSVC";
  const secretAccessKey = "test-secret-key-for-formsvc";
  const objects = new Map<string, Uint8Array>();
  const log: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (!signatureValid(request, url, accessKeyId, secretAccessKey)) return error(403, "SignatureDoesNotMatch");
      const [, name, ...rest] = url.pathname.split("/");
      if (name !== bucket) return error(404, "NoSuchBucket");
      const key = decodeURIComponent(rest.join("/"));
      if (request.method === "GET" && key === "" && url.searchParams.get("list-type") === "2") {
        log.push("LIST");
        const prefix = url.searchParams.get("prefix") ?? "";
        const keys = [...objects.keys()].filter((k) => k.startsWith(prefix)).sort();
        const contents = keys
          .map(
            (k) =>
              `<Contents><Key>${k}</Key><LastModified>${new Date().toISOString()}</LastModified><ETag>"${sha256(k)}"</ETag><Size>${objects.get(k)!.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
          )
          .join("");
        return xml(
          200,
          `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${prefix}</Prefix><KeyCount>${keys.length}</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>${contents}</ListBucketResult>`,
        );
      }
      log.push(`${request.method} ${key}`);
      if (request.method === "PUT") {
        const body = new Uint8Array(await request.arrayBuffer());
        if (sha256Bytes(body) !== request.headers.get("x-amz-content-sha256") && request.headers.get("x-amz-content-sha256") !== "UNSIGNED-PAYLOAD") {
          return error(400, "XAmzContentSHA256Mismatch");
        }
        objects.set(key, body);
        return new Response(null, { status: 200, headers: { etag: `"${sha256Bytes(body)}"` } });
      }
      if (request.method === "GET") {
        const body = objects.get(key);
        return body ? new Response(Buffer.from(body), { headers: { "content-type": "application/octet-stream" } }) : error(404, "NoSuchKey");
      }
      if (request.method === "DELETE") {
        objects.delete(key);
        return new Response(null, { status: 204 });
      }
      return error(405, "MethodNotAllowed");
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, bucket, accessKeyId, secretAccessKey, objects, log, stop: () => server.stop(true) };
}

const sha256Bytes = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
