// How `formsvc update` changes the binary on disk (docs/deploy.md, "Upgrades"): the new one is downloaded into
// a hidden file beside it (xz-compressed, then unpacked), checked (size, SHA-256 of both, that it runs and says
// the expected version), written to disk (fsync), and only then renamed into place, the old one kept as
// formsvc.previous. Until that rename nothing of the folder has changed, and whatever fails removes the hidden
// files: the folder is as it was. A process killed on the way leaves them; the next update removes them.
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, closeSync, copyFileSync, fsyncSync, linkSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Artifact } from "../src/lib/release.ts";
import { CliError } from "./errors.ts";

/**
 * A file name in the binary's folder that nothing else uses, hidden, for a file on its way in. It carries the
 * process id, so that a later update can tell a file of a process that died from one of an update under way.
 */
const sideName = (self: string, what: string) => join(dirname(self), `.${basename(self)}.${what}-${process.pid}-${randomBytes(6).toString("hex")}`);

/** Whether a process with this id is running (a signal 0 reaches it, or it exists under another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the hidden files that an update, rollback or swap killed on the way left beside `self` (each up to
 * a whole binary); those of an update still running are left alone. Returns the names removed.
 */
export function removeLeftovers(self: string): string[] {
  const pattern = new RegExp(`^\\.${basename(self).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.(update|previous|current)-(?:(\\d+)-)?[0-9a-f]{12}(\\.xz)?$`);
  const removed: string[] = [];
  for (const name of readdirSync(dirname(self))) {
    const match = pattern.exec(name);
    // A name without a process id is from a formsvc that did not write one: nothing running now can own it.
    if (!match || (match[2] && running(Number(match[2])))) continue;
    rmSync(join(dirname(self), name), { force: true });
    removed.push(name);
  }
  return removed;
}

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

/** What a file must be, as the signed manifest says it. */
interface Expected {
  name: string;
  size: number;
  sha256: string;
}

/** Streams `url` into a new file at `path`, checking its size and SHA-256 against the signed manifest's. */
async function download(url: string, path: string, artifact: Expected, fetcher: typeof fetch): Promise<void> {
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

/** The first of xz or BusyBox's unxz on PATH, to unpack a release's `.xz` file. */
function xzCommand(): string[] {
  const xz = Bun.which("xz");
  if (xz) return [xz, "-dc"];
  const unxz = Bun.which("unxz");
  if (unxz) return [unxz, "-c"];
  throw new CliError("unpacking the release's binary needs xz (apt-get install xz-utils, or BusyBox's unxz)");
}

/** Unpacks `packed` (xz) into a new file at `path`, then checks the binary's size and SHA-256 against the manifest's. */
function unpack(packed: string, path: string, artifact: Artifact): void {
  const fd = openSync(path, "wx", 0o700);
  try {
    const run = Bun.spawnSync([...xzCommand(), packed], { stdout: fd, stderr: "pipe", stdin: "ignore" });
    if (run.exitCode !== 0) throw new CliError(`${artifact.xz} does not unpack: ${run.stderr.toString().trim() || `exit ${run.exitCode}`}`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const size = statSync(path).size;
  const sha256 = createHash("sha256").update(readFileSync(path)).digest("hex");
  if (size !== artifact.size || sha256 !== artifact.sha256)
    throw new CliError(
      `${artifact.xz} unpacks to ${size} bytes with SHA-256 ${sha256}, not the ${artifact.size} bytes and ${artifact.sha256} its signed manifest says`,
    );
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
  folder: string,
  artifact: Artifact,
  version: string,
  fetcher: typeof fetch = fetch,
  /** A last check of what the downloaded binary says of itself (its schema), which throws to refuse it. */
  accept: (said: ReturnType<typeof binaryInfo>) => Promise<void> = async () => {},
): Promise<void> {
  removeLeftovers(self);
  const incoming = sideName(self, "update");
  try {
    if (artifact.xz && artifact.xzSize !== undefined && artifact.xzSha256) {
      await download(`${folder}${artifact.xz}`, `${incoming}.xz`, { name: artifact.xz, size: artifact.xzSize, sha256: artifact.xzSha256 }, fetcher);
      unpack(`${incoming}.xz`, incoming, artifact);
    } else {
      // A release from before the compressed files: the binary itself.
      await download(`${folder}${artifact.name}`, incoming, artifact, fetcher);
    }
    // The mode of the binary it replaces (0755 as install.sh leaves it), so that it runs for the same users.
    chmodSync(incoming, statSync(self).mode & 0o7777);
    const said = binaryInfo(incoming);
    if (said.version !== version) throw new CliError(`the downloaded binary says it is formsvc ${said.version}, not ${version} as its manifest says`);
    await accept(said);
    swap(self, incoming);
  } finally {
    rmSync(incoming, { force: true });
    rmSync(`${incoming}.xz`, { force: true });
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
