// `FORMSVC_RELEASE_KEY=key.pem npm run release -- --version X.Y.Z --base-url URL [--platforms linux-x64,…] [--out DIR] [--no-image]`
// fills dist/release/ with a release as docs/deploy.md describes it: one xz-compressed binary per platform (each
// knowing its version, the base URL and the public half of the key), manifest.json and its two signatures,
// install.sh, the linux-x64 OCI image archive and SHA256SUMS. The key is an Ed25519 private key in PEM, as
// `openssl genpkey -algorithm ed25519` writes it (a path, or the PEM itself).
// `npm run release -- --renew DIR [--expires-in DAYS]` signs DIR's manifest again with a later expiry.
import { createPublicKey, type KeyObject } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Artifact, artifactName, keyFingerprint, type Manifest, PLATFORMS, VERSION_PATTERN } from "../src/lib/release.ts";
import { compileBinary, gitCommit } from "./compile.ts";
import { imageArchive } from "./oci.ts";
import { expiryAfter, fileSha256, releaseKey, renewFolder, SSHSIG_NAMESPACE, signFolder, sshPublicKey } from "./release-sign.ts";

const root = join(import.meta.dir, "..");

/**
 * The Bun runtime a platform's binary embeds, where it is not `bun-<platform>`: Linux x64 takes Bun's baseline
 * build (x86-64-v2, any CPU since 2008), so that a VPS whose CPU model has no AVX2 runs it; test/release checks it
 * under qemu as such a CPU. (Bun 1.4.4's two builds are the same bytes; this keeps it so when Bun changes.)
 */
const RUNTIMES: Partial<Record<(typeof PLATFORMS)[number], string>> = { "linux-x64": "bun-linux-x64-baseline" };

/** The release's install.sh: deploy/install.sh with the release address and the public key (PEM and OpenSSH) written in. */
function installScript(baseUrl: string, publicKey: Uint8Array): string {
  const spki = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKey).toString("base64url") }, format: "jwk" });
  const pem = spki.export({ type: "spki", format: "pem" }).toString().trim();
  const template = readFileSync(join(root, "deploy", "install.sh"), "utf8");
  const filled = template
    .replace("@BASE_URL@", baseUrl)
    .replace("@PUBLIC_KEY_PEM@", pem)
    .replace("@PUBLIC_KEY_SSH@", `${SSHSIG_NAMESPACE} ${sshPublicKey(publicKey)}`);
  if (/@(BASE_URL|PUBLIC_KEY_PEM|PUBLIC_KEY_SSH)@/.test(filled)) throw new Error("deploy/install.sh has a placeholder twice");
  return filled;
}

/**
 * How long a release's manifest vouches for being the latest: a publisher renews it (--renew) before then, and
 * a folder that still serves it after is refused as stale (docs/deploy.md, "Freshness").
 */
const DEFAULT_EXPIRY_DAYS = 90;

/** Compresses `from` into `to` with xz (one thread, so that the same binary gives the same bytes). */
function compressXz(from: string, to: string, preset: string): void {
  if (!/^\de?$/.test(preset)) throw new Error(`--xz-preset ${preset} is not 0-9, with or without e`);
  const xz = Bun.spawnSync(["xz", `-${preset}`, "-T1", "--check=crc64", "-c", from], { stdout: Bun.file(to), stderr: "pipe" });
  if (xz.exitCode !== 0) throw new Error(`xz ${from} failed (is xz installed? apt-get install xz-utils): ${xz.stderr.toString().trim()}`);
}

