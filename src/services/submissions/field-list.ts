// Each form's field list: every field name of its submissions, in order of first appearance. The list is kept
// on the form (lists and exports read it), grown by each write of posts (writer.ts) and rebuilt when a deletion may shrink it.
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { submissions, type SubmissionRow } from "../../db/schema.ts";

/** The form's field list rebuilt from its submissions, as JSON: every name, in order of first appearance. */
export async function rebuiltFields(tx: Db, formId: string): Promise<string> {
  const rows: { name: string }[] = await tx.all(sql`
    SELECT name FROM (
      SELECT j.key AS name, row_number() OVER (ORDER BY s.created_at, s.id, j.id) AS position
      FROM ${submissions} s, json_each(s.data) j WHERE s.form_id = ${formId}
    ) GROUP BY name ORDER BY min(position)`);
  return JSON.stringify(rows.map((row) => row.name));
}

/** Rows read in one step of a field-list scan: a few milliseconds of the event loop each. */
const SCAN_PAGE = 2_000;

/** Where a name first appeared: its submission's time and id, and its place among that submission's keys. */
type Place = [createdAt: number, id: string, position: number];
const before = (a: Place, b: Place) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[2] - b[2]);

/**
 * The form's field list read from its submissions as rebuiltFields does, but in pages of SCAN_PAGE rows on the
 * reader with a turn of the event loop between them, so that a purge on a form of a million submissions does
 * not hold every request (and the write lock) for the seconds one statement over all of them takes. The
 * kept and the spam submissions are read each in their index's order; a name's first place decides its order.
 */
export async function scannedFields(db: Db, formId: string): Promise<string[]> {
  const first = new Map<string, Place>();
  for (const spam of [0, 1]) {
    const partition = sql`form_id = ${formId} AND is_spam = ${spam}`;
    let after: [number, string] = [Number.MIN_SAFE_INTEGER, ""];
    for (;;) {
      // The page's last submission (none: the partition ends inside this page), then the first place of each
      // name inside the page, found by SQLite: a handful of rows a page, not one per field of each submission.
      const [end] = (await db.all(sql`
        SELECT created_at AS createdAt, id FROM ${submissions} INDEXED BY submissions_form_spam
        WHERE ${partition} AND (created_at, id) > (${after[0]}, ${after[1]})
        ORDER BY created_at, id LIMIT 1 OFFSET ${SCAN_PAGE - 1}`)) as { createdAt: number; id: string }[];
      const upTo = end ? sql`AND (s.created_at, s.id) <= (${end.createdAt}, ${end.id})` : sql``;
      const names: { name: string; createdAt: number; id: string; position: number }[] = await db.all(sql`
        SELECT name, createdAt, id, position FROM (
          SELECT j.key AS name, s.created_at AS createdAt, s.id AS id, j.id AS position,
                 row_number() OVER (PARTITION BY j.key ORDER BY s.created_at, s.id, j.id) AS nth
          FROM ${submissions} s INDEXED BY submissions_form_spam, json_each(s.data) j
          WHERE s.form_id = ${formId} AND s.is_spam = ${spam} AND (s.created_at, s.id) > (${after[0]}, ${after[1]}) ${upTo})
        WHERE nth = 1`);
      for (const row of names) {
        const place: Place = [row.createdAt, row.id, row.position];
        const known = first.get(row.name);
        if (!known || before(place, known) < 0) first.set(row.name, place);
      }
      if (!end) break;
      after = [end.createdAt, end.id];
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }
  return [...first.entries()].sort((a, b) => before(a[1], b[1])).map(([name]) => name);
}

/**
 * The names the form's submissions made or changed since `since` (ms) have: what a scan that began then may
 * have missed, read in the write that stores its result.
 */
export async function namesSince(tx: Db, formId: string, since: number): Promise<Set<string>> {
  const rows: { name: string }[] = await tx.all(sql`
    SELECT DISTINCT j.key AS name FROM ${submissions} s INDEXED BY submissions_form_spam, json_each(s.data) j
    WHERE s.form_id = ${formId} AND s.is_spam IN (0, 1) AND s.created_at >= ${since}`);
  return new Set(rows.map((row) => row.name));
}

/**
 * The form's field list once `gone` is deleted, or null when it stays as it is. It changes only when `gone`
 * was the first (or only) submission to have one of its names, so the whole list is rebuilt only then;
 * usually each name is found in an older submission at once.
 */
export async function fieldsAfterRemoving(tx: Db, gone: SubmissionRow): Promise<string | null> {
  const names = Object.keys(JSON.parse(gone.data) as Record<string, unknown>);
  for (const name of names) {
    const older = await tx.all(sql`
      SELECT 1 FROM ${submissions} s, json_each(s.data) j
      WHERE s.form_id = ${gone.formId} AND (s.created_at, s.id) < (${gone.createdAt}, ${gone.id}) AND j.key = ${name}
      LIMIT 1`);
    if (older.length === 0) return rebuiltFields(tx, gone.formId);
  }
  return null;
}
