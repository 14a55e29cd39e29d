// `FORMSVC_RELEASE_KEY=key.pem npm run release -- --version X.Y.Z --base-url URL [--platforms linux-x64,…] [--out DIR] [--no-image]`
// fills dist/release/ with a release as docs/deploy.md describes it: one binary per platform (each knowing its
// version, the base URL and the public half of the key), manifest.json and its Ed25519 signature, install.sh,
// the linux-x64 OCI image archive and SHA256SUMS. The key is an Ed25519 private key in PEM, as
// `openssl genpkey -algorithm ed25519` writes it (a path, or the PEM itself).
import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Artifact, artifactName, keyFingerprint, type Manifest, PLATFORMS, VERSION_PATTERN } from "../src/lib/release.ts";
import { compileBinary, gitCommit } from "./compile.ts";
import { imageArchive } from "./oci.ts";

const root = join(import.meta.dir, "..");

/** The Ed25519 private key named by FORMSVC_RELEASE_KEY, and the raw 32 bytes of its public half. */
/**
 * The Bun runtime a platform's binary embeds, where it is not `bun-<platform>`: Linux x64 takes Bun's baseline
 * build (x86-64-v2, any CPU since 2008), so that a VPS whose CPU model has no AVX2 runs it; test/release checks it
 * under qemu as such a CPU. (Bun 1.4.4's two builds are the same bytes; this keeps it so when Bun changes.)
 */
const RUNTIMES: Partial<Record<(typeof PLATFORMS)[number], string>> = { "linux-x64": "bun-linux-x64-baseline" };

export function releaseKey(pathOrPem: string | undefined): { privateKey: KeyObject; publicKey: Uint8Array } {
  if (!pathOrPem) throw new Error("FORMSVC_RELEASE_KEY must name the release's Ed25519 private key (PEM): openssl genpkey -algorithm ed25519 -out key.pem");
  const pem = pathOrPem.includes("-----BEGIN") ? pathOrPem : readFileSync(pathOrPem, "utf8");
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== "ed25519") throw new Error(`the release key is ${privateKey.asymmetricKeyType}, not ed25519`);
  const jwk = createPublicKey(privateKey).export({ format: "jwk" });
  return { privateKey, publicKey: Buffer.from(jwk.x!, "base64url") };
}

/** The SHA-256 of a file, read in pieces. */
function fileSha256(path: string): string {
  const hash = createHash("sha256");
  hash.update(readFileSync(path));
  return hash.digest("hex");
}

/**
 * manifest.json's text: one artifact a line, so that install.sh can find its own with grep and sed (it runs
 * where there is no JSON parser). The signature covers these exact bytes.
 */
export function manifestText(manifest: Manifest): string {
  const { artifacts, ...head } = manifest;
  const fields = Object.entries(head).map(([key, value]) => `  ${JSON.stringify(key)}: ${JSON.stringify(value)},`);
  return `{\n${fields.join("\n")}\n  "artifacts": [\n${artifacts.map((a) => `    ${JSON.stringify(a)}`).join(",\n")}\n  ]\n}\n`;
}

/** The release's install.sh: deploy/install.sh with the release address, the public key and the unit written in. */
function installScript(baseUrl: string, publicKey: Uint8Array): string {
  const spki = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKey).toString("base64url") }, format: "jwk" });
  const pem = spki.export({ type: "spki", format: "pem" }).toString().trim();
  const unit = readFileSync(join(root, "deploy", "formsvc.service"), "utf8").trimEnd();
  const template = readFileSync(join(root, "deploy", "install.sh"), "utf8");
  const filled = template.replace("@BASE_URL@", baseUrl).replace("@PUBLIC_KEY_PEM@", pem).replace("@UNIT@", unit);
  if (/@(BASE_URL|PUBLIC_KEY_PEM|UNIT)@/.test(filled)) throw new Error("deploy/install.sh has a placeholder twice");
  return filled;
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

  const artifacts: Artifact[] = [];
  for (const platform of options.platforms) {
    const [os = "", arch = ""] = platform.split("-");
    const name = artifactName(os, arch);
    const outfile = join(options.out, name);
    const started = performance.now();
    await compileBinary({ outfile, target: RUNTIMES[platform as (typeof PLATFORMS)[number]] ?? `bun-${platform}`, commit, release });
    chmodSync(outfile, 0o755);
    const size = statSync(outfile).size;
    artifacts.push({ name, os, arch, size, sha256: fileSha256(outfile) });
    log(`${name}: ${(size / 1e6).toFixed(1)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }

  const manifest: Manifest = { version: options.version, publishedAt, baseUrl: options.baseUrl, releaseKey: keyFingerprint(options.key.publicKey), artifacts };
  const text = manifestText(manifest);
  writeFileSync(join(options.out, "manifest.json"), text);
  writeFileSync(join(options.out, "manifest.json.sig"), `${sign(null, Buffer.from(text), options.key.privateKey).toString("base64")}\n`);
  writeFileSync(join(options.out, "install.sh"), installScript(options.baseUrl, options.key.publicKey), { mode: 0o755 });

  if (options.platforms.includes("linux-x64") && !options.noImage) {
    const started = performance.now();
    const image = `formsvc-${options.version}-linux-x64.oci.tar`;
    writeFileSync(
      join(options.out, image),
      imageArchive({ binary: join(options.out, artifactName("linux", "x64")), version: options.version, createdAt: publishedAt }),
    );
    log(`${image}: ${(statSync(join(options.out, image)).size / 1e6).toFixed(1)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }

  // As sha256sum writes it: `sha256sum -c SHA256SUMS` in the folder checks every other file.
  const names = readdirSync(options.out)
    .filter((name) => name !== "SHA256SUMS")
    .sort();
  writeFileSync(join(options.out, "SHA256SUMS"), names.map((name) => `${fileSha256(join(options.out, name))}  ${name}\n`).join(""));
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
    },
  });
  try {
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
      log: (line) => console.error(line),
    });
    console.error(`release ${manifest.version} in ${values.out} (${((performance.now() - started) / 1000).toFixed(0)} s), key ${manifest.releaseKey}`);
    console.error(`publish the folder's files at ${manifest.baseUrl}/ and ${manifest.baseUrl}/${manifest.version}/`);
  } catch (error) {
    console.error(`release: ${(error as Error).message}`);
    process.exit(1);
  }
}
