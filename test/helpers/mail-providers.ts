// Stand-ins for the HTTP mail providers, started by the tests on a free port: each checks what the provider
// checks (its key where the provider reads it, its required fields) and answers with the provider's own
// success and error shapes, from their API references (Postmark Email API, Resend send-email, Mailgun
// messages, SendGrid v3 mail/send; Amazon SES in ses.ts).

/** A message as a stand-in received it, whatever the provider's shape. */
export interface ProviderMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  replyTo: string | null;
}

/** A scripted answer for the next request: a status and the provider's error body for it. */
export interface Scripted {
  status: number;
  body?: unknown;
}

export interface ProviderStandIn {
  /** The ?base= to give the transport. */
  base: string;
  /** Messages accepted, in order. */
  mails: ProviderMail[];
  /** Every request seen, accepted or not, with the headers that matter. */
  requests: { headers: Headers; body: string }[];
  /** Answers the next requests with these, in order, before accepting again. */
  script(...answers: Scripted[]): void;
  /** Resolves once `n` messages were accepted. */
  waitFor(n: number): Promise<ProviderMail[]>;
  stop(): Promise<void>;
}

type Handler = (request: Request, body: string) => { status: number; body: unknown; headers?: Record<string, string> } | ProviderMail;

/** A stand-in on `path`, whose handler answers a refusal or returns the message it accepts (answered with `accepted`). */
export function standIn(
  path: string,
  handle: Handler,
  accepted: (mail: ProviderMail, count: number) => { status: number; body: unknown; headers?: Record<string, string> },
  errorBody: (status: number) => unknown,
): ProviderStandIn {
  const mails: ProviderMail[] = [];
  const requests: { headers: Headers; body: string }[] = [];
  const scripted: Scripted[] = [];
  const waiters: { n: number; resolve: (mails: ProviderMail[]) => void }[] = [];
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(body === "" ? "" : typeof body === "string" ? body : JSON.stringify(body), {
      status,
      headers: { "content-type": typeof body === "string" ? "text/plain" : "application/json", ...headers },
    });
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = await request.text();
      requests.push({ headers: request.headers, body });
      if (request.method !== "POST" || new URL(request.url).pathname !== path) return answer(404, errorBody(404));
      const next = scripted.shift();
      if (next) return answer(next.status, next.body ?? errorBody(next.status));
      const handled = handle(request, body);
      if (!("from" in handled)) return answer(handled.status, handled.body, handled.headers);
      mails.push(handled);
      for (const waiter of waiters.filter((w) => mails.length >= w.n)) waiter.resolve(mails.slice());
      const ok = accepted(handled, mails.length);
      return answer(ok.status, ok.body, ok.headers);
    },
  });
  return {
    base: `http://127.0.0.1:${server.port}`,
    mails,
    requests,
    script: (...answers) => scripted.push(...answers),
    waitFor: (n) => (mails.length >= n ? Promise.resolve(mails.slice()) : new Promise((resolve) => waiters.push({ n, resolve }))),
    stop: async () => server.stop(true),
  };
}

