import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { connect } from "node:tls";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadServeConfig } from "../../src/config.ts";
import { serverLog } from "../../src/log.ts";
import { startServer } from "../../src/server.ts";
import { startAcmeServer } from "../helpers/acme.ts";
import { freePort } from "../helpers/smtp.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 90_000);

/** A TLS handshake as a client that trusts only the test CA, then one request: the certificate's serial and the answer. */
function overTls(port: number, ca: string, path: string): Promise<{ authorized: boolean; serial: string; answer: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, servername: "forms.test", ca }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: forms.test\r\nConnection: close\r\n\r\n`);
    });
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString()));
    socket.on("end", () => resolve({ authorized: socket.authorized, serial: socket.getPeerCertificate().serialNumber, answer }));
    socket.on("error", reject);
  });
}

test("--domain: a certificate from the ACME server over HTTP-01, a real TLS handshake, http redirecting, and renewal without a restart", async () => {
  const [httpsPort, httpPort] = [await freePort(), await freePort()];
  // The first certificate lives 30 seconds, so that it is due for renewal after 20; the next one 90 days.
  // Every fourth good nonce is refused, as Pebble refuses some: the client must try again.
  const acme = await startAcmeServer({ httpPort: () => httpPort, lifetimes: [30_000], refuseNonceEvery: 4 });
  const dir = mkdtempSync(join(tmpdir(), "formsvc-https-"));
  dirs.push(dir);
  const lines: string[] = [];
  const config = loadServeConfig(
    {
      host: "127.0.0.1",
      db: join(dir, "formsvc.db"),
      domains: "forms.test",
      acmeEmail: "ops@example.com",
      acmeDirectory: acme.directory,
      httpsPort: String(httpsPort),
      httpPort: String(httpPort),
      acmeCheckMs: "250",
    },
    {},
  );
  const server = await startServer(
    config,
    serverLog(
      "text",
      (line) => lines.push(line),
      (line) => lines.push(line),
    ),
  );
  try {
    expect(config.baseUrl).toBe(`https://forms.test:${httpsPort}`);
    const first = await overTls(httpsPort, acme.caPem, "/healthz");
    expect(first.authorized).toBe(true);
    expect(first.answer).toStartWith("HTTP/1.1 200");
    expect(first.answer.toLowerCase()).toContain("strict-transport-security: max-age=31536000");
    expect(first.answer).toContain('{"status":"ok"}');

    // http: the challenges, and a redirect of everything else to https.
    const plain = await fetch(`http://127.0.0.1:${httpPort}/dashboard/signin?next=x`, { headers: { host: "forms.test" }, redirect: "manual" });
    expect({ status: plain.status, location: plain.headers.get("location") }).toEqual({
      status: 308,
      location: `https://forms.test:${httpsPort}/dashboard/signin?next=x`,
    });
    // The dashboard's cookies are Secure.
    const signin = await overTls(httpsPort, acme.caPem, "/dashboard/signin");
    expect(signin.answer).toMatch(/set-cookie: formsvc_presession=\w{32}; Path=\/dashboard; HttpOnly; SameSite=Lax; Max-Age=3600; Secure/i);

    // Kept beside the database, owner-only.
    for (const name of ["account.key", "forms.test.key", "forms.test.crt"]) expect(statSync(join(dir, "acme", name)).mode & 0o777).toBe(0o600);

    // Renewed well before it expires, and put in force without a restart. A connection that arrives in the
    // instant the old listener closes may be reset (docs/deploy.md): the client tries again, as browsers do.
    const deadline = Date.now() + 40_000;
    let renewed = first;
    while (renewed.serial === first.serial && Date.now() < deadline) {
      await Bun.sleep(200);
      renewed = await overTls(httpsPort, acme.caPem, "/healthz").catch(() => renewed);
    }
    expect(acme.issued).toHaveLength(2);
    expect(acme.refusedNonces()).toBeGreaterThan(0);
    expect(renewed.serial).not.toBe(first.serial);
    expect(renewed.authorized).toBe(true);
    expect(renewed.answer).toStartWith("HTTP/1.1 200");
    expect(readFileSync(join(dir, "acme", "forms.test.crt"), "utf8")).toStartWith(acme.issued[1]!.trim());
    expect(lines.filter((line) => line.includes(`certificate for forms.test from ${acme.directory}, valid until`))).toHaveLength(2);
  } finally {
    await server.stop();
    acme.stop();
  }

  // A restart uses the stored certificate (good for 90 days) and asks the ACME server for nothing.
  const again = await startServer(
    config,
    serverLog(
      "text",
      () => undefined,
      () => undefined,
    ),
  );
  try {
    expect((await overTls(httpsPort, acme.caPem, "/healthz")).serial).toBe((await overTls(httpsPort, acme.caPem, "/healthz")).serial);
    expect(acme.issued).toHaveLength(2);
  } finally {
    await again.stop();
  }
}, 90_000);
