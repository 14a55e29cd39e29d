import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadServeConfig } from "../../src/config.ts";
import { serverLog } from "../../src/log.ts";
import { operator } from "../../src/services/principal.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { startServerProcess } from "../helpers/server.ts";
import { startSmtpSink } from "../helpers/smtp.ts";

// The real server on real sockets, as a reverse proxy in front of it talks to it.
const dirs: string[] = [];
const running: RunningServer[] = [];

async function start(flags: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "formsvc-proxy-"));
  dirs.push(dir);
  const config = loadServeConfig({ host: "127.0.0.1", port: "0", db: join(dir, "formsvc.db"), ...flags }, {});
  const server = await startServer(
    config,
    serverLog(
      config.logFormat,
      () => undefined,
      () => undefined,
    ),
  );
  running.push(server);
  const owner = operator((await server.services.accounts.resolve(undefined)).id, "live");
  const key = (await server.services.keys.create(owner, { name: "proxy" })).key;
  const form = await server.services.forms.create(owner, { name: "Contact" });
  return { server, key, slug: form.slug };
}

afterEach(async () => {
  for (const server of running.splice(0)) await server.stop();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * What nginx does with a buffered request: HTTP/1.0 with Connection: close, the whole body written, and only
 * then the answer read. A server that answers early and closes without reading makes the write fail (EPIPE,
 * nginx's 502); the answer is what was read, or the error.
 */
function asNginx(url: string, head: string, body: Uint8Array): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let answer = "";
    const socket = connect(Number(port), hostname, () => {
      socket.write(head);
      socket.write(body, (error) => {
        if (error) return resolve(`write failed: ${error.message}`);
        socket.on("data", (chunk) => (answer += chunk.toString()));
        socket.on("end", () => resolve(answer));
      });
    });
    socket.on("error", (error) => resolve(`${answer}\nsocket error: ${error.message}`));
  });
}

const status = (answer: string) => answer.slice(0, answer.indexOf("\r\n"));
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));

function chunked(size: number): Uint8Array {
  const piece = Buffer.alloc(64 * 1024, 97);
  const parts: Buffer[] = [];
  for (let sent = 0; sent < size; sent += piece.length) parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"));
  parts.push(Buffer.from("0\r\n\r\n"));
  return Buffer.concat(parts);
}

