import { afterAll, beforeAll, expect, test } from "bun:test";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { runInProcess as runCli } from "../helpers/fake-io.ts";

// A server that takes every connection and never says a word: the CLI must give up, not hang.
let silent: Server;
const sockets: Socket[] = [];
let url: string;

beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.push(socket);
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
});
afterAll(() => {
  for (const socket of sockets) socket.destroy();
  silent.close();
});

test("a server that accepts but never answers: the remote CLI gives up after FORMSVC_TIMEOUT and says so", async () => {
  const result = await runCli(["forms", "list"], { env: { FORMSVC_URL: url, FORMSVC_KEY: "sk_live_whatever", FORMSVC_TIMEOUT: "1" } });
  expect(result).toEqual({ code: 1, stdout: "", stderr: `formsvc: the server at ${url} did not answer within 1 s\n` });
  expect(sockets.length).toBeGreaterThan(0);
});

test("a timeout that is not a number of seconds is a usage error", async () => {
  const result = await runCli(["forms", "list"], { env: { FORMSVC_URL: url, FORMSVC_KEY: "sk_live_whatever", FORMSVC_TIMEOUT: "soon" } });
  expect(result).toEqual({ code: 2, stdout: "", stderr: 'formsvc: FORMSVC_TIMEOUT must be a number of seconds above 0, not "soon"\n' });
});
