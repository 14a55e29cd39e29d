import type { QueryName } from "./parameters.ts";
import type { ResponseSchemaName } from "./schemas.ts";

/** The bodies a request may carry: each is the zod schema the service validates it with. */
export type RequestSchemaName = "FormCreate" | "FormUpdate" | "SubmissionUpdate" | "KeyCreate" | "WebhookCreate" | "EraseRequest";

/** Which keys an operation takes: account keys only, account keys or a form-level key of the form, or none. */
export type Access = "account" | "form" | "public";

/** One operation of the API, as the document describes it. */
export interface Operation {
  method: "get" | "post" | "patch" | "delete" | "options";
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access: Access;
  permission?: "read" | "write" | "delete" | "admin";
  query?: QueryName[];
  body?: RequestSchemaName;
  /** The success: its status, and the schema of its JSON body, or another media type, or none (204). */
  ok: {
    status: number;
    description: string;
    schema?: ResponseSchemaName;
    media?: Record<string, string | { description: string; arrayOf: ResponseSchemaName }>;
    headers?: Record<string, string>;
  };
  /** Error statuses beyond those every operation of its access has. */
  errors?: number[];
}

/** Where every form's own routes start. */
export const FORM = "/api/forms/{id}";
const SUBMISSION = `${FORM}/submissions/{submissionId}`;
/** The answer header of a create that says where the new resource is. */
export const LOCATION = { Location: "The new resource's address." };

/** Forms, submissions, their files and erasure (contract §4, §5, §11, §13). */
export const FORM_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/api/forms",
    operationId: "listForms",
    summary: "List forms",
    tag: "Forms",
    access: "account",
    permission: "read",
    ok: { status: 200, description: "The key's account's forms of the key's mode, newest first.", schema: "FormList" },
  },
  {
    method: "post",
    path: "/api/forms",
    operationId: "createForm",
    summary: "Create a form",
    tag: "Forms",
    access: "account",
    permission: "write",
    body: "FormCreate",
    errors: [409],
    ok: { status: 201, description: "The form, in the key's mode.", schema: "Form", headers: LOCATION },
  },
  {
    method: "get",
    path: FORM,
    operationId: "getForm",
    summary: "Get a form",
    tag: "Forms",
    access: "account",
    permission: "read",
    ok: { status: 200, description: "The form.", schema: "Form" },
  },
  {
    method: "patch",
    path: FORM,
    operationId: "updateForm",
    summary: "Update a form",
    description: "Any subset of the fields; null clears an optional one.",
    tag: "Forms",
    access: "account",
    permission: "write",
    body: "FormUpdate",
    errors: [409],
    ok: { status: 200, description: "The whole updated form.", schema: "Form" },
  },
  {
    method: "delete",
    path: FORM,
    operationId: "deleteForm",
    summary: "Delete a form",
    description: "The form, its submissions, files, webhooks and notifications are gone, in one transaction.",
    tag: "Forms",
    access: "account",
    permission: "delete",
    ok: { status: 204, description: "Deleted." },
  },

  {
    method: "get",
    path: `${FORM}/submissions`,
    operationId: "listSubmissions",
    summary: "List submissions",
    tag: "Submissions",
    access: "form",
    permission: "read",
    query: ["limit", "offset", "after", "order", "filter", "since", "q"],
    ok: { status: 200, description: "One page, with the form's field names and the total the filter matches.", schema: "SubmissionPage" },
  },
  {
    method: "get",
    path: `${FORM}/submissions/export`,
    operationId: "exportSubmissions",
    summary: "Export submissions",
    description:
      "Every matching submission, streamed. CSV has one column per field after id and createdAt; a value that a spreadsheet would read as a formula is escaped.",
    tag: "Submissions",
    access: "form",
    permission: "read",
    query: ["format", "order", "filter", "since", "q"],
    ok: {
      status: 200,
      description: "A download (Content-Disposition: attachment).",
      media: {
        "text/csv": "CSV, a header row first.",
        "application/x-ndjson": "One submission object a line.",
        "application/json": { description: "One array of submission objects.", arrayOf: "Submission" },
      },
      headers: { "Content-Disposition": 'attachment; filename="{slug}-submissions.{format}"' },
    },
  },
  {
    method: "get",
    path: SUBMISSION,
    operationId: "getSubmission",
    summary: "Get a submission",
    tag: "Submissions",
    access: "form",
    permission: "read",
    ok: { status: 200, description: "The submission.", schema: "Submission" },
  },
  {
    method: "patch",
    path: SUBMISSION,
    operationId: "updateSubmission",
    summary: "Mark a submission",
    description: "Read, starred, spam: any of the three.",
    tag: "Submissions",
    access: "form",
    permission: "write",
    body: "SubmissionUpdate",
    ok: { status: 200, description: "The updated submission.", schema: "Submission" },
  },
  {
    method: "delete",
    path: SUBMISSION,
    operationId: "deleteSubmission",
    summary: "Delete a submission",
    description: "With its files; the form's counters and field list stay right.",
    tag: "Submissions",
    access: "form",
    permission: "delete",
    ok: { status: 204, description: "Deleted." },
  },
  {
    method: "get",
    path: `${SUBMISSION}/files/{fileId}`,
    operationId: "downloadFile",
    summary: "Download an uploaded file",
    description: "Always a download, never shown inline: submitted bytes are untrusted.",
    tag: "Files",
    access: "form",
    permission: "read",
    ok: {
      status: 200,
      description: "The file as uploaded, with the type it was sent with.",
      media: { "application/octet-stream": "The file's bytes (Content-Type is the type it was uploaded with)." },
      headers: { "Content-Disposition": "attachment, with the file's name.", "Content-Security-Policy": "sandbox", "X-Content-Type-Options": "nosniff" },
    },
  },
  {
    method: "post",
    path: "/api/submissions/erase",
    operationId: "eraseSubmissions",
    summary: "Erase a person's submissions",
    description: "Every submission of the key's account and mode in which any field's value equals the address (trimmed, case-insensitive), with its files.",
    tag: "Retention",
    access: "account",
    permission: "admin",
    body: "EraseRequest",
    ok: { status: 200, description: "How many were erased (or would be, with dryRun), by form.", schema: "Erasure" },
  },
];

