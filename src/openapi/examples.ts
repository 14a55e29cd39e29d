// Examples shown beside the shared schemas: what an answer looks like.
import { DEFAULT_FILTER_THRESHOLD, PAGE_LIMIT } from "../domain/limits.ts";

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
  fields: [],
  otherFields: "keep",
  confirmation: null,
  spamRules: { blockedWords: ["crypto"], maxLinks: 3 },
  spamFilter: { enabled: true, threshold: DEFAULT_FILTER_THRESHOLD },
  page: {
    enabled: true,
    title: "Write to us",
    description: "We answer within a day.",
    logoUrl: null,
    accentColor: "#0b5cad",
    submitLabel: null,
    thankYouMessage: "Thank you: we will write back soon.",
    language: null,
  },
  notificationRoutes: [{ to: "sales@example.com", when: [{ field: "topic", op: "equals", value: "sales" }] }],
  payment: null,
};

const submission = {
  id: "sub_0f3k9x2m7q8r4t6v1w5y0z3a",
  data: { email: "ann@example.com", message: "Hello" },
  createdAt: "2026-11-22T12:05:00.000Z",
  isRead: false,
  isStarred: false,
  isSpam: false,
  spamReason: null,
  spamScore: 0.02,
  spamTokens: [],
};

const webhook = {
  id: "whk_01m84z1hmddmwfdberrjxa",
  formId: form.id,
  url: "https://hooks.example.com/formsvc",
  description: "CRM",
  format: "standard",
  when: [],
  secretPrefix: "whsec_XMrc…",
  createdAt: "2026-11-22T12:10:00.000Z",
};

const destination = {
  id: "dst_01m84z1hmddmwfdberrjxb",
  formId: form.id,
  type: "airtable",
  config: { baseId: "appQ3xJ0xTq5m3Yb1", table: "Leads" },
  fields: { email: "Email", message: "Notes" },
  when: [{ field: "topic", op: "equals", value: "sales" }],
  enabled: true,
  createdAt: "2026-11-22T12:10:00.000Z",
};

const delivery = {
  id: "dlv_01m84z1p5bv8cx6wb9y1w1",
  webhookId: webhook.id,
  destinationId: null,
  submissionId: submission.id,
  messageId: "msg_01m84z1p5bv8cx6wb9y1w0",
  eventType: "submission.created",
  status: "succeeded",
  attempts: 1,
  responseStatus: 200,
  durationMs: 10,
  responseSnippet: "thanks",
  error: null,
  createdAt: "2026-11-22T12:05:00.000Z",
  lastAttemptAt: "2026-11-22T12:05:00.017Z",
  nextAttemptAt: null,
  deliveredAt: "2026-11-22T12:05:00.017Z",
};

const key = {
  id: "key_01m848p00nqx3hs3t8d9st",
  type: "live",
  name: "reporting",
  prefix: "sk_live_d0qg…",
  permissions: ["read"],
  formId: null,
  mode: "live",
  createdAt: "2026-11-22T12:00:00.000Z",
  revokedAt: null,
  lastUsedAt: "2026-11-22T12:30:00.000Z",
};

/** Examples of the shared answers, a public post and error messages, by schema name or status (a request body's example is its declaration's). */
export const EXAMPLES: {
  responses: Record<string, unknown>;
  submission: unknown;
  errorMessages: Record<number, string>;
} = {
  responses: {
    Form: form,
    FormList: { forms: [form] },
    Submission: submission,
    SubmissionPage: {
      submissions: [submission],
      fields: ["email", "message"],
      pagination: { limit: 50, offset: 0, total: 1, hasMore: false, nextCursor: null },
    },
    SubmitSuccess: { success: true, message: "Thank you! Your submission has been received.", id: submission.id, next: "https://example.com/thanks" },
    AltchaChallenge: {
      parameters: {
        algorithm: "PBKDF2/SHA-256",
        cost: 500,
        data: { form: form.slug },
        expiresAt: 1795400000,
        keyLength: 32,
        keyPrefix: "4f0c3b1e9a2d7c55a1e0b3f29d8c6e01",
        keySignature: "9b1f0e7d2c4a6b8e0f1d3c5b7a9e2d4c6b8a0f1e3d5c7b9a1e2d4c6b8a0f1e3d",
        nonce: "0d6f2b9e4c1a7f3e5b8d0c2a4e6f8b1d",
        salt: "7a3c5e1f9b2d4a6c8e0f1b3d5a7c9e2f",
      },
      signature: "3e5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a",
    },
    Erasure: { erased: 2, forms: { [form.id]: 2 }, dryRun: false },
    KeyList: { keys: [key] },
    NewApiKey: {
      id: key.id,
      key: "sk_live_d0qgNdTQGcLgRFbHQGIaRpkW4wgyyGKf49sDQq",
      type: "live",
      permissions: ["read"],
      formId: null,
      name: "reporting",
      createdAt: key.createdAt,
    },
    WebhookList: { webhooks: [webhook] },
    Destination: destination,
    DestinationList: { destinations: [destination] },
    DestinationTest: { ok: false, responseStatus: 401, durationMs: 180, error: "Airtable refused the token (401)." },
    WebhookWithSecret: { ...webhook, secret: "whsec_XMrc1kNKNjEZNJPHYWi+tSM8b0o7Jf8M" },
    WebhookDelivery: { ...delivery, status: "pending", nextAttemptAt: "2026-11-22T12:40:00.000Z", deliveredAt: null },
    DeliveryPage: { deliveries: [delivery], pagination: { limit: 50, offset: 0, hasMore: false } },
    NotificationPage: {
      notifications: [
        {
          id: "ntf_01m84a7nendtya6pbf1z5f",
          kind: "notification",
          submissionId: submission.id,
          to: "owner@example.com",
          subject: "New submission: Contact",
          replyTo: "ann@example.com",
          status: "sent",
          attempts: 1,
          lastError: null,
          createdAt: submission.createdAt,
          sentAt: "2026-11-22T12:05:00.040Z",
          nextAttemptAt: null,
          reason: null,
        },
      ],
      pagination: { limit: 50, offset: 0, hasMore: false },
    },
    Retried: { retried: 1 },
  },
  submission: { email: "ann@example.com", message: "Hello", _gotcha: "" },
  errorMessages: {
    400: `limit must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}, not "0".`,
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
