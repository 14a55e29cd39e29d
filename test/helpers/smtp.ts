import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A message as the SMTP server received it, decoded by Python's email package. */
export interface ReceivedMail {
  mailFrom: string;
  rcptTos: string[];
  /** Every header as it arrived: [name, raw value]. */
  headers: [string, string][];
  subject: string;
  replyTo: string | null;
  /** The text/plain body, decoded. */
  text: string | null;
  /** Whether the message had an HTML part. */
  html: boolean;
  raw: string;
}

/** A real SMTP server (Debian's python3-aiosmtpd) on a loopback port, keeping each message it accepts. */
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

const SCRIPT = join(import.meta.dir, "smtp_sink.py");

/** Debian's python3, which sees python3-aiosmtpd, even where another python3 comes first on PATH. */
const PYTHON = process.env.FORMSVC_TEST_PYTHON ?? (existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3");

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

/** Starts the SMTP server on `port` (a free one by default) and waits until it accepts connections. */
export async function startSmtpSink(options: { port?: number; dir?: string } = {}): Promise<SmtpSink> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "formsvc-smtp-"));
  const proc = Bun.spawn([PYTHON, SCRIPT, dir, String(options.port ?? 0)], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let out = "";
  const deadline = Date.now() + 10_000;
  while (!/listening (\d+)/.test(out)) {
    const { value, done } = await Promise.race([reader.read(), Bun.sleep(Math.max(0, deadline - Date.now())).then(() => ({ value: undefined, done: true }))]);
    if (done) {
      proc.kill();
      throw new Error(`the SMTP server did not start (is python3-aiosmtpd installed?): ${await new Response(proc.stderr).text()}`);
    }
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const port = Number(/listening (\d+)/.exec(out)![1]);

  const messages = (): ReceivedMail[] =>
    readdirSync(dir)
      .filter((name) => name.endsWith(".json"))
      .sort()
      .map((name) => JSON.parse(readFileSync(join(dir, name), "utf8")) as ReceivedMail);

  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(count, timeoutMs = 4_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const received = messages();
        if (received.length >= count) return received;
        if (Date.now() > until) throw new Error(`waited ${timeoutMs} ms for ${count} message(s), got ${received.length}`);
        await Bun.sleep(20);
      }
    },
    async stop() {
      proc.kill();
      await proc.exited;
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