/** Builds a whole release into `out`; returns the manifest. */
export async function buildRelease(options: {
  version: string;
  baseUrl: string;
  platforms: readonly string[];
  out: string;
  key: { privateKey: KeyObject; publicKey: Uint8Array };
  /** Leave the image out (a quicker release for a try; a published release has it). */
  noImage?: boolean;
  /** How long the manifest vouches for being the latest (default DEFAULT_EXPIRY_DAYS). */
  expiresInDays?: number;
  /** xz's preset (default 9e, the smallest; 0 is quick, for tests). */
  xzPreset?: string;
  log?: (line: string) => void;
}): Promise<Manifest> {
  const log = options.log ?? (() => {});
  if (!VERSION_PATTERN.test(options.version)) throw new Error(`--version ${options.version} is not X.Y.Z`);
  if (!/^https?:\/\/[^/]/.test(options.baseUrl)) throw new Error(`--base-url ${options.baseUrl} is not an http(s) address`);
  const unknown = options.platforms.filter((p) => !(PLATFORMS as readonly string[]).includes(p));
  if (unknown.length > 0) throw new Error(`unknown platform ${unknown.join(", ")}: choose among ${PLATFORMS.join(", ")}`);
  rmSync(options.out, { recursive: true, force: true });
  mkdirSync(options.out, { recursive: true });
  const commit = gitCommit();
  const publishedAt = new Date().toISOString();
  const release = { version: options.version, baseUrl: options.baseUrl, publicKey: Buffer.from(options.key.publicKey).toString("base64") };

  // The binaries are built beside the folder, not in it: it publishes them compressed only.
  const binaries = `${options.out}.binaries`;
  rmSync(binaries, { recursive: true, force: true });
  mkdirSync(binaries, { recursive: true });
  const artifacts: Artifact[] = [];
  for (const platform of options.platforms) {
    const [os = "", arch = ""] = platform.split("-");
    const name = artifactName(os, arch);
    const outfile = join(binaries, name);
    const started = performance.now();
    await compileBinary({ outfile, target: RUNTIMES[platform as (typeof PLATFORMS)[number]] ?? `bun-${platform}`, commit, release });
    chmodSync(outfile, 0o755);
    const xz = `${name}.xz`;
    compressXz(outfile, join(options.out, xz), options.xzPreset ?? "9e");
    const size = statSync(outfile).size;
    const xzSize = statSync(join(options.out, xz)).size;
    artifacts.push({ name, os, arch, size, sha256: fileSha256(outfile), xz, xzSize, xzSha256: fileSha256(join(options.out, xz)) });
    log(`${name}: ${(size / 1e6).toFixed(1)} MB, ${xz} ${(xzSize / 1e6).toFixed(1)} MB, in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }

  const manifest: Manifest = {
    version: options.version,
    publishedAt,
    expiresAt: expiryAfter(new Date(publishedAt), options.expiresInDays ?? DEFAULT_EXPIRY_DAYS),
    baseUrl: options.baseUrl,
    releaseKey: keyFingerprint(options.key.publicKey),
    artifacts,
  };
  writeFileSync(join(options.out, "install.sh"), installScript(options.baseUrl, options.key.publicKey), { mode: 0o755 });

  if (options.platforms.includes("linux-x64") && !options.noImage) {
    const started = performance.now();
    const image = `formsvc-${options.version}-linux-x64.oci.tar`;
    writeFileSync(
      join(options.out, image),
      imageArchive({ binary: join(binaries, artifactName("linux", "x64")), version: options.version, createdAt: publishedAt }),
    );
    log(`${image}: ${(statSync(join(options.out, image)).size / 1e6).toFixed(1)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }

  signFolder(options.out, manifest, options.key);
  return manifest;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      version: { type: "string" },
      "base-url": { type: "string" },
      platforms: { type: "string", default: PLATFORMS.join(",") },
      out: { type: "string", default: join(root, "dist", "release") },
      "no-image": { type: "boolean", default: false },
      "expires-in": { type: "string", default: String(DEFAULT_EXPIRY_DAYS) },
      "xz-preset": { type: "string", default: "9e" },
      renew: { type: "string" },
    },
  });
  try {
    const expiresInDays = Number(values["expires-in"]);
    if (!Number.isInteger(expiresInDays) || expiresInDays < 1) throw new Error(`--expires-in ${values["expires-in"]} is not a number of days`);
    if (values.renew) {
      const renewed = renewFolder(values.renew, expiresInDays, releaseKey(process.env.FORMSVC_RELEASE_KEY));
      console.error(`${values.renew}/manifest.json (formsvc ${renewed.version}) signed again, valid until ${renewed.expiresAt}: publish it and its signatures`);
      process.exit(0);
    }
    if (!values.version || !values["base-url"])
      throw new Error("usage: FORMSVC_RELEASE_KEY=key.pem npm run release -- --version X.Y.Z --base-url URL [--platforms linux-x64,…]");
    const started = performance.now();
    const manifest = await buildRelease({
      version: values.version,
      baseUrl: values["base-url"],
      platforms: values.platforms.split(",").map((p) => p.trim()),
      out: values.out,
      key: releaseKey(process.env.FORMSVC_RELEASE_KEY),
      noImage: values["no-image"],
      expiresInDays,
      xzPreset: values["xz-preset"],
      log: (line) => console.error(line),
    });
    console.error(`release ${manifest.version} in ${values.out} (${((performance.now() - started) / 1000).toFixed(0)} s), key ${manifest.releaseKey}`);
    console.error(`the binaries themselves are in ${values.out}.binaries; renew the manifest before ${manifest.expiresAt} (--renew)`);
    console.error(`publish the folder's files at ${manifest.baseUrl}/ and ${manifest.baseUrl}/${manifest.version}/`);
  } catch (error) {
    console.error(`release: ${(error as Error).message}`);
    process.exit(1);
  }
}
