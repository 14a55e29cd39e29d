import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/db/client.ts";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

// The database holds every submission (people's names, emails, messages) and the hashes of the keys:
// only the account that runs formsvc may read it, whatever the umask.
test("a new database, its WAL and a backup copy are readable by their owner only", async () => {
  dir = mkdtempSync(join(tmpdir(), "formsvc-modes-"));
  const previous = process.umask(0o022);
  try {
    const path = join(dir, "formsvc.db");
    const store = await openStore(path);
    await store.backup(join(dir, "copy.db"));
    expect({ db: mode(path), wal: mode(`${path}-wal`), copy: mode(join(dir, "copy.db")) }).toEqual({ db: "600", wal: "600", copy: "600" });
    store.close();
  } finally {
    process.umask(previous);
  }
});
