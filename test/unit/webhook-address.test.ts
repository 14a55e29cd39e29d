import { afterEach, expect, test } from "bun:test";
import { blockedAddressReason, checkedAddresses } from "../../src/lib/address.ts";
import { postOnce } from "../../src/workers/webhook-sender.ts";
import { tableResolver } from "../helpers/dns.ts";
import { startReceiver, type Receiver } from "../helpers/receiver.ts";

const receivers: Receiver[] = [];
afterEach(() => {
  for (const r of receivers.splice(0)) r.stop();
});

test("every special address is refused with its reason; public ones pass", () => {
  const cases: [string, string | null][] = [
    ["127.0.0.1", "a loopback address"],
    ["127.255.0.9", "a loopback address"],
    ["10.0.0.1", "a private address"],
    ["172.16.0.1", "a private address"],
    ["172.31.255.255", "a private address"],
    ["192.168.1.1", "a private address"],
    ["169.254.169.254", "a link-local (cloud metadata) address"],
    ["100.64.0.1", "a shared (CGNAT) address"],
    ["0.0.0.0", "an unspecified address"],
    ["224.0.0.1", "a multicast address"],
    ["255.255.255.255", "a reserved address"],
    ["::", "an unspecified address"],
    ["::1", "a loopback address"],
    ["::ffff:127.0.0.1", "an IPv4-mapped address"],
    ["::ffff:7f00:1", "an IPv4-mapped address"],
    ["::ffff:8.8.8.8", "an IPv4-mapped address"],
    ["fe80::1", "a link-local address"],
    ["fd00:ec2::254", "a private (unique local) address"],
    ["ff02::1", "a multicast address"],
    ["64:ff9b::a9fe:a9fe", "a link-local (cloud metadata) address"],
    ["2002:7f00:1::", "a loopback address"],
    ["8.8.8.8", null],
    ["172.32.0.1", null],
    ["2606:4700:4700::1111", null],
  ];
  expect(cases.map(([address]) => [address, blockedAddressReason(address)])).toEqual(cases);
});

test("a name is refused when any of its addresses is special; localhost is refused without asking DNS", async () => {
  const resolve = tableResolver({ "public.test": ["93.184.215.14"], "mixed.test": ["93.184.215.14", "10.1.2.3"], "loop.test": ["::1"] });
  expect(await checkedAddresses("public.test", resolve)).toEqual([{ address: "93.184.215.14", family: 4 }]);
  await expect(checkedAddresses("mixed.test", resolve)).rejects.toThrow("mixed.test resolves to 10.1.2.3, a private address");
  await expect(checkedAddresses("loop.test", resolve)).rejects.toThrow("loop.test resolves to ::1, a loopback address");
  await expect(checkedAddresses("localhost", resolve)).rejects.toThrow("localhost is this machine");
  await expect(checkedAddresses("[::1]", resolve)).rejects.toThrow("::1 is a loopback address");
});

const send = (url: string, options: { allowPrivate: boolean; resolve: ReturnType<typeof tableResolver> }) =>
  postOnce(new URL(url), "{}", { "content-type": "application/json" }, { ...options, timeoutMs: 5_000, signal: new AbortController().signal });

test("at send time a name that now resolves to loopback (DNS rebinding) is refused before any connection", async () => {
  const receiver = startReceiver();
  receivers.push(receiver);
  const port = new URL(receiver.url).port;
  const rebound = tableResolver({ "hooks.example.com": ["127.0.0.1"] });
  const result = await send(`http://hooks.example.com:${port}/hook`, { allowPrivate: false, resolve: rebound });
  expect(result).toMatchObject({ ok: false, responseStatus: null, error: "refused: hooks.example.com resolves to 127.0.0.1, a loopback address" });
  for (const literal of [`http://127.0.0.1:${port}/`, `http://0x7f000001:${port}/`, `http://[::1]:${port}/`, `http://localhost:${port}/`]) {
    expect((await send(literal, { allowPrivate: false, resolve: rebound })).error).toStartWith("refused: ");
  }
  expect(receiver.calls).toHaveLength(0);
});

test("the connection goes to the very address the check resolved, with the name kept in the Host header", async () => {
  const receiver = startReceiver(() => ({ status: 201, body: "made" }));
  receivers.push(receiver);
  const port = new URL(receiver.url).port;
  // Only the injected resolver knows this name: reaching the receiver proves the connection used its answer.
  const resolve = tableResolver({ "receiver.internal.test": ["127.0.0.1"] });
  const result = await send(`http://receiver.internal.test:${port}/in`, { allowPrivate: true, resolve });
  expect(result).toMatchObject({ ok: true, responseStatus: 201, responseSnippet: "made", error: null });
  expect(receiver.calls[0]).toMatchObject({ method: "POST", path: "/in", headers: { host: `receiver.internal.test:${port}` } });
});

test("a receiver that does not answer in time is a failed attempt, not a hang", async () => {
  const receiver = startReceiver(() => "hang");
  receivers.push(receiver);
  const result = await postOnce(
    new URL(`${receiver.url}/slow`),
    "{}",
    {},
    { allowPrivate: true, resolve: tableResolver({}), timeoutMs: 300, signal: new AbortController().signal },
  );
  // The attempt's own words say its timeout ended it; a hang would end the test instead, at its timeout.
  expect(result).toMatchObject({ ok: false, responseStatus: null, error: expect.stringContaining("no answer within") });
});
