import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/db/client.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { forms } from "../../src/db/schema.ts";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A database as the first release left it: only the first migration applied, recorded as drizzle records it. */
function firstReleaseDatabase(path: string): void {
  const db = new Database(path);
  db.exec(`CREATE TABLE "__drizzle_migrations" (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)`);
  for (const statement of migrations[0]!.sql.split("--> statement-breakpoint")) db.exec(statement);
  db.prepare(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ('first', ?)`).run(migrations[0]!.when);
  db.exec(`INSERT INTO accounts (id, name, is_default, created_at) VALUES ('acc_1', 'default', 1, 1)`);
  db.exec(`INSERT INTO forms (id, account_id, mode, name, slug, created_at, updated_at) VALUES ('frm_1', 'acc_1', 'live', 'Contact', 'contact', 1, 1)`);
  db.exec(`INSERT INTO submissions (id, form_id, data, created_at) VALUES ('sub_1', 'frm_1', '{}', 1000), ('sub_2', 'frm_1', '{}', 5000)`);
  db.close();
}

test("opening a database of an earlier release applies the newer migrations once, keeping its data", async () => {
  dir = mkdtempSync(join(tmpdir(), "formsvc-migrate-"));
  const path = join(dir, "old.db");
  firstReleaseDatabase(path);

  for (let run = 0; run < 2; run++) {
    const store = await openStore(path, { migrate: true });
    const rows = await store.db.select({ id: forms.id, lastSubmissionAt: forms.lastSubmissionAt }).from(forms);
    store.close();
    // The newest submission's time is carried over, so the next one is stored after it.
    expect(rows).toEqual([{ id: "frm_1", lastSubmissionAt: 5000 }]);
  }
  const db = new Database(path, { readonly: true });
  const applied = db.prepare(`SELECT created_at AS at FROM "__drizzle_migrations" ORDER BY id`).all() as { at: number }[];
  db.close();
  expect(applied.map((m) => m.at)).toEqual(migrations.map((m) => m.when));
});
