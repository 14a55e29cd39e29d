import { createServer } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** A message as the SMTP server received it, decoded by mailparser. */
export interface ReceivedMail {
  mailFrom: string;
  rcptTos: string[];
  /** Whether MAIL FROM asked for SMTPUTF8. */
  smtpUtf8: boolean;
  /** MAIL FROM and RCPT TO as they came over the wire (smtp-server shows a punycode domain decoded in the others). */
  commands: string[];
  /** Every header as it arrived: [name, raw value]. */
  headers: [string, string][];
  subject: string;
  replyTo: string | null;
  /** The text/plain body, decoded, with LF line ends. */
  text: string | null;
  /** Whether the message had an HTML part. */
  html: boolean;
  raw: string;
}

/** A real SMTP server (the `smtp-server` package) on a loopback port, keeping each message it accepts. */
export interface SmtpSink {
  port: number;
  /** The address formsvc is given: smtp://127.0.0.1:PORT. */
  url: string;
  /** Every message received so far, in order. */
  messages(): ReceivedMail[];
  /** Waits until at least `count` messages have arrived (polling, bounded) and returns them. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  stop(): Promise<void>;
}

/** A loopback port that was free a moment ago: for a server that must be started later on a known port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** One header line as sent: the name, and the value after the colon with its folding kept. */
function rawHeader(line: string): [string, string] {
  const colon = line.indexOf(":");
  return [line.slice(0, colon), line.slice(colon + 1).replace(/^[ \t]+/, "")];
}

async function decode(raw: Buffer, envelope: Omit<ReceivedMail, "headers" | "subject" | "replyTo" | "text" | "html" | "raw">): Promise<ReceivedMail> {
  const parsed = await simpleParser(raw, { skipTextToHtml: true, skipImageLinks: true });
  return {
    ...envelope,
    headers: parsed.headerLines.map(({ line }) => rawHeader(line)),
    subject: parsed.subject ?? "",
    replyTo: parsed.replyTo?.text ?? null,
    text: parsed.text === undefined ? null : parsed.text.replace(/\r\n/g, "\n"),
    html: parsed.html !== false,
    raw: raw.toString("utf8"),
  };
}

/**
 * Starts the SMTP server on `port` (a free one by default) and resolves once it accepts connections. It offers
 * AUTH without TLS and takes any credentials, as a relay on loopback would; SMTPUTF8 unless `smtpUtf8` is false.
 */
export async function startSmtpSink(options: { port?: number; smtpUtf8?: boolean } = {}): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  // The envelope commands of each connection since its last message, read from smtp-server's debug log.
  const commands = new Map<string, string[]>();
  const quiet = () => {};
  const logger = {
    ...{ trace: quiet, info: quiet, warn: quiet, error: quiet, fatal: quiet },
    debug(entry: { tnx?: string; cid?: string }, _format: string, line?: unknown) {
      if (entry.tnx !== "command" || typeof line !== "string" || !/^(MAIL FROM|RCPT TO):/i.test(line)) return;
      commands.set(entry.cid!, [...(commands.get(entry.cid!) ?? []), line]);
    },
  };
  const server = new SMTPServer({
    name: "sink.test",
    banner: "formsvc test sink",
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    hideSMTPUTF8: options.smtpUtf8 === false,
    closeTimeout: 100,
    logger: logger as never,
    onAuth: (auth, _session, done) => done(null, { user: auth.username }),
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("error", done);
      stream.on("end", () => {
        const envelope = {
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          rcptTos: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          smtpUtf8: (session.envelope as { smtpUtf8?: boolean }).smtpUtf8 === true,
          commands: commands.get(session.id) ?? [],
        };
        commands.delete(session.id);
        decode(Buffer.concat(chunks), envelope).then(
          (mail) => {
            received.push(mail);
            done();
          },
          (error: Error) => done(error),
        );
      });
    },
  });
  // A client that dies mid-session (a server process killed with SIGKILL) resets its connection: that is the
  // client's end, not the sink's, and must not fail the test as an unhandled error.
  server.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "ECONNRESET") throw error;
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.server.address() as { port: number }).port;

  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages: () => [...received],
    async waitFor(count, timeoutMs = 4_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        if (received.length >= count) return [...received];
        if (Date.now() > until) throw new Error(`waited ${timeoutMs} ms for ${count} message(s), got ${received.length}`);
        await Bun.sleep(20);
      }
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