/** The public endpoint, at both of its addresses, and its CORS preflight (contract §6). */
export const PUBLIC_OPERATIONS: Operation[] = [
  ...["/api/f/{slug}", "/f/{slug}"].flatMap((path, i): Operation[] => [
    {
      method: "post",
      path,
      operationId: i === 0 ? "submit" : "submitShort",
      summary: i === 0 ? "Submit to a form" : "Submit to a form (the address submitUrl shows)",
      description:
        "JSON, urlencoded or multipart. Special fields (_next, _subject, _replyto, _gotcha and the captcha tokens) are removed before storing. Checks in order: form (404), active (403), origin (403), rate limit (429), size (413), parse (400/415), captcha (400). A browser (no Accept: application/json) gets a 303, or an HTML page for an error.",
      tag: "Public submission",
      access: "public",
      ok: { status: 200, description: "Stored (asked with Accept: application/json).", schema: "SubmitSuccess" },
    },
    {
      method: "options",
      path,
      operationId: i === 0 ? "submitPreflight" : "submitPreflightShort",
      summary: "CORS preflight",
      tag: "Public submission",
      access: "public",
      ok: { status: 204, description: "Allowed: Access-Control-Allow-Origin is the request's origin (any when the form has no allowedDomains)." },
    },
    {
      method: "get",
      path: `${path}/altcha`,
      operationId: i === 0 ? "altchaChallenge" : "altchaChallengeShort",
      summary: "A new ALTCHA challenge for the form",
      description:
        'For a form with captcha {provider: "altcha"}: a new challenge each time, expiring in 20 minutes, with the CORS headers the form\'s origins allow. The widget (/altcha.js) fetches it, solves it and puts the solution in the altcha field; each solution is accepted once. 404 for a form without the ALTCHA captcha.',
      tag: "Public submission",
      access: "public",
      ok: { status: 200, description: "The challenge (Cache-Control: no-store).", schema: "AltchaChallenge" },
    },
  ]),
  {
    method: "get",
    path: "/altcha.js",
    operationId: "altchaWidget",
    summary: "The ALTCHA widget's script",
    description: 'The altcha web component, served from inside formsvc (no CDN): <script async defer src="/altcha.js" type="module"></script>.',
    tag: "Public submission",
    access: "public",
    ok: { status: 200, description: "JavaScript (CORS open, cached for a day).", media: { "text/javascript": "The widget's script." } },
  },
];
