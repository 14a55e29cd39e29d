// What a release of formsvc is: the version, base URL and signing key a binary was built with, and the signed
// manifest a release folder holds (docs/deploy.md, "Upgrades"). `npm run release` writes what this reads;
// `formsvc update` and the dashboard's account page read it.
import { createHash, createPublicKey, verify } from "node:crypto";

// Set by `npm run release` (scripts/release.ts defines them for each binary it compiles); absent in a
// development build (`bun cli/formsvc.ts`, `npm run build`).
declare const FORMSVC_VERSION: string | undefined;
declare const FORMSVC_BASE_URL: string | undefined;
/** The raw 32-byte Ed25519 public key of the release, base64. */
declare const FORMSVC_RELEASE_PUBLIC_KEY: string | undefined;

/** One binary of a release, as manifest.json lists it: the binary, and the xz file it is published as. */
export interface Artifact {
  name: string;
  os: string;
  arch: string;
  /** The binary's own size and SHA-256, once unpacked. */
  size: number;
  sha256: string;
  /** The file downloaded (`formsvc-os-arch.xz`), its size and SHA-256; absent in releases before 1.1. */
  xz?: string;
  xzSize?: number;
  xzSha256?: string;
}

/** manifest.json: what a release folder holds, signed as a whole (manifest.json.sig). */
export interface Manifest {
  version: string;
  publishedAt: string;
  /**
   * When the signature stops vouching that this is the latest release: after it, a folder still serving this
   * manifest as the latest is stale or frozen (docs/deploy.md, "Freshness"). Absent in releases before 1.1.
   */
  expiresAt?: string;
  baseUrl: string;
  /** The fingerprint of the key that signed it (see keyFingerprint), so that a refusal can name it. */
  releaseKey: string;
  artifacts: Artifact[];
}

/** What a binary knows of itself: `formsvc version --json` without the schema. */
export interface BuildInfo {
  version: string;
  os: string;
  arch: string;
  baseUrl: string | null;
  releaseKey: string | null;
}

/** A reason an update or check cannot go on, said in one line. */
export class ReleaseError extends Error {}

export const VERSION_PATTERN = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

/** The platforms a release is built for, as `os-arch`: the artifact of each is `formsvc-os-arch`. */
export const PLATFORMS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"] as const;

/** The name of the binary of one platform in a release folder. */
export const artifactName = (os: string, arch: string) => `formsvc-${os}-${arch}`;

/** The lowercase hex SHA-256 of a raw Ed25519 public key: how a binary and a manifest name their key. */
export const keyFingerprint = (publicKey: Uint8Array) => createHash("sha256").update(publicKey).digest("hex");

/** The release public key built into this binary, or null in a development build. */
export function builtInKey(): Uint8Array | null {
  return typeof FORMSVC_RELEASE_PUBLIC_KEY === "string" ? Buffer.from(FORMSVC_RELEASE_PUBLIC_KEY, "base64") : null;
}

/** The version, platform, base URL and key fingerprint this binary was built with. */
export function buildInfo(): BuildInfo {
  const key = builtInKey();
  return {
    version: typeof FORMSVC_VERSION === "string" ? FORMSVC_VERSION : "dev",
    os: process.platform,
    arch: process.arch,
    baseUrl: typeof FORMSVC_BASE_URL === "string" ? FORMSVC_BASE_URL : null,
    releaseKey: key ? keyFingerprint(key) : null,
  };
}

/** A release folder's address with one trailing slash; with a version, that version's own folder. */
export function releaseFolder(base: string, version?: string): string {
  const folder = base.endsWith("/") ? base : `${base}/`;
  return version ? `${folder}${version}/` : folder;
}

/** Orders two versions X.Y.Z[-pre]: negative when a is older; a pre-release comes before its release. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => {
    const [core = "", pre] = v.split(/-(.*)/s);
    return { numbers: core.split(".").map(Number), pre };
  };
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.numbers[i] ?? 0) - (y.numbers[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}

/** Reads a manifest's JSON, refusing anything not in its shape. */
function parseManifest(bytes: Uint8Array): Manifest {
  let value: Partial<Manifest>;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new ReleaseError("manifest.json is not JSON");
  }
  const hex = (sha256: unknown) => typeof sha256 === "string" && /^[0-9a-f]{64}$/.test(sha256);
  const xzOk = (a: Partial<Artifact>) =>
    a.xz === undefined || (typeof a.xz === "string" && /^[\w.-]+\.xz$/.test(a.xz) && typeof a.xzSize === "number" && hex(a.xzSha256));
  const artifactOk = (a: Partial<Artifact>) => typeof a?.name === "string" && typeof a.size === "number" && hex(a.sha256) && xzOk(a);
  const expiresOk = value?.expiresAt === undefined || (typeof value.expiresAt === "string" && !Number.isNaN(Date.parse(value.expiresAt)));
  if (
    typeof value?.version !== "string" ||
    !VERSION_PATTERN.test(value.version) ||
    !expiresOk ||
    !Array.isArray(value.artifacts) ||
    !value.artifacts.every(artifactOk)
  ) {
    throw new ReleaseError("manifest.json is not a formsvc release manifest");
  }
  return value as Manifest;
}