const parsed = (body: string): Record<string, unknown> | null => {
  try {
    const value = JSON.parse(body);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
};
const str = (value: unknown) => (typeof value === "string" ? value : null);

/** Postmark: the server token in X-Postmark-Server-Token, JSON with From, To, Subject and a body. */
export function postmarkStandIn(token: string): ProviderStandIn {
  const error = (status: number, code: number, message: string) => ({ status, body: { ErrorCode: code, Message: message } });
  return standIn(
    "/email",
    (request, body) => {
      const given = request.headers.get("x-postmark-server-token");
      if (!given)
        return error(
          401,
          10,
          "No Account or Server API tokens were supplied in the HTTP headers. Please add a header for either X-Postmark-Server-Token or X-Postmark-Account-Token.",
        );
      if (given !== token)
        return error(
          401,
          10,
          "The Server Token you provided in the X-Postmark-Server-Token request header was invalid. Please verify that you are using a valid token.",
        );
      if (!request.headers.get("content-type")?.startsWith("application/json") || !request.headers.get("accept")?.includes("application/json")) {
        return error(415, 0, "Please provide 'Content-Type: application/json' and 'Accept: application/json' headers.");
      }
      const json = parsed(body);
      if (!json) return error(422, 402, "Invalid JSON");
      if (!str(json.From)) return error(422, 300, "Invalid 'From' address: ''.");
      if (!str(json.To)) return error(422, 300, "Zero recipients specified");
      if (!str(json.TextBody) && !str(json.HtmlBody)) return error(422, 300, "Provide either email TextBody or HtmlBody or both.");
      if (json.MessageStream !== undefined && json.MessageStream !== "outbound")
        return error(422, 1235, "The 'MessageStream' provided does not exist on this server.");
      return {
        from: str(json.From)!,
        to: str(json.To)!.split(/,\s*/),
        subject: str(json.Subject) ?? "",
        text: str(json.TextBody)!,
        replyTo: str(json.ReplyTo),
      };
    },
    (mail, n) => ({
      status: 200,
      body: {
        To: mail.to.join(", "),
        SubmittedAt: new Date().toISOString(),
        MessageID: `b7bc2f4a-e38e-4336-af7d-e6c39${String(n).padStart(7, "0")}`,
        ErrorCode: 0,
        Message: "OK",
      },
    }),
    (status) => ({ ErrorCode: status === 422 ? 300 : 0, Message: status === 404 ? "Not found" : "Internal server error" }),
  );
}

/** Resend: `Authorization: Bearer KEY`, JSON with from, to, subject and text or html; Idempotency-Key replays the first answer. */
export function resendStandIn(key: string): ProviderStandIn & { idempotencyKeys: (string | null)[] } {
  const error = (status: number, name: string, message: string) => ({ status, body: { statusCode: status, message, name } });
  const seen = new Map<string, { status: number; body: unknown }>();
  const idempotencyKeys: (string | null)[] = [];
  let accepted = 0;
  const resendId = (n: number) => `49a3999c-0ce1-4ea6-ab68-afcd6dc2e${String(n).padStart(3, "0")}`;
  const inner = standIn(
    "/emails",
    (request, body) => {
      idempotencyKeys.push(request.headers.get("idempotency-key"));
      const auth = request.headers.get("authorization");
      if (!auth)
        return error(
          401,
          "missing_api_key",
          "Missing API key in the authorization header. Include the following header in the request: Authorization: Bearer YOUR_API_KEY",
        );
      if (auth !== `Bearer ${key}`) return error(403, "invalid_api_key", "API key is invalid");
      const json = parsed(body);
      if (!json) return error(422, "validation_error", "Invalid JSON");
      const to = Array.isArray(json.to) ? json.to.filter((t): t is string => typeof t === "string") : str(json.to) ? [str(json.to)!] : [];
      if (!str(json.from)) return error(422, "missing_required_field", "Missing `from` field.");
      if (to.length === 0) return error(422, "missing_required_field", "Missing `to` field.");
      if (!str(json.subject)) return error(422, "missing_required_field", "Missing `subject` field.");
      const idempotencyKey = request.headers.get("idempotency-key");
      const replay = idempotencyKey ? seen.get(idempotencyKey) : undefined;
      if (replay) return replay;
      accepted += 1;
      if (idempotencyKey) seen.set(idempotencyKey, { status: 200, body: { id: resendId(accepted) } });
      return { from: str(json.from)!, to, subject: str(json.subject)!, text: str(json.text) ?? "", replyTo: str(json.reply_to) };
    },
    (_mail, n) => ({ status: 200, body: { id: resendId(n) } }),
    (status) => ({
      statusCode: status,
      message: status === 404 ? "The requested endpoint does not exist." : "An unexpected error occurred.",
      name: status === 404 ? "not_found" : "application_error",
    }),
  );
  return { ...inner, idempotencyKeys };
}

/** Mailgun: basic auth `api:KEY`, form fields from, to, subject, text on /v3/DOMAIN/messages. */
export function mailgunStandIn(key: string, domain: string): ProviderStandIn & { fields: URLSearchParams[] } {
  const fields: URLSearchParams[] = [];
  const inner = standIn(
    `/v3/${domain}/messages`,
    (request, body) => {
      if (request.headers.get("authorization") !== `Basic ${btoa(`api:${key}`)}`) return { status: 401, body: "Forbidden" };
      if (!request.headers.get("content-type")?.startsWith("application/x-www-form-urlencoded"))
        return { status: 400, body: { message: "'from' parameter is missing" } };
      const form = new URLSearchParams(body);
      fields.push(form);
      for (const name of ["from", "to", "subject"]) if (!form.get(name)) return { status: 400, body: { message: `'${name}' parameter is missing` } };
      if (!form.get("text") && !form.get("html"))
        return { status: 400, body: { message: "Need at least one of 'text', 'html', 'amp-html' or 'template' parameters specified" } };
      return { from: form.get("from")!, to: form.getAll("to"), subject: form.get("subject")!, text: form.get("text")!, replyTo: form.get("h:Reply-To") };
    },
    (_mail, n) => ({ status: 200, body: { id: `<20261206.${n}.1@${domain}>`, message: "Queued. Thank you." } }),
    (status) => ({ message: status === 404 ? "Domain not found" : "Internal error" }),
  );
  return { ...inner, fields };
}

/** SendGrid: `Authorization: Bearer KEY`, personalizations with to, from, subject, content; 202 with an empty body. */
export function sendgridStandIn(key: string): ProviderStandIn {
  const error = (status: number, message: string, field: string | null = null) => ({ status, body: { errors: [{ message, field, help: null }] } });
  return standIn(
    "/v3/mail/send",
    (request, body) => {
      if (request.headers.get("authorization") !== `Bearer ${key}`) return error(401, "The provided authorization grant is invalid, expired, or revoked");
      const json = parsed(body);
      if (!json) return error(400, "Bad Request", null);
      const personalizations = json.personalizations as { to?: { email?: unknown }[] }[] | undefined;
      if (!Array.isArray(personalizations) || personalizations.length === 0)
        return error(400, "The personalizations field is required and must have at least one personalization.", "personalizations");
      const to = (personalizations[0]!.to ?? []).map((t) => str(t.email)).filter((t): t is string => t !== null);
      if (to.length === 0)
        return error(
          400,
          "The to array is required for all personalization objects, and must have at least one email object with a valid email address.",
          "personalizations.0.to",
        );
      const from = json.from as { email?: unknown; name?: unknown } | undefined;
      if (!str(from?.email))
        return error(
          400,
          "The from object must be provided for every email send. It is an object that requires the email parameter, but may also contain a name parameter.",
          "from.email",
        );
      const content = json.content as { type?: unknown; value?: unknown }[] | undefined;
      const text = Array.isArray(content) ? content.find((c) => c.type === "text/plain") : undefined;
      if (!str(text?.value)) return error(400, "Unless a valid template_id is provided, the content parameter is required.", "content");
      if (!str(json.subject)) return error(400, "The subject is required.", "subject");
      const name = str(from!.name);
      const replyTo = str((json.reply_to as { email?: unknown } | undefined)?.email);
      return { from: name ? `${name} <${str(from!.email)}>` : str(from!.email)!, to, subject: str(json.subject)!, text: str(text!.value)!, replyTo };
    },
    (_mail, n) => ({ status: 202, body: "", headers: { "x-message-id": `W9SmVnFaQzGyVKhE1wTxcA${n}` } }),
    (status) => ({ errors: [{ message: status === 404 ? "Not Found" : "Internal Server Error", field: null, help: null }] }),
  );
}
