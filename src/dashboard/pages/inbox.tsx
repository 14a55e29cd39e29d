/** @jsxImportSource hono/jsx */
import { paymentText } from "./payment.ts";
import type { Form } from "../../domain/types.ts";
import type { Submission } from "../../domain/types.ts";
import { can } from "../../services/people/roles.ts";
import type { Filter } from "../../services/submissions/submissions.ts";
import type { Session } from "../../services/people/users.ts";
import { isFileRef } from "../../lib/files.ts";
import { PREVIEW_TYPES } from "../../lib/image-type.ts";
import { isEmail } from "../../lib/validate.ts";
import { counted } from "../../lib/plural.ts";
import { Csrf, FormHeader, Notice, Layout, Time } from "./layout.tsx";

export interface InboxQuery {
  filter: Filter;
  q: string;
  since: string;
  page: number;
}

export const PAGE_SIZE = 25;

/** The inbox's address with these parameters, defaults left out, so that a view can be bookmarked. */
export function inboxHref(form: Form, query: InboxQuery, changes: Partial<InboxQuery> = {}, path = "submissions", extra: Record<string, string> = {}): string {
  const merged = { ...query, ...changes };
  const params = new URLSearchParams(extra);
  if (merged.filter !== "all") params.set("filter", merged.filter);
  if (merged.q) params.set("q", merged.q);
  if (merged.since) params.set("since", merged.since);
  if (merged.page > 1) params.set("page", String(merged.page));
  const search = params.toString();
  return `/dashboard/forms/${form.id}/${path}${search ? `?${search}` : ""}`;
}

/** One value of submitted data as plain text: lists joined, objects as JSON. Never HTML, never a link. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (isFileRef(value)) return value.name;
  if (Array.isArray(value)) return value.map(valueText).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** The first few values of a submission, for its row in the list. */
function preview(submission: Submission, fields: string[]): string {
  const text = fields
    .filter((f) => f in submission.data)
    .slice(0, 3)
    .map((f) => valueText(submission.data[f]))
    .filter(Boolean)
    .join(" · ");
  return text.length > 140 ? `${text.slice(0, 139)}…` : text || "(empty)";
}

const FILTER_LABELS: [Filter, string][] = [
  ["all", "All"],
  ["unread", "Unread"],
  ["starred", "Starred"],
  ["spam", "Spam"],
  ["unconfirmed", "Unconfirmed"],
  ["awaiting_payment", "Awaiting payment"],
];

export interface InboxProps {
  session: Session;
  form: Form;
  query: InboxQuery;
  submissions: Submission[];
  fields: string[];
  total: number;
  hasMore: boolean;
  /** Why the search or since cannot be read, by input: the API's own words. */
  errors?: { q?: string; since?: string };
  notice?: string;
}

