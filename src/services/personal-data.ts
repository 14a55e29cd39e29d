import { and, eq, isNotNull, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client.ts";
import { accounts, forms, idempotencyKeys, notifications, spamTokens, submissions } from "../db/schema.ts";
import type { Principal } from "../domain/types.ts";

/**
 * Where a submitter's personal data lives: every table that can hold a value a visitor sent, and how an
 * erasure by address (POST /api/submissions/erase) reaches it. This list is the one place to extend when a
 * table starts to hold such values (docs/api.md, "What an erasure guarantees", lists the same places):
 *
 * - a place that is deleted with its submission (a foreign key ON DELETE CASCADE) needs only its line here;
 * - a place that can hold the address where the submission's own fields do not (a header field such as
 *   `_replyto`, copied on a row of its own) gives `find`: the submissions it ties to the address are erased;
 * - a place not tied to a submission (a log's summary) gives `scrub`, run in the erasure's last transaction.
 *
 * Deleted bytes do not linger: the writer runs with `secure_delete` on (freed space is zeroed) and an erasure or
 * a purge ends with a TRUNCATE checkpoint of the WAL (src/db/client.ts).
 */
export interface PersonalDataPlace {
  /** The table and the columns that may hold personal data, as the docs name them. */
  where: string;
  /** How an erasure reaches it. */
  how: "scanned" | "deleted with its submission" | "found, then deleted with its submission" | "scrubbed";
  /** The ids of the submissions of the principal's account and mode whose rows here hold `address` (lower case). */
  find?(db: Db, principal: Principal, address: string): Promise<string[]>;
  /** Removes `address` (lower case) from the principal's account's rows here. */
  scrub?(tx: Db, principal: Principal, address: string): Promise<void>;
}

/**
 * True when `text` holds `address` as a whole address: a token of its own in a header or a subject
 * ("Ann <ann@example.com>", "a question from ann@example.com."), not a part of a longer one.
 */
export function holdsAddress(text: string | null, address: string): boolean {
  if (!text) return false;
  return text
    .toLowerCase()
    .split(/[\s<>,;:"'()[\]]+/)
    .some((token) => token.replace(/[.!?]+$/, "") === address);
}

/** True when a part of `url` (its path's segments, its query's names and values, decoded) holds `address`. */
function addressInUrl(url: string, address: string): boolean {
  return url.split(/[/?&=#]/).some((part) => {
    let decoded = part;
    try {
      decoded = decodeURIComponent(part.replaceAll("+", " "));
    } catch {
      // Not percent-encoded as it should be: looked at as it is.
    }
    return holdsAddress(decoded, address);
  });
}

/**
 * A cheap first pass in SQL: `column` holds `address` (lower-cased) as it was typed. SQLite's lower() folds ASCII
 * only, so the pass serves only an ASCII address; in JSON text only one that JSON writes as it is (no `"` or `\`).
 * Undefined when it cannot serve: then every row is a candidate for the exact test.
 */
export function mentionedInSql(column: SQLiteColumn, address: string, stored: "text" | "json"): SQL | undefined {
  if (!/^[\x21-\x7e]+$/.test(address) || (stored === "json" && /["\\]/.test(address))) return undefined;
  return sql`instr(lower(${column}), ${address}) > 0`;
}

/** Every place, in the order an erasure looks. */
export const PERSONAL_DATA: PersonalDataPlace[] = [
  { where: "submissions.data: every field's value", how: "scanned" },
  {
    where: "submissions.confirmed_from: the client address a double opt-in link was opened from (docs/api.md, Confirmation email and double opt-in)",
    how: "deleted with its submission",
  },
  { where: "files: name and content of uploaded files", how: "deleted with its submission" },
  {
    where:
      "notifications: reply_to (`_replyto`), subject (`_subject`), to (`_cc` copies), the delivery log of mail; a confirmation's to (the submitter's address), subject and body (the email as rendered from the post, docs/api.md, Confirmation email and double opt-in)",
    how: "found, then deleted with its submission",
    async find(db, principal, address) {
      // A cheap first pass in SQL where it can serve (mentionedInSql); the exact test on each candidate.
      const mentions = (column: SQLiteColumn) => mentionedInSql(column, address, "text");
      const rows = await db
        .select({
          submissionId: notifications.submissionId,
          to: notifications.to,
          subject: notifications.subject,
          replyTo: notifications.replyTo,
          kind: notifications.kind,
          owner: forms.notificationEmail,
        })
        .from(notifications)
        .innerJoin(forms, eq(forms.id, notifications.formId))
        .where(
          and(
            eq(forms.accountId, principal.accountId),
            eq(forms.mode, principal.mode),
            or(mentions(notifications.replyTo), mentions(notifications.subject), mentions(notifications.to)),
          ),
        );
      return rows
        .filter((row) =>
          // A confirmation's recipient is the submitter; its reply-to and the words of its subject are the owner's
          // (what it repeats of the post is in the post's own fields, and goes with it).
          row.kind === "confirmation"
            ? holdsAddress(row.to, address)
            : holdsAddress(row.replyTo, address) ||
              holdsAddress(row.subject, address) ||
              // The form's own notification address is the owner's, not a submitter's: only the copies (`_cc`) count.
              (holdsAddress(row.to, address) && row.owner?.trim().toLowerCase() !== address),
        )
        .map((row) => row.submissionId);
    },
  },
  {
    where:
      "submissions.held: the `_subject`, `_replyto` and `_cc` of the notification held back by a spam verdict (docs/api.md, Spam) or until a double opt-in link is opened (docs/api.md, Confirmation email and double opt-in)",
    how: "found, then deleted with its submission",
    async find(db, principal, address) {
      const rows = await db
        .select({ id: submissions.id, held: submissions.held })
        .from(submissions)
        .innerJoin(forms, eq(forms.id, submissions.formId))
        .where(
          and(
            eq(forms.accountId, principal.accountId),
            eq(forms.mode, principal.mode),
            isNotNull(submissions.held),
            mentionedInSql(submissions.held, address, "json"),
          ),
        );
      const text = (value: unknown) => (typeof value === "string" ? value : null);
      return rows
        .filter((row) => {
          const held = JSON.parse(row.held!) as { subject?: unknown; replyTo?: unknown; cc?: unknown };
          const copies = Array.isArray(held.cc) ? held.cc : [];
          return holdsAddress(text(held.replyTo), address) || holdsAddress(text(held.subject), address) || copies.some((cc) => holdsAddress(text(cc), address));
        })
        .map((row) => row.id);
    },
  },
  { where: "webhook_deliveries: payload (a copy of the event), response_snippet, last_error", how: "deleted with its submission" },
  {
    where: "idempotency_keys: the answer kept for a repeated post (its `_next` address) and the fingerprint of its fields",
    how: "found, then deleted with its submission",
    async find(db, principal, address) {
      // `_next` is stored nowhere else: an address given only there (`?email=ann%40example.com`) is found here.
      const rows = await db
        .select({ submissionId: idempotencyKeys.submissionId, location: idempotencyKeys.location })
        .from(idempotencyKeys)
        .innerJoin(forms, eq(forms.id, idempotencyKeys.formId))
        .where(and(eq(forms.accountId, principal.accountId), eq(forms.mode, principal.mode)));
      return rows.filter((row) => addressInUrl(row.location, address)).map((row) => row.submissionId);
    },
  },
  {
    where:
      "spam_tokens: the learning filter's tokens of marked submissions (an address among them, as from:…); an erased submission's marks are taken back with it, and a token that still names the address is removed",
    how: "scrubbed",
    async scrub(tx, principal, address) {
      const naming = sql`${spamTokens.accountId} = ${principal.accountId} AND instr(lower(${spamTokens.token}), ${address}) > 0`;
      // The account's token totals are the sums of the counts (src/services/spam/filter.ts): they lose what is removed.
      await tx.run(sql`UPDATE ${accounts} SET
        spam_token_total = max(spam_token_total - coalesce((SELECT sum(${spamTokens.spam}) FROM ${spamTokens} WHERE ${naming}), 0), 0),
        ham_token_total = max(ham_token_total - coalesce((SELECT sum(${spamTokens.ham}) FROM ${spamTokens} WHERE ${naming}), 0), 0)
        WHERE id = ${principal.accountId}`);
      await tx.run(sql`DELETE FROM ${spamTokens} WHERE ${naming}`);
    },
  },
];
