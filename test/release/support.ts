// What the release tests share: a throwaway signing key, `npm run release` run as a user runs it, a release
// server (a folder of files over real HTTP, which can also cut a download short), and a look at a folder's bytes.
import { createHash, generateKeyPairSync } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../helpers/cli.ts";

/**
 * The time a release test may take: each downloads, hashes and runs 127 MB binaries several times, which on a
 * loaded machine takes longer than npm test's 30 s.
 */
export const RELEASE_TEST_MS = 180_000;
/** The time the two test releases may take to build, once for every file. */
export const RELEASE_BUILD_MS = 300_000;

/** A new Ed25519 key in PEM, written to `path`, as `openssl genpkey -algorithm ed25519` would. */
export function throwawayKey(path: string): string {
  const { privateKey } = generateKeyPairSync("ed25519");
  writeFileSync(path, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
  return path;
}

/** Runs `npm run release` (scripts/release.ts) into `out`; throws with its output when it fails. */
export async function release(options: {
  version: string;
  baseUrl: string;
  key: string;
  out: string;
  platforms?: string;
  noImage?: boolean;
  xzPreset?: string;
}): Promise<string> {
  const proc = Bun.spawn(
    [
      process.execPath,
      join(ROOT, "scripts", "release.ts"),
      "--version",
      options.version,
      "--base-url",
      options.baseUrl,
      "--platforms",
      options.platforms ?? "linux-x64",
      "--out",
      options.out,
      ...(options.noImage ? ["--no-image"] : []),
      // xz's quickest preset unless asked: the same format to unpack, in seconds rather than minutes.
      "--xz-preset",
      options.xzPreset ?? "0",
    ],
    { cwd: ROOT, env: { ...process.env, FORMSVC_RELEASE_KEY: options.key }, stdout: "pipe", stderr: "pipe" },
  );
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`npm run release --version ${options.version} failed (exit ${code}):\n${stdout}${stderr}`);
  return stderr;
}

/**
 * A server of release folders: `/name/file` is the file of folder `name`; files named in `cutShort` stop halfway.
 * Every path asked for is added to `asked`.
 */
export function releaseServer(folders: Map<string, string>, cutShort: Set<string> = new Set(), asked: string[] = []) {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = decodeURIComponent(new URL(request.url).pathname);
      asked.push(path);
      const slash = path.lastIndexOf("/");
      const folder = folders.get(path.slice(0, slash));
      const file = folder && join(folder, path.slice(slash + 1));
      if (!file || !existsSync(file) || !statSync(file).isFile()) return new Response("not found", { status: 404 });
      if (!cutShort.has(path)) return new Response(Bun.file(file));
      // The whole length announced, half of it sent, then the end: a download cut short.
      const bytes = readFileSync(file);
      let sent = false;
      const body = new ReadableStream({
        // The second pull comes once the first half has gone out.
        pull(controller) {
          if (sent) controller.close();
          else controller.enqueue(bytes.subarray(0, bytes.length / 2));
          sent = true;
        },
      });
      return new Response(body, { headers: { "content-length": String(bytes.length), "content-type": "application/octet-stream" } });
    },
  });
}

/** Every file of a folder with the SHA-256 of its bytes (and its mode), to show that nothing in it changed. */
export function folderBytes(folder: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(folder)
      .sort()
      .map((name) => {
        const path = join(folder, name);
        return [name, `${(statSync(path).mode & 0o7777).toString(8)} ${createHash("sha256").update(readFileSync(path)).digest("hex")}`];
      }),
  );
}

/** Runs a binary with arguments, stdin closed (no terminal); its exit code, stdout and stderr. */
export async function run(binary: string, args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([binary, ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NO_COLOR: "1", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** The SHA-256 of a file, hex. */
export const fileSha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** Releases 1.0.0 and 1.0.1 (linux-x64) with one throwaway key, published as a release is: BASE/ the latest, BASE/X.Y.Z/ each. */
export interface TestReleases {
  work: string;
  key: string;
  base: string;
  server: ReturnType<typeof releaseServer>;
  /** The folders the server serves, by path; a test may add its own. */
  folders: Map<string, string>;
  cutShort: Set<string>;
  /** Every path the server was asked for, in order. */
  asked: string[];
  /** The folder `npm run release` filled for a version. */
  folder(version: string): string;
  /** The linux-x64 binary of a version, as `npm run release` left it beside the folder (the folder has it as .xz). */
  binary(version: string): string;
}

let shared: Promise<TestReleases> | undefined;

/** The two test releases, built once for every test file of a run (bun test loads this module once). */
export function testReleases(): Promise<TestReleases> {
  shared ??= (async () => {
    const work = mkdtempSync(join(tmpdir(), "formsvc-release-"));
    process.on("exit", () => rmSync(work, { recursive: true, force: true }));
    const folders = new Map<string, string>();
    const cutShort = new Set<string>();
    const asked: string[] = [];
    const server = releaseServer(folders, cutShort, asked);
    const base = `http://127.0.0.1:${server.port}/formsvc`;
    const key = throwawayKey(join(work, "release-key.pem"));
    const folder = (version: string) => join(work, version);
    // Only 1.0.0's image is looked at: 1.0.1 is built without one.
    for (const version of ["1.0.0", "1.0.1"]) {
      await release({ version, baseUrl: base, key, out: folder(version), noImage: version !== "1.0.0" });
      folders.set(`/formsvc/${version}`, folder(version));
    }
    folders.set("/formsvc", folder("1.0.1"));
    const binary = (version: string) => join(`${folder(version)}.binaries`, "formsvc-linux-x64");
    return { work, key, base, server, folders, cutShort, asked, folder, binary };
  })();
  return shared;
}
