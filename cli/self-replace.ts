// How `formsvc update` changes the binary on disk (docs/deploy.md, "Upgrades"): the new one is downloaded into
// a hidden file beside it, checked (size, SHA-256, that it runs and says the expected version), written to
// disk (fsync), and only then renamed into place, the old one kept as formsvc.previous. Until that rename
// nothing of the folder has changed, and whatever fails removes the hidden file: the folder is as it was.
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, closeSync, copyFileSync, fsyncSync, linkSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Artifact } from "../src/lib/release.ts";
import { CliError } from "./errors.ts";

/** A file name in the binary's folder that nothing else uses, hidden, for a file on its way in. */
const sideName = (self: string, what: string) => join(dirname(self), `.${basename(self)}.${what}-${randomBytes(6).toString("hex")}`);

/** Flushes a folder's entries (the renames in it) to disk. */
function syncFolder(folder: string): void {
  const fd = openSync(folder, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A hard link of `file` under a new name (a copy where the file system has no links). */
function linkOrCopy(file: string, to: string): void {
  try {
    linkSync(file, to);
  } catch {
    copyFileSync(file, to);
  }
}

/** Streams `url` into a new file at `path`, checking its size and SHA-256 against the signed manifest's. */
async function download(url: string, path: string, artifact: Artifact, fetcher: typeof fetch): Promise<void> {
  let response: Response;
  try {
    response = await fetcher(url, { redirect: "follow" });
  } catch (error) {
    throw new CliError(`cannot reach ${url}: ${(error as Error).message}`);
  }
  if (!response.ok || !response.body) throw new CliError(`${url} answered ${response.status}`);
  const hash = createHash("sha256");
  const fd = openSync(path, "wx", 0o700);
  let received = 0;
  try {
    const reader = response.body.getReader();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw new CliError(`the download of ${url} was cut short after ${received} of ${artifact.size} bytes (${(error as Error).message})`);
      }
      if (chunk.done) break;
      received += chunk.value.length;
      if (received > artifact.size) throw new CliError(`${url} is longer than the ${artifact.size} bytes the manifest says`);
      hash.update(chunk.value);
      for (let offset = 0; offset < chunk.value.length; ) offset += writeSync(fd, chunk.value, offset);
    }
    if (received < artifact.size) throw new CliError(`the download of ${url} was cut short after ${received} of ${artifact.size} bytes`);
    const sha256 = hash.digest("hex");
    if (sha256 !== artifact.sha256)
      throw new CliError(`${artifact.name} from ${url} has SHA-256 ${sha256}, not the ${artifact.sha256} its signed manifest says`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** What a binary says of itself (`version --json`), or an error naming why it does not run. */
export function binaryInfo(path: string): { version: string; os: string; arch: string; schema: number } {
  const run = Bun.spawnSync([path, "version", "--json"], { stdout: "pipe", stderr: "pipe", stdin: "ignore", env: { ...process.env, NO_COLOR: "1" } });
  if (run.exitCode !== 0) throw new CliError(`${path} does not run here: ${run.stderr.toString().trim() || `exit ${run.exitCode}`}`);
  try {
    return JSON.parse(run.stdout.toString());
  } catch {
    throw new CliError(`${path} does not say its version: it is not a formsvc release`);
  }
}

/**
 * Downloads a checked artifact and puts it in place of `self`, the binary it replaces kept as
 * `self.previous`. Nothing in the folder changes unless every check passed.
 */
export async function replaceWithDownload(
  self: string,
  url: string,
  artifact: Artifact,
  version: string,
  fetcher: typeof fetch = fetch,
  /** A last check of what the downloaded binary says of itself (its schema), which throws to refuse it. */
  accept: (said: ReturnType<typeof binaryInfo>) => Promise<void> = async () => {},
): Promise<void> {
  const incoming = sideName(self, "update");
  try {
    await download(url, incoming, artifact, fetcher);
    // The mode of the binary it replaces (0755 as install.sh leaves it), so that it runs for the same users.
    chmodSync(incoming, statSync(self).mode & 0o7777);
    const said = binaryInfo(incoming);
    if (said.version !== version) throw new CliError(`the downloaded binary says it is formsvc ${said.version}, not ${version} as its manifest says`);
    await accept(said);
    swap(self, incoming);
  } finally {
    rmSync(incoming, { force: true });
  }
}

/** Puts `incoming` at `self` by a rename, after keeping `self` as `self.previous` (also by a rename). */
function swap(self: string, incoming: string): void {
  const held = sideName(self, "previous");
  try {
    linkOrCopy(self, held);
    renameSync(held, `${self}.previous`);
  } finally {
    rmSync(held, { force: true });
  }
  renameSync(incoming, self);
  syncFolder(dirname(self));
}

/** Exchanges `self` and `self.previous`: the previous binary runs again, the one it replaces is kept as previous. */
export function swapWithPrevious(self: string): void {
  const held = sideName(self, "current");
  linkOrCopy(self, held);
  try {
    renameSync(`${self}.previous`, self);
  } catch (error) {
    rmSync(held, { force: true });
    throw error;
  }
  renameSync(held, `${self}.previous`);
  syncFolder(dirname(self));
}
