import { json } from "../http/respond.ts";
import { mailTestSchema, sendMailTest } from "../services/outbox/mail-status.ts";
import { operation } from "./operation.ts";

/** /api/mail/test (admin): a test mail through the server's transport, and what the provider answered (docs/api.md, "Mail"). */
export const mailOperations = [
  operation({
    method: "POST",
    path: "/api/mail/test",
    operationId: "testMail",
    summary: "Send a test email",
    description:
      "Sends a test email through the server's mail transport (--mail-url) at once and says what the provider answered: sent true with its message id, or sent false with its refusal in its own words (or, on a server without a transport, that mail is off).",
    tag: "Keys",
    scope: "account",
    permission: "admin",
    body: {
      name: "MailTest",
      schema: mailTestSchema,
      example: { to: "owner@example.com" },
      notes: { to: "The address to send the test to." },
    },
    ok: {
      status: 200,
      description:
        "What the transport did with the test: sent, the transport (scheme and host, never a secret), the provider's answer, and whether a refusal may pass later.",
      schema: "MailTestResult",
      define: (z) => z.object({ sent: z.boolean(), transport: z.string(), answer: z.string(), retryable: z.boolean() }),
    },
    handler: async (ctx) => json(200, await sendMailTest(ctx.options.mail, ctx.body)),
  }),
];
