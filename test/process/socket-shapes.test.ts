import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect } from "node:net";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";

// No 500 for a request's shape (docs/api.md, "Requests of unusual shape"), over a raw TCP socket to the real server.

let server: ServerProcess;
let key: string;
beforeAll(async () => {
  server = await startServerProcess({ args: ["--rate-limit", "0", "--metrics"] });
  key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
});
afterAll(() => server.stop());

/** Sends `text` as is and reads every byte the server sends back until it closes (or 3 s pass, then we close). */
function raw(text: string): Promise<string> {
  const { port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), "127.0.0.1");
    let answer = "";
    const timer = setTimeout(() => socket.end(), 3_000);
    socket.on("data", (data) => {
      answer += data.toString("latin1");
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.on("error", () => undefined);
    socket.write(text);
  });
}

const statuses = (answer: string) => [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

/** The API, with the key made for this file. */
async function api(method: string, path: string, body?: unknown): Promise<any> {
  const init = {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  };
  return (await fetch(`${server.url}${path}`, init)).json();
}

/** How many requests to `route` the server has answered (or given up on), whatever their status. */
async function handled(route: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const counts = [...text.matchAll(/^formsvc_http_requests_total\{method="POST",route="([^"]+)",status="\d+"\} (\d+)$/gm)];
  return counts.filter((m) => m[1] === route).reduce((sum, m) => sum + Number(m[2]), 0);
}

const post = (path: string, extra: string) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 13\r\n\r\nmessage=hello${extra}`;
const chunkedWithTrailer = (path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nTrailer: X-Check\r\n\r\n` +
  "d\r\nmessage=hello\r\n0\r\nX-Check: 1\r\n\r\n";

// Bun goes on parsing what follows a request in the same write while the answer is pending, then closes the
// connection or answers 400 itself (docs/api.md, "Requests that Bun refuses"). Such a post is not answered by
// formsvc, so it must not be stored either: a client that sees no answer, or a 400, retries.
const REFUSED_BY_BUN: [string, (path: string) => string, number[]][] = [
  ["a post followed by a pipelined request in the same write", (path) => post(path, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"), []],
  ["a chunked post with a trailer section", chunkedWithTrailer, [400]],
  ["a post followed by bytes that are not HTTP", (path) => post(path, "NOT HTTP AT ALL\r\n\r\n"), [400]],
];

for (const [name, request, answered] of REFUSED_BY_BUN) {
  test(`${name}: what Bun refuses or leaves unanswered is not stored (/f/ and /api/f/)`, async () => {
    const form = await api("POST", "/api/forms", { name: "Contact" });
    for (const path of [`/f/${form.slug}`, `/api/f/${form.slug}`]) {
      const route = path.startsWith("/api") ? "/api/f/:slug" : "/f/:slug";
      const before = await handled(route);
      expect(statuses(await raw(request(path)))).toEqual(answered);
      // The server's own count says when it is done with the post: then the list is final.
      while ((await handled(route)) === before) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect((await api("GET", `/api/forms/${form.id}/submissions`)).submissions).toEqual([]);
    // The same post alone is stored and answered.
    expect(statuses(await raw(post(`/f/${form.slug}`, "").replace("Host: x", "Host: x\r\nConnection: close")))).toEqual([303]);
    expect((await api("GET", `/api/forms/${form.id}/submissions`)).submissions.map((s: { data: unknown }) => s.data)).toEqual([{ message: "hello" }]);
  });
}

test("HTTP/1.0 without a Host header (HAProxy's health check) is answered, not 500", async () => {
  const health = await raw("GET /healthz HTTP/1.0\r\n\r\n");
  expect(statuses(health)).toEqual([200]);
  expect(health).toContain('{"status":"ok"}');
  expect(statuses(await raw("GET /thanks HTTP/1.0\r\n\r\n"))).toEqual([200]);
});

test("a method HTTP does not define here is 501 not_implemented", async () => {
  const answer = await raw("PURGE /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  expect(statuses(answer)).toEqual([501]);
  expect(answer).toContain('"code":"not_implemented"');
});

test("a good request followed by pipelined garbage: the good one is answered, then 400 and the connection closes", async () => {
  const answer = await raw("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP AT ALL\r\n\r\n");
  expect(statuses(answer)).toEqual([200, 400]);
  expect(answer).toContain('{"status":"ok"}');
});

/** Sends `parts` on one connection, each write `gap` ms after the one before, and reads until the server closes. */
function rawWrites(parts: string[], gap: number): Promise<string> {
  const { port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), "127.0.0.1");
    let answer = "";
    const timer = setTimeout(() => socket.end(), 3_000);
    socket.on("data", (data) => {
      answer += data.toString("latin1");
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.on("error", () => undefined);
    for (const [i, part] of parts.entries()) setTimeout(() => socket.write(part), i * gap);
  });
}

test("two posts pipelined on one connection, many times over: every post stored was answered, with its id", async () => {
  const form = await api("POST", "/api/forms", { name: "Pipelined" });
  const jsonPost = (message: string, close: boolean) => {
    const body = JSON.stringify({ message });
    const connection = close ? "Connection: close\r\n" : "";
    return `POST /f/${form.slug} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json\r\n${connection}Content-Length: ${body.length}\r\n\r\n${body}`;
  };
  const answered = new Set<string>();
  // The second post in the same write, a moment after the first, or cut anywhere: Bun closes the connection
  // when it reads a request while the one before still waits for its answer.
  for (let i = 0; i < 45; i++) {
    const pair = [jsonPost(`first ${i}`, false), jsonPost(`second ${i}`, true)];
    const cut = i % 3 === 2 ? 40 + ((i * 37) % (pair[0]!.length + 30)) : 0;
    const parts = i % 3 === 0 ? [pair.join("")] : i % 3 === 1 ? pair : [pair.join("").slice(0, cut), pair.join("").slice(cut)];
    const answer = await rawWrites(parts, i % 5);
    for (const match of answer.matchAll(/"id":"(sub_\w+)"/g)) answered.add(match[1]!);
  }
  // Posts are written in the order they reach the writer: once a later post is answered, every earlier one is settled.
  const last = await fetch(`${server.url}/f/${form.slug}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ message: "last" }),
  });
  answered.add(((await last.json()) as { id: string }).id);
  const stored = (await api("GET", `/api/forms/${form.id}/submissions?limit=100`)).submissions as { id: string; data: { message: string } }[];
  expect(stored.filter((s) => !answered.has(s.id)).map((s) => s.data.message)).toEqual([]);
  expect(stored.length).toBeGreaterThan(1);
});
