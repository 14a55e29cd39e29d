// Examples shown beside the schemas: what a first request and its answer look like.

const form = {
  id: "frm_0f3k9x2m7q8r4t6v1w5y0z3a",
  name: "Contact",
  slug: "k3v9x2m7q8r4",
  mode: "live",
  isActive: true,
  submissionCount: 1,
  createdAt: "2026-11-22T12:00:00.000Z",
  updatedAt: "2026-11-22T12:00:00.000Z",
  notificationEmail: "owner@example.com",
  redirectUrl: null,
  allowedDomains: ["example.com"],
  captcha: null,
  submitUrl: "https://forms.example.com/f/k3v9x2m7q8r4",
  fileUploads: false,
  retentionDays: null,
  spamRetentionDays: 30,
};

const submission = {
  id: "sub_0f3k9x2m7q8r4t6v1w5y0z3a",
  data: { email: "ann@example.com", message: "Hello" },
  createdAt: "2026-11-22T12:05:00.000Z",
  isRead: false,
  isStarred: false,
  isSpam: false,
  spamReason: null,
};

/** Examples of request bodies, answers and error messages, by schema name or status. */
export const EXAMPLES: {
  requests: Record<string, unknown>;
  responses: Record<string, unknown>;
  submission: unknown;
  errorMessages: Record<number, string>;
} = {
  requests: {
    FormCreate: { name: "Contact", notificationEmail: "owner@example.com", allowedDomains: ["example.com"] },
    FormUpdate: { isActive: false, redirectUrl: null },
    SubmissionUpdate: { isRead: true, isStarred: true },
    KeyCreate: { type: "form", formId: form.id, permissions: ["read"], name: "site reader" },
    WebhookCreate: { url: "https://hooks.example.com/formsvc", description: "CRM" },
    EraseRequest: { email: "ann@example.com", dryRun: true },
  },
  responses: {
    Form: form,
    FormList: { forms: [form] },
    Submission: submission,
    SubmissionPage: {
      submissions: [submission],
      fields: ["email", "message"],
      pagination: { limit: 50, offset: 0, total: 1, hasMore: false, nextCursor: null },
    },
    SubmitSuccess: { success: true, message: "Thank you! Your submission has been received.", id: submission.id },
    Erasure: { erased: 2, forms: { [form.id]: 2 }, dryRun: false },
  },
  submission: { email: "ann@example.com", message: "Hello", _gotcha: "" },
  errorMessages: {
    400: 'limit must be an integer from 1 to 100, not "0".',
    401: "A valid API key is required: send Authorization: Bearer <key>.",
    403: "This key lacks the write permission.",
    404: "No such form.",
    409: "The slug contact is taken.",
    413: "The body is larger than the limit of 1048576 bytes.",
    415: "The body must be JSON.",
    429: "Too many submissions from your address; try again in 12 seconds.",
    500: "Something went wrong on our side. Try again; if it goes on, the server log says more.",
    503: "The service cannot reach its database right now. Try again in a moment.",
  },
};
