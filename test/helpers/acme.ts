import { createHash, createPublicKey, verify, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

// A small ACME server (RFC 8555) on loopback with a test CA made here: directory, nonces, accounts, orders,
// authorizations, HTTP-01 validated by fetching the challenge from the client's http port, finalize with a
// CSR, certificate download. Every POST is a JWS checked against its nonce, its URL and the account's key.

x509.cryptoProvider.set(webcrypto as unknown as Crypto);
const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
type Jwk = { kty?: string; crv?: string; x?: string; y?: string; e?: string; n?: string };

export interface AcmeServer {
  url: string;
  /** The directory URL to give the client. */
  directory: string;
  /** The test CA's certificate (PEM): what a client that trusts it is given. */
  caPem: string;
  /** The certificates issued, in order (PEM of the leaf). */
  issued: string[];
  /** How many good nonces were refused on purpose (refuseNonceEvery). */
  refusedNonces(): number;
  stop(): void;
}

const b64u = (data: Uint8Array | string) => Buffer.from(data).toString("base64url");
const fromB64u = (text: string) => Buffer.from(text, "base64url");

/** RFC 7638 thumbprint of a JWK. */
function thumbprint(jwk: Jwk): string {
  const members = jwk.kty === "EC" ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : { e: jwk.e, kty: jwk.kty, n: jwk.n };
  return b64u(createHash("sha256").update(JSON.stringify(members)).digest());
}

interface Order {
  status: string;
  identifiers: { type: string; value: string }[];
  authorizations: string[];
  certificate?: string;
}

/**
 * Starts the server. `validate` reaches the http port of the host being validated (loopback, with the
 * domain in the Host header); `lifetimes[i]` is how long the i-th certificate is valid (ms; 90 days after).
 * `refuseNonceEvery: n` refuses every n-th good nonce with badNonce, as Pebble refuses a share of them on
 * purpose (RFC 8555 §6.5: the client tries again with the nonce of the refusal).
 */
export async function startAcmeServer(options: { httpPort: () => number; lifetimes?: number[]; refuseNonceEvery?: number }): Promise<AcmeServer> {
  const caKeys = (await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: "CN=formsvc test CA",
    notBefore: new Date(Date.now() - 3_600_000),
    notAfter: new Date(Date.now() + 86_400_000),
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  const nonces = new Set<string>();
  const accounts = new Map<string, Jwk>();
  const orders = new Map<string, Order>();
  const authzs = new Map<string, { status: string; domain: string; token: string; order: string }>();
  const certs = new Map<string, string>();
  const issued: string[] = [];
  let next = 0;
  const id = () => String(++next);
  let signedRequests = 0;
  let refusedNonces = 0;

  let base = "";
  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request): Promise<Response> {
      const url = new URL(request.url);
      const nonce = b64u(webcrypto.getRandomValues(new Uint8Array(16)));
      nonces.add(nonce);
      const headers = { "replay-nonce": nonce, "cache-control": "no-store" };
      const answer = (status: number, body: unknown, extra: Record<string, string> = {}) => Response.json(body, { status, headers: { ...headers, ...extra } });
      const problem = (status: number, type: string, detail: string) =>
        Response.json({ type: `urn:ietf:params:acme:error:${type}`, detail }, { status, headers: { ...headers, "content-type": "application/problem+json" } });
      if (url.pathname === "/directory") {
        return answer(200, {
          newNonce: `${base}/new-nonce`,
          newAccount: `${base}/new-account`,
          newOrder: `${base}/new-order`,
          revokeCert: `${base}/revoke-cert`,
          keyChange: `${base}/key-change`,
          meta: { termsOfService: `${base}/terms` },
        });
      }
      if (url.pathname === "/new-nonce") return new Response(null, { status: request.method === "HEAD" ? 200 : 204, headers });
      if (request.method !== "POST") return problem(405, "malformed", "POST only");

      // The JWS: its nonce used once, its URL this one, its signature the account's (or the new account's own key).
      const jws = (await request.json()) as { protected: string; payload: string; signature: string };
      const header = JSON.parse(fromB64u(jws.protected).toString()) as { alg: string; nonce: string; url: string; jwk?: Jwk; kid?: string };
      if (!nonces.delete(header.nonce)) return problem(400, "badNonce", "unknown or used nonce");
      if (options.refuseNonceEvery && ++signedRequests % options.refuseNonceEvery === 0) {
        refusedNonces++;
        return problem(400, "badNonce", "refused on purpose, as Pebble does");
      }
      if (header.url !== `${base}${url.pathname}`) return problem(401, "unauthorized", "url does not match");
      const jwk = header.jwk ?? accounts.get(header.kid ?? "");
      if (!jwk || (url.pathname === "/new-account") !== Boolean(header.jwk)) return problem(401, "accountDoesNotExist", "no such account");
      const signed = Buffer.from(`${jws.protected}.${jws.payload}`);
      const key = createPublicKey({ key: jwk, format: "jwk" } as Parameters<typeof createPublicKey>[0]);
      const good =
        header.alg === "ES256"
          ? verify("sha256", signed, { key, dsaEncoding: "ieee-p1363" }, fromB64u(jws.signature))
          : header.alg === "RS256" && verify("sha256", signed, key, fromB64u(jws.signature));
      if (!good) return problem(401, "unauthorized", "bad signature");
      const payload = jws.payload === "" ? null : JSON.parse(fromB64u(jws.payload).toString());
      const [, kind, ref, action] = url.pathname.split("/");

      if (kind === "new-account") {
        const kid = `${base}/account/${id()}`;
        accounts.set(kid, jwk);
        return answer(201, { status: "valid", contact: payload?.contact ?? [], orders: `${kid}/orders` }, { location: kid });
      }
      if (kind === "new-order") {
        const orderId = id();
        const authorizations = (payload.identifiers as { value: string }[]).map((identifier) => {
          const authzId = id();
          authzs.set(authzId, { status: "pending", domain: identifier.value, token: b64u(webcrypto.getRandomValues(new Uint8Array(24))), order: orderId });
          return `${base}/authz/${authzId}`;
        });
        orders.set(orderId, { status: "pending", identifiers: payload.identifiers, authorizations });
        return answer(201, { ...orders.get(orderId), finalize: `${base}/order/${orderId}/finalize` }, { location: `${base}/order/${orderId}` });
      }
      const authzView = (authzId: string) => {
        const authz = authzs.get(authzId)!;
        return {
          status: authz.status,
          identifier: { type: "dns", value: authz.domain },
          challenges: [{ type: "http-01", url: `${base}/challenge/${authzId}`, token: authz.token, status: authz.status }],
        };
      };
      if (kind === "authz" && authzs.has(ref!)) return answer(200, authzView(ref!));
      if (kind === "challenge" && authzs.has(ref!)) {
        const authz = authzs.get(ref!)!;
        // HTTP-01: the key authorization must be served at the well-known path of the domain's http port.
        const fetched = await fetch(`http://127.0.0.1:${options.httpPort()}/.well-known/acme-challenge/${authz.token}`, {
          headers: { host: authz.domain },
          redirect: "manual",
        }).catch(() => null);
        const body = fetched?.status === 200 ? (await fetched.text()).trim() : null;
        authz.status = body === `${authz.token}.${thumbprint(jwk)}` ? "valid" : "invalid";
        const order = orders.get(authz.order)!;
        if (order.authorizations.every((a) => authzs.get(a.split("/").at(-1)!)!.status === "valid")) order.status = "ready";
        return answer(200, authzView(ref!).challenges[0], { link: `<${base}/authz/${ref}>;rel="up"` });
      }
      if (kind === "order" && orders.has(ref!)) {
        const order = orders.get(ref!)!;
        const view = () => answer(200, { ...order, finalize: `${base}/order/${ref}/finalize` }, { location: `${base}/order/${ref}` });
        if (action !== "finalize") return view();
        if (order.status !== "ready") return problem(403, "orderNotReady", "authorizations are not valid");
        const csr = new x509.Pkcs10CertificateRequest(fromB64u(payload.csr));
        if (!(await csr.verify())) return problem(400, "badCSR", "the CSR's signature does not verify");
        const san = csr.getExtension("2.5.29.17") as x509.SubjectAlternativeNameExtension | null;
        const names = (san?.names.toJSON() ?? []).map((name: { value: string }) => name.value).sort();
        if (JSON.stringify(names) !== JSON.stringify(order.identifiers.map((i) => i.value).sort())) return problem(400, "badCSR", "names differ");
        const lifetime = options.lifetimes?.[issued.length] ?? 90 * 86_400_000;
        const leaf = await x509.X509CertificateGenerator.create({
          serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(8)))
            .toString("hex")
            .replace(/^[89a-f]/, "1"),
          subject: `CN=${names[0]}`,
          issuer: ca.subject,
          notBefore: new Date(Date.now() - 1000),
          notAfter: new Date(Date.now() - 1000 + lifetime),
          publicKey: await csr.publicKey.export(ALG, ["verify"]),
          signingKey: caKeys.privateKey,
          signingAlgorithm: ALG,
          extensions: [
            new x509.SubjectAlternativeNameExtension(names.map((value: string) => ({ type: "dns" as const, value }))),
            new x509.BasicConstraintsExtension(false),
            new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          ],
        });
        const certId = id();
        certs.set(certId, `${leaf.toString("pem")}\n${ca.toString("pem")}\n`);
        issued.push(leaf.toString("pem"));
        order.status = "valid";
        order.certificate = `${base}/cert/${certId}`;
        return view();
      }
      if (kind === "cert" && certs.has(ref!))
        return new Response(certs.get(ref!), { headers: { ...headers, "content-type": "application/pem-certificate-chain" } });
      return problem(404, "malformed", "not found");
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  base = url;
  return { url, directory: `${url}/directory`, caPem: ca.toString("pem"), issued, refusedNonces: () => refusedNonces, stop: () => server.stop(true) };
}