/** A form's submissions: filters, search, since, pages, actions on a selection, downloads. */
export function InboxPage({ session, form, query, submissions, fields, total, hasMore, errors = {}, notice }: InboxProps) {
  const unreadable = errors.q !== undefined || errors.since !== undefined;
  const here = inboxHref(form, query);
  // A viewer gets the list alone: no selection, no action (the server refuses them all the same).
  const editable = can(session.user.role, "edit");
  const list = (
    <ul class={editable ? "inbox" : "inbox read-only"}>
      {submissions.map((s) => {
        const text = preview(s, fields);
        return (
          <li class={s.isRead ? "read" : "unread"}>
            {editable ? <input type="checkbox" name="ids" value={s.id} id={`sel-${s.id}`} aria-label={`Select submission of ${s.createdAt}`} /> : null}
            <span class="star">
              {s.isStarred ? (
                <span title="Starred">
                  ★<span class="sr-only"> starred</span>
                </span>
              ) : (
                ""
              )}
            </span>
            <a href={`/dashboard/forms/${form.id}/submissions/${s.id}`}>
              <span class="preview" title={text}>
                {text}
              </span>
              {s.isSpam ? <span class="reason">{` (spam: ${spamReasonText(s)})`}</span> : null}
              {s.payment ? <span class="reason">{` (${paymentText(s.payment)})`}</span> : null}
              {s.isRead ? null : <span class="sr-only"> (unread)</span>}
            </a>
            <Time iso={s.createdAt} />
          </li>
        );
      })}
    </ul>
  );
  const first = (query.page - 1) * PAGE_SIZE;
  return (
    <Layout title={`${form.name}: inbox`} session={session} section="forms">
      <FormHeader form={form} tab="inbox" />
      <Notice text={notice} />
      <nav class="filters" aria-label="Filter">
        {FILTER_LABELS.map(([filter, label]) => (
          <a href={inboxHref(form, query, { filter, page: 1 })} aria-current={filter === query.filter ? "page" : undefined}>
            {label}
          </a>
        ))}
      </nav>
      <form method="get" action={`/dashboard/forms/${form.id}/submissions`} class="search" role="search">
        {query.filter !== "all" ? <input type="hidden" name="filter" value={query.filter} /> : null}
        <div class={`field${errors.q ? " has-error" : ""}`}>
          <label for="f-q">Search</label>
          <input
            id="f-q"
            name="q"
            type="search"
            value={query.q}
            placeholder="Text in any field"
            aria-invalid={errors.q ? "true" : undefined}
            aria-describedby={errors.q ? "f-q-error" : undefined}
          />
          {errors.q ? (
            <p class="error" id="f-q-error">
              {errors.q}
            </p>
          ) : null}
        </div>
        <div class={`field${errors.since ? " has-error" : ""}`}>
          <label for="f-since">Since</label>
          <input
            id="f-since"
            name="since"
            value={query.since}
            placeholder="2026-11-01, 24h or 7d"
            aria-invalid={errors.since ? "true" : undefined}
            aria-describedby={errors.since ? "f-since-error" : undefined}
          />
          {errors.since ? (
            <p class="error" id="f-since-error">
              {errors.since}
            </p>
          ) : null}
        </div>
        <div class="actions">
          <button type="submit" class="secondary">
            Search
          </button>
        </div>
      </form>
      {unreadable ? null : (
        <p class="downloads">
          <span class="muted">Download this view:</span>{" "}
          <a href={inboxHref(form, query, { page: 1 }, "export", { format: "csv" })} download>
            CSV
          </a>{" "}
          <a href={inboxHref(form, query, { page: 1 }, "export", { format: "ndjson" })} download>
            NDJSON
          </a>
        </p>
      )}
      <section class="card flush">
        {submissions.length === 0 ? (
          <p class="empty">
            {unreadable
              ? "Nothing is listed while the search or Since cannot be read: correct it, or clear it to see every submission."
              : query.q || query.since || query.filter !== "all"
                ? "Nothing matches this view."
                : "No submissions yet. Send a test one from Settings, or post the form from your site."}
          </p>
        ) : !editable ? (
          list
        ) : (
          <form method="post" action={`/dashboard/forms/${form.id}/submissions/actions`}>
            <Csrf session={session} />
            <input type="hidden" name="return" value={here} />
            <div class="bulk" role="group" aria-label="Actions on the selected submissions">
              <label class="check">
                <input type="checkbox" data-select-all="ids" hidden /> <span class="sr-only">Select all</span>
              </label>
              <button type="submit" name="action" value="star" class="secondary small">
                Star
              </button>
              <button type="submit" name="action" value="unstar" class="secondary small">
                Unstar
              </button>
              <button type="submit" name="action" value="read" class="secondary small">
                Mark read
              </button>
              <button type="submit" name="action" value="unread" class="secondary small">
                Mark unread
              </button>
              {query.filter === "spam" ? (
                <button type="submit" name="action" value="notspam" class="secondary small">
                  Not spam
                </button>
              ) : (
                <button type="submit" name="action" value="spam" class="secondary small">
                  Spam
                </button>
              )}
              <button type="submit" name="action" value="delete" class="danger small" data-confirm="Delete the selected submissions? This cannot be undone.">
                Delete
              </button>
            </div>
            {list}
          </form>
        )}
      </section>
      <nav class="pages" aria-label="Pages">
        <span class="muted">{total === 0 ? counted(0, "submission") : `${first + 1}–${first + submissions.length} of ${total}`}</span>
        {query.page > 1 ? <a href={inboxHref(form, query, { page: query.page - 1 })}>← Newer</a> : null}
        {hasMore ? <a href={inboxHref(form, query, { page: query.page + 1 })}>Older →</a> : null}
      </nav>
    </Layout>
  );
}

/** The neighbours of a submission in the inbox's order: the newer and the older one, when there are. */
export interface Neighbours {
  newer: string | null;
  older: string | null;
}

/** A submission's title: its first values (not files), as a person would name it in a list. */
export function submissionTitle(submission: Submission): string {
  const text = Object.values(submission.data)
    .filter((value) => !isFileRef(value) && !(Array.isArray(value) && value.some(isFileRef)))
    .map(valueText)
    .filter(Boolean)
    .slice(0, 2)
    .join(" · ");
  return text.length > 80 ? `${text.slice(0, 79)}…` : text || "Submission";
}

/** The address to reply to: a field named email holding one address, else the first value that is one. */
export function replyAddress(submission: Submission): string | null {
  const values = [submission.data.email, ...Object.values(submission.data)];
  const found = values.find((value) => typeof value === "string" && isEmail(value.trim()));
  return typeof found === "string" ? found.trim() : null;
}

