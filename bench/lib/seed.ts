// Seeds a form with many submissions straight into the SQLite file: one prepared insert in one
// transaction, then the form's counters (and its day and minute counters) set to match, as the server itself would have kept them.
import { Database } from "bun:sqlite";
import { newId } from "../../src/lib/ids.ts";

export interface Seeded {
  /** createdAt of the first and of the last submission, ms. */
  first: number;
  last: number;
  counts: { all: number; unread: number; starred: number; spam: number };
}

/**
 * `count` submissions of three fields, one every `stepMs`, the last at `last` (default: a minute ago), with a
 * realistic mix of flags: every 20th is spam, every 50th of the kept starred, half of the kept read.
 */
export function seedForm(dbPath: string, formId: string, count: number, stepMs = 30_000, last = Date.now() - 60_000): Seeded {
  const db = new Database(dbPath);
  db.exec("PRAGMA busy_timeout = 5000");
  const insert = db.prepare("INSERT INTO submissions (id, form_id, data, created_at, is_read, is_starred, is_spam) VALUES (?, ?, ?, ?, ?, ?, ?)");
  const first = last - (count - 1) * stepMs;
  const counts = { all: 0, unread: 0, starred: 0, spam: 0 };
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const at = first + i * stepMs;
      const spam = i % 20 === 19 ? 1 : 0;
      const starred = !spam && i % 50 === 7 ? 1 : 0;
      const read = !spam && i % 2 === 0 ? 1 : 0;
      counts.spam += spam;
      counts.all += 1 - spam;
      counts.starred += starred;
      counts.unread += !spam && !read ? 1 : 0;
      const data = `{"email":"user${i}@example.com","name":"User ${i}","message":"Hello, this is message number ${i}, with a comma and \\"quotes\\"."}`;
      insert.run(newId("submission", at), formId, data, at, read, starred, spam);
    }
    db.prepare(
      "UPDATE forms SET submission_count = ?, unread_count = ?, starred_count = ?, spam_count = ?, last_submission_at = ?, fields = ? WHERE id = ?",
    ).run(counts.all, counts.unread, counts.starred, counts.spam, last, JSON.stringify(["email", "name", "message"]), formId);
    insert.finalize();
    db.prepare(
      `INSERT INTO submission_days (form_id, day, submission_count, spam_count, unread_count, starred_count)
       SELECT form_id, created_at / 86400000, sum(is_spam = 0), sum(is_spam = 1), sum(is_spam = 0 AND is_read = 0), sum(is_spam = 0 AND is_starred = 1)
       FROM submissions WHERE form_id = ? GROUP BY created_at / 86400000`,
    ).run(formId);
    db.prepare(
      `INSERT INTO submission_minutes (form_id, minute, submission_count, spam_count, unread_count, starred_count)
       SELECT form_id, created_at / 60000, sum(is_spam = 0), sum(is_spam = 1), sum(is_spam = 0 AND is_read = 0), sum(is_spam = 0 AND is_starred = 1)
       FROM submissions WHERE form_id = ? GROUP BY created_at / 60000`,
    ).run(formId);
  }).immediate();
  db.exec("ANALYZE");
  // Checkpointed now, not when the collector finalizes a statement: a late checkpoint would lock the server out.
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  return { first, last, counts };
}
