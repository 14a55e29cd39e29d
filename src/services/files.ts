import { and, eq, inArray } from "drizzle-orm";
import type { Db, Store } from "../db/client.ts";
import { files, submissions, type FileRow } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import { UploadedFile, type FileRef } from "../lib/files.ts";
import { newId } from "../lib/ids.ts";
import type { FormsService } from "./forms.ts";
import type { Principal } from "../domain/types.ts";

/** A file's rows waiting for their submission's row: written in the same transaction, right after it. */
export type PendingFile = Omit<FileRow, "submissionId" | "formId">;

const MAX_STORED_NAME = 1000;

/**
 * The data to store, each UploadedFile replaced by its file object (`{file, name, type, size}`), and the
 * files' rows. Only a multipart post holds UploadedFiles: a JSON body cannot make one.
 */
export function attachFiles(data: Record<string, unknown>, now: number): { data: Record<string, unknown>; files: PendingFile[] } {
  const pending: PendingFile[] = [];
  const stored = (field: string, value: unknown): unknown => {
    if (!(value instanceof UploadedFile)) return value;
    // The name is untrusted and kept as sent, bounded and without NUL (which a libSQL text column would cut
    // it at); it is made safe wherever it becomes a file name.
    const name = Array.from(value.name.replaceAll("\u0000", "")).slice(0, MAX_STORED_NAME).join("");
    const row: PendingFile = {
      id: newId("file", now),
      field,
      name,
      type: value.type,
      size: value.size,
      content: Buffer.from(value.content.buffer, value.content.byteOffset, value.content.byteLength),
      createdAt: now,
    };
    pending.push(row);
    return { file: row.id, name, type: row.type, size: row.size } satisfies FileRef;
  };
  const out: Record<string, unknown> = Object.create(null);
  for (const [field, value] of Object.entries(data)) out[field] = Array.isArray(value) ? value.map((v) => stored(field, v)) : stored(field, value);
  return { data: out, files: pending };
}

/** Writes the files of a submission just inserted, in the caller's transaction. */
export async function insertFiles(tx: Db, formId: string, submissionId: string, pending: PendingFile[]): Promise<void> {
  for (const file of pending) await tx.insert(files).values({ ...file, submissionId, formId });
}

/** A stored file, ready to download. */
export interface StoredFile {
  id: string;
  name: string;
  type: string;
  size: number;
  content: Uint8Array;
}

/** Files: the owner's download, and which file objects of a page of submissions are real stored files. */
export function filesService(store: Store, formsService: FormsService) {
  return {
    /** One file of one submission of the form; not found unless all three belong together. */
    async get(principal: Principal, formRef: string, submissionId: string, fileId: string): Promise<StoredFile> {
      const form = await formsService.findRow(principal, formRef);
      const [row] = await store.db
        .select({ id: files.id, name: files.name, type: files.type, size: files.size, content: files.content })
        .from(files)
        .innerJoin(submissions, eq(submissions.id, files.submissionId))
        .where(and(eq(files.id, fileId), eq(files.submissionId, submissionId), eq(submissions.formId, form.id)));
      if (!row) throw new ApiError("not_found", `No file ${fileId} in submission ${submissionId} of this form.`);
      // bun:sqlite gives a Buffer; a driver that gives an ArrayBuffer is wrapped, never copied.
      const content = row.content instanceof Uint8Array ? row.content : new Uint8Array(row.content as ArrayBuffer);
      return { ...row, content };
    },

    /** The ids of the files stored for each of these submissions (so an export links only to files that exist). */
    async storedFiles(submissionIds: string[]): Promise<Map<string, Set<string>>> {
      const bySubmission = new Map<string, Set<string>>();
      if (submissionIds.length === 0) return bySubmission;
      const rows = await store.db.select({ id: files.id, submissionId: files.submissionId }).from(files).where(inArray(files.submissionId, submissionIds));
      for (const row of rows) {
        const set = bySubmission.get(row.submissionId) ?? new Set<string>();
        set.add(row.id);
        bySubmission.set(row.submissionId, set);
      }
      return bySubmission;
    },
  };
}

export type FilesService = ReturnType<typeof filesService>;
