import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openStore } from "../../src/db/client.ts";
import { migrations } from "../../src/db/migrations/index.ts";

// An account trained before the filter weighed tokens against each kind's token total: opening its database with
// migrate sums the totals from the counts it already holds, so it keeps what it learned (docs/performance.md,
// "Spam filter").

const TOTALS = migrations.find((m) => m.tag === "0028_spam_token_totals")!;
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Every migration before the token totals applied and recorded, then one trained account and one untrained. */
function databaseBeforeTotals(path: string): void {
  const db = new Database(path);
  db.exec(`CREATE TABLE "__drizzle_migrations" (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)`);
  for (const migration of migrations.filter((m) => m.when < TOTALS.when)) {
    for (const statement of migration.sql.split("--> statement-breakpoint")) db.exec(statement);
    db.prepare(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES (?, ?)`).run(migration.tag, migration.when);
  }
  db.exec(`INSERT INTO accounts (id, name, is_default, created_at, spam_marks, ham_marks) VALUES ('acc_1', 'default', 1, 1, 2, 3)`);
  db.exec(`INSERT INTO accounts (id, name, is_default, created_at) VALUES ('acc_2', 'other', 0, 1)`);
  const insert = db.prepare("INSERT INTO spam_tokens (account_id, token, spam, ham) VALUES ('acc_1', ?, ?, ?)");
  for (const [token, spam, ham] of [
    ["casino", 2, 0],
    ["hello", 1, 3],
    ["quote", 0, 2],
  ] as const)
    insert.run(token, spam, ham);
  db.close();
}

for (const driver of ["sqlite", "libsql"] as const) {
  test(`migrating a trained account sums its token totals from the counts it holds (${driver})`, async () => {
    dir = mkdtempSync(join(tmpdir(), "formsvc-spam-totals-"));
    const path = join(dir, "old.db");
    databaseBeforeTotals(path);
    const store = await openStore(driver === "libsql" ? `file:${path}` : path, { migrate: true });
    try {
      const accounts = await store.db.all(
        sql`SELECT id, spam_marks AS spamMarks, ham_marks AS hamMarks, spam_token_total AS spam, ham_token_total AS ham FROM accounts ORDER BY id`,
      );
      expect(accounts).toEqual([
        { id: "acc_1", spamMarks: 2, hamMarks: 3, spam: 3, ham: 5 },
        { id: "acc_2", spamMarks: 0, hamMarks: 0, spam: 0, ham: 0 },
      ]);
    } finally {
      store.close();
    }
  });
}
