import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/db/client.ts";
import { createServices } from "../../src/services/index.ts";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** What `formsvc serve` does to the database as it starts: open (and migrate) it, record its addresses. */
async function start(path: string, baseUrl: string): Promise<void> {
  const store = await openStore(path);
  try {
    const services = createServices(store, { baseUrl: () => baseUrl, submitUrl: () => baseUrl });
    await services.settings.recordServedUrls({ baseUrl, submitUrl: baseUrl });
  } finally {
    store.close();
  }
}

// systemd restarts the server on every upgrade, under the same address: the start then reads the database
// and writes nothing, so it neither waits for another process's write (busy_timeout is 5 s) nor pays for one.
test("a restart under the same address starts at once while another process is writing", async () => {
  dir = mkdtempSync(join(tmpdir(), "formsvc-restart-"));
  const path = join(dir, "formsvc.db");
  await start(path, "https://forms.example.com");

  const other = new Database(path);
  other.exec("BEGIN IMMEDIATE");
  other.exec("INSERT INTO settings (key, value) VALUES ('other', 'writing')");
  // The other process holds the write lock until after this start: a start that wrote would wait for it and fail
  // (SQLITE_BUSY after busy_timeout), so finishing at all shows that it wrote nothing.
  await start(path, "https://forms.example.com");
  other.exec("COMMIT");

  // A new address is recorded, so that the local CLI shows the links the server now serves.
  await start(path, "https://forms.example.org");
  const recorded = other.prepare("SELECT key, value FROM settings WHERE key LIKE '%_url' ORDER BY key").all();
  expect(recorded).toEqual([
    { key: "base_url", value: "https://forms.example.org" },
    { key: "submit_url", value: "https://forms.example.org" },
  ]);
  other.close();
});
