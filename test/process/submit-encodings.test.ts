import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { brotliCompressSync, constants, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess } from "../helpers/server.ts";
import { publicFixture, type PublicFixture } from "../api/public-support.ts";

// Compressed request bodies (docs/api.md, "Charsets and content encoding"): gzip, deflate and br are inflated within the body limit.

let f: PublicFixture;
beforeAll(async () => {
  f = await publicFixture({ maxBody: 64 * 1024 });
});
afterAll(() => f.close());

const body = JSON.stringify({ name: "Ann", message: "Köln ✓ ".repeat(50) });
const headers = (encoding: string) => ({ accept: "application/json", "content-type": "application/json", "content-encoding": encoding });

test("gzip, deflate and br bodies are inflated and stored as sent", async () => {
  const form = await f.form();
  const encoded: [string, Uint8Array][] = [
    ["gzip", gzipSync(body)],
    ["deflate", deflateSync(body)],
    ["br", brotliCompressSync(body)],
  ];
  for (const [encoding, bytes] of encoded) {
    const answer = await f.post(form.slug, { body: new Uint8Array(bytes), headers: headers(encoding) });
    expect({ encoding, status: answer.status }).toEqual({ encoding, status: 200 });
  }
  const multipart = new FormData();
  multipart.set("name", "Zoë");
  const asSent = new Response(multipart);
  const type = asSent.headers.get("content-type")!;
  const raw = new Uint8Array(await asSent.arrayBuffer());
  const sent = await f.post(form.slug, {
    body: new Uint8Array(gzipSync(raw)),
    headers: { accept: "application/json", "content-type": type, "content-encoding": "gzip" },
  });
  expect(sent.status).toBe(200);
  expect((await f.stored(form.id)).map((s) => s.data)).toEqual([JSON.parse(body), JSON.parse(body), JSON.parse(body), { name: "Zoë" }]);
});

test("another encoding is 415, bytes that do not inflate are 400, an inflated body over the limit is 413; nothing is stored", async () => {
  const form = await f.form();
  const unknown = await f.post(form.slug, { body, headers: headers("compress") });
  const broken = await f.post(form.slug, { body: new Uint8Array(Buffer.from("not gzip at all")), headers: headers("gzip") });
  const big = gzipSync(JSON.stringify({ name: "x".repeat(200 * 1024) }));
  const tooLarge = await f.post(form.slug, { body: new Uint8Array(big), headers: headers("gzip") });
  const codes = await Promise.all([unknown, broken, tooLarge].map(async (r) => [r.status, ((await r.json()) as { error: { code: string } }).error.code]));
  expect(codes).toEqual([
    [415, "unsupported_encoding"],
    [400, "invalid_body"],
    [413, "payload_too_large"],
  ]);
  expect(big.length).toBeLessThan(64 * 1024);
  expect(await f.stored(form.id)).toEqual([]);
});

/** The resident memory of a process, in MiB. */
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

test("a gzip bomb (10 GB once inflated) over a socket is 413, and the server's memory stays flat", async () => {
  const server = await startServerProcess({ args: ["--rate-limit", "0"] });
  try {
    const key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
    const created = await fetch(`${server.url}/api/forms`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Bomb" }),
    });
    const { slug } = (await created.json()) as { slug: string };
    // 1 MiB of zeros as a self-contained run of deflate blocks (ended by a full flush), repeated 10,240 times after
    // a gzip header: a valid stream that inflates to 10 GiB, made as it is sent and never written anywhere.
    const block = deflateRawSync(new Uint8Array(1024 * 1024), { finishFlush: constants.Z_FULL_FLUSH });
    const header = new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03]);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(header);
        if (sent >= 10_240) return controller.close();
        sent += 1;
        controller.enqueue(block);
      },
    });
    const before = rssMiB(server.proc.pid);
    const answer = await fetch(`${server.url}/f/${slug}`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json", "content-encoding": "gzip" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect({ status: answer.status, code: ((await answer.json()) as { error: { code: string } }).error.code }).toEqual({
      status: 413,
      code: "payload_too_large",
    });
    // The default limit is 1 MiB: far less than 10 GiB was read; the server grew by no more than a few buffers.
    expect(sent).toBeLessThan(10_240);
    expect(rssMiB(server.proc.pid) - before).toBeLessThan(64);
  } finally {
    await server.stop();
  }
});
