// Each form's field list: every field name of its submissions, in order of first appearance. The list is kept
// on the form (lists and exports read it), grown by each write and rebuilt when a deletion may shrink it.
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { forms, submissions, type SubmissionRow } from "../../db/schema.ts";
import { whenStored, type StatementMaker } from "../../db/statement.ts";

/**
 * The statement of a post's write (write.ts) that adds to the form's list the names of `names` (a JSON array) it
 * does not have yet, in order, whatever another process added meanwhile; it writes only when there are some and
 * the submission was written. Values: submissionId, formId, names.
 */
export const growFieldList: StatementMaker = (p) => {
  const names = p("names");
  const newNames = sql`SELECT value FROM json_each(${names}) WHERE value NOT IN (SELECT value FROM json_each(${forms.fields}))`;
  return sql`UPDATE ${forms} SET fields = (SELECT json_group_array(value) FROM (
      SELECT 0 AS part, key AS pos, value FROM json_each(${forms.fields})
      UNION ALL SELECT 1, key, value FROM json_each(${names}) WHERE value NOT IN (SELECT value FROM json_each(${forms.fields}))
      ORDER BY part, pos))
    WHERE id = ${p("formId")} AND EXISTS (${newNames}) AND ${whenStored(p)}`;
};

/** The form's field list rebuilt from its submissions, as JSON: every name, in order of first appearance. */
export async function rebuiltFields(tx: Db, formId: string): Promise<string> {
  const rows: { name: string }[] = await tx.all(sql`
    SELECT name FROM (
      SELECT j.key AS name, row_number() OVER (ORDER BY s.created_at, s.id, j.id) AS position
      FROM ${submissions} s, json_each(s.data) j WHERE s.form_id = ${formId}
    ) GROUP BY name ORDER BY min(position)`);
  return JSON.stringify(rows.map((row) => row.name));
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