describe("answers given before the body is read reach a proxy that sends the whole body first", () => {
  test("a 5 MB post to a 1 MiB limit gets formsvc's JSON 413, 10 times of 10, by Content-Length and chunked", async () => {
    const { server, slug } = await start({ maxBody: "1048576", rateLimit: "0" });
    const big = new Uint8Array(5 * 1024 * 1024).fill(97);
    // nginx sends HTTP/1.0 with the length of the body it buffered, or HTTP/1.1 chunked when it does not buffer.
    const head = (framing: string) =>
      `POST /f/${slug} HTTP/1.${framing.startsWith("Content-Length") ? 0 : 1}\r\nHost: forms.example.com\r\nConnection: close\r\nAccept: application/json\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;
    const message = "The body is larger than the limit of 1048576 bytes.";
    const expected = { error: { code: "payload_too_large", message }, errors: [{ code: "payload_too_large", message }] };
    for (let i = 0; i < 10; i++) {
      const declared = await asNginx(server.url, head(`Content-Length: ${big.length}`), big);
      expect({ status: status(declared), body: bodyOf(declared) }).toEqual({ status: "HTTP/1.1 413 Payload Too Large", body: expected });
      const streamed = await asNginx(server.url, head("Transfer-Encoding: chunked"), chunked(big.length));
      expect({ status: status(streamed), body: bodyOf(streamed) }).toEqual({ status: "HTTP/1.1 413 Payload Too Large", body: expected });
    }
  });

  test("404 of an unknown form, 415 and 429 answered without reading a 6 MB body are delivered too", async () => {
    const { server, slug } = await start({ maxBody: "8388608", rateLimit: "1", rateBurst: "1" });
    const body = new Uint8Array(6 * 1024 * 1024).fill(97);
    const post = (path: string, type: string) =>
      asNginx(
        server.url,
        `POST ${path} HTTP/1.0\r\nConnection: close\r\nAccept: application/json\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n`,
        body,
      );
    const unknown = await post("/f/no-such-form", "application/json");
    expect({ status: status(unknown), code: bodyOf(unknown).error.code }).toEqual({ status: "HTTP/1.1 404 Not Found", code: "form_not_found" });
    const wrongType = await post(`/f/${slug}`, "text/plain");
    expect({ status: status(wrongType), code: bodyOf(wrongType).error.code }).toEqual({
      status: "HTTP/1.1 415 Unsupported Media Type",
      code: "unsupported_media_type",
    });
    const limited = await post(`/f/${slug}`, "text/plain");
    expect({ status: status(limited), code: bodyOf(limited).error.code }).toEqual({ status: "HTTP/1.1 429 Too Many Requests", code: "rate_limited" });
  });
});

describe("the public address, behind a trusted proxy, without --base-url", () => {
  const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "forms.example.com", "x-forwarded-for": "203.0.113.9" };

  test("X-Forwarded-Proto and -Host (or Forwarded) make submitUrl, Location and the thank-you redirect https", async () => {
    const { server, key, slug } = await start({ trustProxy: "true" });
    const created = await fetch(`${server.url}/api/forms`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...forwarded },
      body: JSON.stringify({ name: "Behind nginx" }),
    });
    const form = await created.json();
    expect({ location: created.headers.get("location"), submitUrl: form.submitUrl }).toEqual({
      location: `https://forms.example.com/api/forms/${form.id}`,
      submitUrl: `https://forms.example.com/f/${form.slug}`,
    });
    const standard = await fetch(`${server.url}/f/${slug}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", forwarded: 'for=203.0.113.9;proto=https;host="forms.example.org"' },
      body: "name=Ann",
    });
    expect({ status: standard.status, location: standard.headers.get("location") }).toEqual({ status: 303, location: "https://forms.example.org/thanks" });
    // The owner's key came through the proxy: its address is learnt, and a request that reaches the server
    // directly sees the public address too.
    const direct = await (await fetch(`${server.url}/api/forms/${form.id}`, { headers: { authorization: `Bearer ${key}` } })).json();
    expect(direct.submitUrl).toBe(`https://forms.example.com/f/${form.slug}`);
  });

  test("a chat webhook's link names the owner's address, whatever host a post's headers claim", async () => {
    const bodies: string[] = [];
    let arrived: () => void = () => {};
    const all = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const POSTS = 12;
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        bodies.push(await request.text());
        if (bodies.length === POSTS) arrived();
        return new Response("ok");
      },
    });
    try {
      const { server, key, slug } = await start({ trustProxy: "true", webhooksAllowPrivate: "true", rateLimit: "0" });
      // The owner's request comes through the proxy, which names the public address.
      const listed = await fetch(`${server.url}/api/forms`, { headers: { authorization: `Bearer ${key}`, ...forwarded } });
      const [form] = (await listed.json()).forms;
      const hook = await fetch(`${server.url}/api/forms/${form.id}/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/slack`, format: "slack" }),
      });
      expect(hook.status).toBe(201);
      // Visitors' posts that claim another public name, in both header forms, in shared write batches.
      const claims = Array.from(
        { length: POSTS },
        (_, i): Record<string, string> =>
          i % 2 === 0 ? { "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" } : { forwarded: "proto=https;host=evil.example" },
      );
      const answers = await Promise.all(
        claims.map((claim, i) =>
          fetch(`${server.url}/f/${slug}`, {
            method: "POST",
            headers: { accept: "application/json", "content-type": "application/json", ...claim },
            body: JSON.stringify({ n: i }),
          }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(claims.map(() => 200));
      await all;
      const linked = bodies.map((body) => /https?:\/\/[^/\s>|]+\/dashboard\//.exec(JSON.parse(body).text as string)?.[0]);
      expect(linked).toEqual(claims.map(() => "https://forms.example.com/dashboard/"));
    } finally {
      receiver.stop(true);
    }
  });

  test("a visitor's Forwarded header does not choose the address in the double opt-in mail", async () => {
    const sink = await startSmtpSink();
    try {
      const { server, key } = await start({ trustProxy: "true", rateLimit: "0", smtpUrl: sink.url, mailFrom: "forms@formsvc.example" });
      const create = (name: string, headers: Record<string, string>) =>
        fetch(`${server.url}/api/forms`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
          body: JSON.stringify({ name, confirmation: { enabled: true, subject: "Confirm", text: "Hello", doubleOptIn: true } }),
        }).then((answer) => answer.json());
      const victim = (slug: string, to: string) =>
        fetch(`${server.url}/f/${slug}`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", forwarded: "proto=https;host=evil.example" },
          body: new URLSearchParams({ email: to }),
        });
      const linkIn = (mail: { text: string | null }) => /https?:\/\/\S+\/confirm\/\S+/.exec(mail.text ?? "")?.[0] ?? "";

      // Before any owner came through the proxy: the address serve listens on, not the visitor's.
      const first = await create("Before", {});
      expect((await victim(first.slug, "victim@x.test")).status).toBe(303);
      const [before] = await sink.waitFor(1);
      expect(linkIn(before!)).toStartWith(`${server.url}/confirm/sub_`);

      // An owner's request through the proxy teaches the public address; a visitor's header still chooses nothing.
      const second = await create("After", forwarded);
      expect((await victim(second.slug, "victim2@x.test")).status).toBe(303);
      const after = (await sink.waitFor(2))[1]!;
      expect(linkIn(after)).toStartWith("https://forms.example.com/confirm/sub_");
      expect(sink.messages().filter((mail) => (mail.text ?? "").includes("evil.example"))).toEqual([]);
    } finally {
      await sink.stop();
    }
  });

  test("without --trust-proxy the forwarded headers are not believed", async () => {
    const { server, key } = await start();
    const created = await fetch(`${server.url}/api/forms`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...forwarded },
      body: JSON.stringify({ name: "Direct" }),
    });
    expect((await created.json()).submitUrl).toStartWith(`${server.url}/f/`);
  });

  test("the setup page posted through the proxy works with --trust-proxy, and without it says what is wrong", async () => {
    for (const trustProxy of ["true", "false"]) {
      const { server } = await start({ trustProxy });
      const token = await server.services.users.createLink("setup", null, 60_000);
      const presession = "p".repeat(32);
      const answer = await fetch(`${server.url}/dashboard/setup`, {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: "https://forms.example.com",
          cookie: `formsvc_presession=${presession}`,
          ...forwarded,
        },
        body: new URLSearchParams({ _presession: presession, token, email: "owner@example.com", password: "a long passphrase", confirm: "a long passphrase" }),
      });
      if (trustProxy === "true") {
        expect({ status: answer.status, location: answer.headers.get("location") }).toEqual({ status: 303, location: "/dashboard/forms" });
        expect(answer.headers.get("set-cookie")).toContain("; Secure");
      } else {
        expect(answer.status).toBe(400);
        expect(await answer.text()).toContain(
          `This page was sent from https://forms.example.com, but this server takes its address to be ${server.url}, so nothing was changed. ` +
            "If https://forms.example.com is this server&#39;s public address, start formsvc with --base-url https://forms.example.com",
        );
      }
    }
  });

  test("serve says where links get their address, and warns when nothing tells it", async () => {
    // What serve prints after it listens, once the line that ends the address notes is there.
    const startLines = async (args: string[]) => {
      const server = await startServerProcess({ args });
      const deadline = Date.now() + 10_000;
      while (!server.stderr().includes("forms take submissions at") && Date.now() < deadline) await Bun.sleep(20);
      await server.stop();
      return server.stderr();
    };
    expect(await startLines(["--trust-proxy"])).toContain(
      "public address: answers follow each request's X-Forwarded-Proto and X-Forwarded-Host (or Forwarded) from the proxy, as --base-url is not set; " +
        "links in mail and webhooks never come from a request's headers",
    );
    expect(await startLines(["--host", "0.0.0.0"])).toMatch(
      /warning: links \(submitUrl, redirects, the setup link\) point at http:\/\/localhost:\d+, which is not a public address: set --base-url/,
    );
    const told = await startLines(["--host", "0.0.0.0", "--base-url", "https://forms.example.com"]);
    expect(told).toContain("forms take submissions at https://forms.example.com/f/{slug}");
    expect(told).not.toContain("warning: links");
  });
});

test("/favicon.ico is an empty answer a browser keeps for a week, not a 404", async () => {
  const { server } = await start();
  const icon = await fetch(`${server.url}/favicon.ico`);
  expect({ status: icon.status, cache: icon.headers.get("cache-control"), body: await icon.text() }).toEqual({
    status: 204,
    cache: "public, max-age=604800",
    body: "",
  });
});
