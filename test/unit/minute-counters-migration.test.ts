import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openStore } from "../../src/db/client.ts";
import { migrations } from "../../src/db/migrations/index.ts";

// A database that lived before the minute counters: opening it with migrate fills them from its rows, so the
// lists that read them are exact from the first request on (docs/performance.md, "Minute counters").

const MINUTES = migrations.find((m) => m.tag === "0026_submission_minutes")!;
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Row {
  form: string;
  at: number;
  read: number;
  starred: number;
  spam: number;
  unconfirmed: number;
}

/** Every migration before the minute counters applied and recorded, then two forms' submissions over two days. */
function databaseBeforeMinutes(path: string): Row[] {
  const db = new Database(path);
  db.exec(`CREATE TABLE "__drizzle_migrations" (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)`);
  for (const migration of migrations.filter((m) => m.when < MINUTES.when)) {
    for (const statement of migration.sql.split("--> statement-breakpoint")) db.exec(statement);
    db.prepare(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES (?, ?)`).run(migration.tag, migration.when);
  }
  db.exec(`INSERT INTO accounts (id, name, is_default, created_at) VALUES ('acc_1', 'default', 1, 1)`);
  for (const form of ["frm_1", "frm_2"]) {
    db.exec(`INSERT INTO forms (id, account_id, mode, name, slug, created_at, updated_at) VALUES ('${form}', 'acc_1', 'live', '${form}', '${form}', 1, 1)`);
  }
  const insert = db.prepare(
    "INSERT INTO submissions (id, form_id, data, created_at, is_read, is_starred, is_spam, unconfirmed) VALUES (?, ?, '{}', ?, ?, ?, ?, ?)",
  );
  const rows: Row[] = [];
  const start = Date.parse("2026-03-10T23:57:00.000Z");
  db.exec("BEGIN");
  for (let i = 0; i < 900; i++) {
    const spam = i % 7 === 0 ? 1 : 0;
    const row = {
      form: i % 5 === 0 ? "frm_2" : "frm_1",
      at: start + i * 397,
      read: i % 3 === 0 ? 1 : 0,
      starred: i % 4 === 0 ? 1 : 0,
      spam,
      unconfirmed: !spam && i % 11 === 0 ? 1 : 0,
    };
    insert.run(`sub_${String(i).padStart(6, "0")}`, row.form, row.at, row.read, row.starred, row.spam, row.unconfirmed);
    rows.push(row);
  }
  db.exec("COMMIT");
  db.close();
  return rows;
}

/** The minute counters the rows call for, as counters.ts keeps them: kept means neither spam nor unconfirmed. */
function expectedMinutes(rows: Row[]) {
  const buckets = new Map<string, { form_id: string; minute: number; submissions: number; spam: number; unread: number; starred: number }>();
  for (const row of rows) {
    const minute = Math.floor(row.at / 60_000);
    const key = `${row.form} ${minute}`;
    const bucket = buckets.get(key) ?? { form_id: row.form, minute, submissions: 0, spam: 0, unread: 0, starred: 0 };
    const kept = !row.spam && !row.unconfirmed;
    bucket.submissions += kept ? 1 : 0;
    bucket.spam += row.spam;
    bucket.unread += kept && !row.read ? 1 : 0;
    bucket.starred += kept && row.starred ? 1 : 0;
    buckets.set(key, bucket);
  }
  return [...buckets.values()].sort((a, b) => a.form_id.localeCompare(b.form_id) || a.minute - b.minute);
}

for (const driver of ["sqlite", "libsql"] as const) {
  test(`migrating a database from before the minute counters fills them from its submissions (${driver})`, async () => {
    dir = mkdtempSync(join(tmpdir(), "formsvc-minutes-"));
    const path = join(dir, "old.db");
    const rows = databaseBeforeMinutes(path);
    const store = await openStore(driver === "libsql" ? `file:${path}` : path, { migrate: true });
    try {
      const stored = await store.db.all(
        sql`SELECT form_id, minute, submission_count AS submissions, spam_count AS spam, unread_count AS unread, starred_count AS starred
          FROM submission_minutes ORDER BY form_id, minute`,
      );
      // Six minutes across midnight, for each form.
      expect(stored).toHaveLength(12);
      expect(stored).toEqual(expectedMinutes(rows));
    } finally {
      store.close();
    }
  });
}