const sizeText = (bytes: number) =>
  bytes < 1024 ? `${bytes} bytes` : bytes < 1048576 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1048576).toFixed(1)} MB`;

/** One value: text, or for an uploaded file its name, type, size and the owner-only download. */
function DataValue({ form, submission, value }: { form: Form; submission: Submission; value: unknown }) {
  const files = (Array.isArray(value) ? value : [value]).filter(isFileRef);
  if (files.length === 0) return <dd>{valueText(value)}</dd>;
  return (
    <dd>
      <ul class="files">
        {files.map((file) => {
          const href = `/dashboard/forms/${form.id}/submissions/${submission.id}/files/${file.file}`;
          return (
            <li>
              <a href={href} download={file.name}>
                {file.name}
              </a>{" "}
              <span class="muted">{`${file.type} · ${sizeText(file.size)}`}</span>
              {PREVIEW_TYPES.includes(file.type) ? <img class="preview-image" src={`${href}/preview`} alt={`Preview of ${file.name}`} /> : null}
            </li>
          );
        })}
      </ul>
    </dd>
  );
}

/** Why a submission is spam, in words a person reads: the rule that matched, the filter with its score. */
function spamReasonText(submission: Submission): string {
  const text = SPAM_REASONS[submission.spamReason ?? ""] ?? submission.spamReason ?? "spam";
  return submission.spamReason === "filter" && submission.spamScore !== undefined ? `${text}, score ${submission.spamScore.toFixed(2)}` : text;
}

/** The label a form declares for a field, else its name: what the owner called it. */
const labelOf = (form: Form, name: string) => form.fields.find((rule) => rule.name === name)?.label || name;

/** One submission, its data as text, and what can be done with it. */
export function SubmissionPage({
  session,
  form,
  submission,
  back,
  neighbours = { newer: null, older: null },
}: {
  session: Session;
  form: Form;
  submission: Submission;
  back: string;
  neighbours?: Neighbours;
}) {
  const action = `/dashboard/forms/${form.id}/submissions/actions`;
  const button = (value: string, label: string, cls = "secondary", confirm?: string) => (
    <button type="submit" name="action" value={value} class={cls} data-confirm={confirm}>
      {label}
    </button>
  );
  const title = submissionTitle(submission);
  const reply = replyAddress(submission);
  const at = (id: string) => `/dashboard/forms/${form.id}/submissions/${id}`;
  return (
    <Layout title={`${title}: ${form.name}`} session={session} section="forms">
      <FormHeader form={form} tab="inbox" />
      <nav class="pages" aria-label="Submissions">
        <a href={back}>← Back to the inbox</a>
        {neighbours.newer ? (
          <a href={at(neighbours.newer)} rel="prev">
            Newer
          </a>
        ) : null}
        {neighbours.older ? (
          <a href={at(neighbours.older)} rel="next">
            Older
          </a>
        ) : null}
      </nav>
      <article class="card">
        <h2>{title}</h2>
        <p class="muted">
          Received <Time iso={submission.createdAt} />
          {submission.isStarred ? " · starred" : ""}
          {submission.isSpam ? ` · spam: ${spamReasonText(submission)}` : ""}
          {" · "}
          <code>{submission.id}</code>
        </p>
        {submission.payment ? (
          <p class="muted" id="payment">
            {`Payment ${paymentText(submission.payment)} · Stripe ${submission.payment.paymentIntent ?? submission.payment.sessionId ?? "-"}`}
          </p>
        ) : null}
        {submission.spamScore === undefined ? null : (
          <p class="muted" id="spam-score">
            Spam filter score {submission.spamScore.toFixed(2)}
            {submission.spamTokens?.length ? `; the words that weighed most: ${submission.spamTokens.join(", ")}` : ""}
          </p>
        )}
        {reply ? (
          <p>
            <a class="button secondary" href={`mailto:${encodeURIComponent(reply).replace("%40", "@")}?subject=${encodeURIComponent(`Re: ${form.name}`)}`}>
              Reply to {reply}
            </a>
          </p>
        ) : null}
        <dl class="data">
          {Object.entries(submission.data).map(([name, value]) => (
            <div>
              <dt>{labelOf(form, name)}</dt>
              <DataValue form={form} submission={submission} value={value} />
            </div>
          ))}
        </dl>
        {can(session.user.role, "edit") ? (
          <form method="post" action={action} class="actions">
            <Csrf session={session} />
            <input type="hidden" name="ids" value={submission.id} />
            <input type="hidden" name="return" value={`/dashboard/forms/${form.id}/submissions/${submission.id}`} />
            <input type="hidden" name="back" value={back} />
            {submission.isStarred ? button("unstar", "Unstar") : button("star", "★ Star")}
            {submission.isSpam ? button("notspam", "Not spam") : button("spam", "Mark as spam")}
            {button("unread", "Mark unread")}
            {button("delete", "Delete", "danger", "Delete this submission? This cannot be undone.")}
          </form>
        ) : null}
      </article>
    </Layout>
  );
}

/** Why a submission is spam, in words (the list and the submission page). */
export const SPAM_REASONS: Record<string, string> = {
  honeypot: "the hidden honeypot field was filled in",
  captcha_unverified: "the captcha was not verified",
  "rule:blocked_words": "the rule “Blocked words and phrases” matched",
  "rule:blocked_emails": "the rule “Blocked emails” matched",
  "rule:max_links": "the rule “Most links in a submission” matched",
  disposable_email: "the rule “Block disposable email addresses” matched",
  duplicate: "the same data came within the duplicate window",
  filter: "the learning filter",
  owner: "marked as spam by a member of the team",
};
