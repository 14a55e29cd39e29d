// How a release folder is signed (docs/deploy.md, "Making a release"): manifest.json's exact bytes, signed with
// the release's Ed25519 key twice over, as manifest.json.sig (the raw signature, base64: what `formsvc update`
// and openssl 3 check) and as manifest.json.sshsig (the same key in OpenSSH's signature format, which
// `ssh-keygen -Y verify` checks where openssl is not version 3), then SHA256SUMS over every file of the folder.
import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Manifest } from "../src/lib/release.ts";

/** The namespace of the OpenSSH signature: a signature made for another purpose with the same key does not pass. */
export const SSHSIG_NAMESPACE = "formsvc-release";

/** The Ed25519 private key named by FORMSVC_RELEASE_KEY, and the raw 32 bytes of its public half. */
export function releaseKey(pathOrPem: string | undefined): { privateKey: KeyObject; publicKey: Uint8Array } {
  if (!pathOrPem) throw new Error("FORMSVC_RELEASE_KEY must name the release's Ed25519 private key (PEM): openssl genpkey -algorithm ed25519 -out key.pem");
  const pem = pathOrPem.includes("-----BEGIN") ? pathOrPem : readFileSync(pathOrPem, "utf8");
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== "ed25519") throw new Error(`the release key is ${privateKey.asymmetricKeyType}, not ed25519`);
  const jwk = createPublicKey(privateKey).export({ format: "jwk" });
  return { privateKey, publicKey: Buffer.from(jwk.x!, "base64url") };
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

/** An SSH wire-format string: its length (4 bytes, big-endian), then its bytes. */
function sshString(bytes: Uint8Array | string): Buffer {
  const body = Buffer.from(bytes);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  return Buffer.concat([length, body]);
}

/** The public key as an OpenSSH line's key part (`ssh-ed25519 AAAA…`), for install.sh's allowed-signers file. */
export function sshPublicKey(publicKey: Uint8Array): string {
  return `ssh-ed25519 ${Buffer.concat([sshString("ssh-ed25519"), sshString(publicKey)]).toString("base64")}`;
}

/** An armored OpenSSH signature (PROTOCOL.sshsig: SHA-512 of the message, the namespace above) of `message`. */
function sshSignature(message: Uint8Array, privateKey: KeyObject, publicKey: Uint8Array): string {
  const head = [sshString(SSHSIG_NAMESPACE), sshString(""), sshString("sha512")];
  const signed = Buffer.concat([Buffer.from("SSHSIG"), ...head, sshString(createHash("sha512").update(message).digest())]);
  const signature = Buffer.concat([sshString("ssh-ed25519"), sshString(sign(null, signed, privateKey))]);
  const keyBlob = Buffer.concat([sshString("ssh-ed25519"), sshString(publicKey)]);
  const blob = Buffer.concat([Buffer.from("SSHSIG"), Buffer.from([0, 0, 0, 1]), sshString(keyBlob), ...head, sshString(signature)]);
  return `-----BEGIN SSH SIGNATURE-----\n${blob.toString("base64").replace(/.{70}/g, "$&\n")}\n-----END SSH SIGNATURE-----\n`;
}

/** The SHA-256 of a file, hex. */
export function fileSha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** Writes manifest.json, its two signatures and SHA256SUMS (as sha256sum writes it) into a release folder. */
export function signFolder(out: string, manifest: Manifest, key: { privateKey: KeyObject; publicKey: Uint8Array }): void {
  const text = Buffer.from(manifestText(manifest));
  writeFileSync(join(out, "manifest.json"), text);
  writeFileSync(join(out, "manifest.json.sig"), `${sign(null, text, key.privateKey).toString("base64")}\n`);
  writeFileSync(join(out, "manifest.json.sshsig"), sshSignature(text, key.privateKey, key.publicKey));
  const names = readdirSync(out)
    .filter((name) => name !== "SHA256SUMS")
    .sort();
  writeFileSync(join(out, "SHA256SUMS"), names.map((name) => `${fileSha256(join(out, name))}  ${name}\n`).join(""));
}

/**
 * Signs a published folder's manifest again with a later expiry, nothing else changed: what a publisher runs
 * before the latest release's manifest expires (docs/deploy.md, "Freshness").
 */
export function renewFolder(out: string, expiresInDays: number, key: { privateKey: KeyObject; publicKey: Uint8Array }, now = new Date()): Manifest {
  const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as Manifest;
  const renewed = { ...manifest, expiresAt: expiryAfter(now, expiresInDays) };
  signFolder(out, renewed, key);
  return renewed;
}

/** The ISO time `days` days after `from`, to the second. */
export function expiryAfter(from: Date, days: number): string {
  return new Date(from.getTime() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
}