/** The fingerprint a manifest says it was signed with, or null when it says none. */
function claimedKey(bytes: Uint8Array): string | null {
  try {
    const key = (JSON.parse(new TextDecoder().decode(bytes)) as { releaseKey?: unknown }).releaseKey;
    return typeof key === "string" ? key : null;
  } catch {
    return null;
  }
}

/**
 * Checks manifest.json's bytes against its signature and the key this binary trusts, then reads it. A manifest
 * signed by another key, or changed after signing, is refused with a reason that says which.
 */
export function verifyManifest(bytes: Uint8Array, signatureBase64: string, publicKey: Uint8Array): Manifest {
  const signature = Buffer.from(signatureBase64.trim(), "base64");
  if (signature.length !== 64) throw new ReleaseError("manifest.json.sig is not an Ed25519 signature in base64");
  const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKey).toString("base64url") }, format: "jwk" });
  if (!verify(null, bytes, key, signature)) {
    const trusted = keyFingerprint(publicKey);
    const claimed = claimedKey(bytes);
    if (claimed && claimed !== trusted) {
      throw new ReleaseError(`manifest.json is signed by an unknown key (${claimed.slice(0, 16)}…), not this formsvc's release key (${trusted.slice(0, 16)}…)`);
    }
    throw new ReleaseError("the signature of manifest.json does not match it: the manifest was changed after it was signed");
  }
  return parseManifest(bytes);
}

/** GETs one file of a release folder whole; a failure is one line naming the address. */
export async function fetchReleaseFile(url: string, fetcher: typeof fetch = fetch): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetcher(url, { redirect: "follow" });
  } catch (error) {
    throw new ReleaseError(`cannot reach ${url}: ${(error as Error).message}`);
  }
  if (!response.ok) throw new ReleaseError(`${url} answered ${response.status}`);
  try {
    return new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    throw new ReleaseError(`the download of ${url} was cut short: ${(error as Error).message}`);
  }
}

/** The signed manifest of a release folder, checked against the built-in key. */
export async function fetchManifest(folder: string, publicKey: Uint8Array, fetcher: typeof fetch = fetch): Promise<Manifest> {
  const [bytes, signature] = await Promise.all([fetchReleaseFile(`${folder}manifest.json`, fetcher), fetchReleaseFile(`${folder}manifest.json.sig`, fetcher)]);
  return verifyManifest(bytes, new TextDecoder().decode(signature), publicKey);
}

/**
 * Refuses a folder's latest manifest whose signature has expired: a mirror that keeps serving an old signed
 * release as the latest would otherwise hold an instance back without a word. A version asked for by name
 * (`--to`) is old on purpose and is not checked.
 */
export function checkFresh(manifest: Manifest, folder: string, now = new Date()): Manifest {
  if (manifest.expiresAt && Date.parse(manifest.expiresAt) < now.getTime()) {
    throw new ReleaseError(
      `the manifest at ${folder} expired on ${manifest.expiresAt} (formsvc ${manifest.version}): the folder is stale or a mirror serves an old release; ` +
        "ask its publisher to renew it, or pass --to VERSION",
    );
  }
  return manifest;
}

/** What `formsvc update --check` answers: the running version, the newest the release folder has, and whether it is newer. */
export interface UpdateCheck {
  current: string;
  available: string;
  newer: boolean;
  from: string;
}

/**
 * Asks a release folder (default: the one this binary was released from; with `to`, that version's) for its
 * version, checked against the built-in key: what `formsvc update --check` and the dashboard say.
 */
export async function checkForUpdate(options: { from?: string; to?: string } = {}, fetcher: typeof fetch = fetch): Promise<UpdateCheck> {
  const info = buildInfo();
  const key = builtInKey();
  if (!key) throw new ReleaseError("this is a development build of formsvc: it knows no release to update from (install a release: docs/deploy.md)");
  const base = options.from ?? info.baseUrl;
  if (!base) throw new ReleaseError("this formsvc was released without an address to update from: pass --from URL");
  const folder = releaseFolder(base, options.to);
  const manifest = await fetchManifest(folder, key, fetcher);
  if (!options.to) checkFresh(manifest, folder);
  return { current: info.version, available: manifest.version, newer: compareVersions(manifest.version, info.version) > 0, from: folder };
}
