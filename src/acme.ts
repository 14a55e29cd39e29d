// HTTPS by itself (`serve --domain D`): a certificate from an ACME server (Let's Encrypt by default), got with
// acme-client over HTTP-01 on the http port, kept beside the database, and renewed well before it expires.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface AcmeSettings {
  domains: string[];
  email: string | null;
  directoryUrl: string;
  /** The folder the account key, the certificate and its key are kept in (owner-only). */
  dir: string;
}

/** A certificate chain and its private key, as PEM, with its validity. */
export interface Certificate {
  cert: string;
  key: string;
  notBefore: number;
  notAfter: number;
}

/** The answers to HTTP-01 challenges under way: token → key authorization. */
export type ChallengeAnswers = Map<string, string>;

const PATH = "/.well-known/acme-challenge/";

const files = (settings: AcmeSettings) => ({
  account: join(settings.dir, "account.key"),
  cert: join(settings.dir, `${settings.domains[0]}.crt`),
  key: join(settings.dir, `${settings.domains[0]}.key`),
});

/** Writes a file only its owner may read. */
function writePrivate(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** True when less than a third of the certificate's lifetime is left (30 days of Let's Encrypt's 90). */
export const needsRenewal = (certificate: Certificate, now = Date.now()) => certificate.notAfter - now < (certificate.notAfter - certificate.notBefore) / 3;

/** The certificate kept for these domains, or null when there is none or it does not name them all. */
export async function storedCertificate(settings: AcmeSettings): Promise<Certificate | null> {
  const paths = files(settings);
  if (!existsSync(paths.cert) || !existsSync(paths.key)) return null;
  const { crypto } = await import("acme-client");
  const cert = readFileSync(paths.cert, "utf8");
  const info = crypto.readCertificateInfo(cert);
  const named = new Set([info.domains.commonName, ...info.domains.altNames]);
  if (!settings.domains.every((domain) => named.has(domain))) return null;
  return { cert, key: readFileSync(paths.key, "utf8"), notBefore: info.notBefore.getTime(), notAfter: info.notAfter.getTime() };
}

/**
 * Gets a certificate for the domains: an account (made once, its key kept), an order, each domain's HTTP-01
 * challenge answered by the http listener from `answers`, a new key and CSR, the certificate; stored owner-only.
 */
export async function obtainCertificate(settings: AcmeSettings, answers: ChallengeAnswers): Promise<Certificate> {
  const { Client, crypto } = await import("acme-client");
  mkdirSync(settings.dir, { recursive: true, mode: 0o700 });
  const paths = files(settings);
  if (!existsSync(paths.account)) writePrivate(paths.account, (await crypto.createPrivateEcdsaKey()).toString());
  const client = new Client({ directoryUrl: settings.directoryUrl, accountKey: readFileSync(paths.account, "utf8") });
  const key = (await crypto.createPrivateEcdsaKey()).toString();
  const [, csr] = await crypto.createCsr({ commonName: settings.domains[0], altNames: settings.domains }, key);
  const cert = await client.auto({
    csr,
    email: settings.email ?? undefined,
    termsOfServiceAgreed: true,
    challengePriority: ["http-01"],
    // The ACME server checks the challenge itself; this machine may not reach its own public address.
    skipChallengeVerification: true,
    challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
      answers.set(challenge.token, keyAuthorization);
    },
    challengeRemoveFn: async (_authz, challenge) => {
      answers.delete(challenge.token);
    },
  });
  writePrivate(paths.key, key);
  writePrivate(paths.cert, cert);
  const info = crypto.readCertificateInfo(cert);
  return { cert, key, notBefore: info.notBefore.getTime(), notAfter: info.notAfter.getTime() };
}

/**
 * The http listener's answer: a challenge's key authorization, or a permanent redirect of anything else to
 * the same path over https (on `httpsPort` when it is not 443).
 */
export function httpListener(answers: ChallengeAnswers, httpsPort: number) {
  return (request: Request): Response => {
    const url = new URL(request.url);
    if (url.pathname.startsWith(PATH)) {
      const answer = answers.get(url.pathname.slice(PATH.length));
      return answer ? new Response(answer, { headers: { "content-type": "text/plain" } }) : new Response("not found", { status: 404 });
    }
    url.protocol = "https:";
    url.port = httpsPort === 443 ? "" : String(httpsPort);
    return new Response(null, { status: 308, headers: { location: url.href } });
  };
}

export interface HttpsOptions {
  settings: AcmeSettings;
  host: string;
  httpPort: number;
  httpsPort: number;
  /** How often the certificate's expiry is looked at (12 hours; tests shorten it). */
  checkMs: number;
  log: { line(text: string): void; error(message: string, error: unknown): void };
}

type Server = ReturnType<typeof Bun.serve>;

/**
 * Serves HTTPS with a certificate it gets and renews by itself: the http listener (challenges, and redirects to
 * https) starts first; `listen` binds the https listener with a certificate. A renewed certificate is put in
 * force without a restart: a second https listener takes the port (SO_REUSEPORT) and the first one stops after
 * the requests it has under way.
 */
export async function startHttps(options: HttpsOptions, listen: (tls: { cert: string; key: string }) => Server) {
  const { settings, log } = options;
  const answers: ChallengeAnswers = new Map();
  const http = Bun.serve({ hostname: options.host, port: options.httpPort, fetch: httpListener(answers, options.httpsPort) });
  const obtain = async () => {
    const got = await obtainCertificate(settings, answers);
    log.line(`certificate for ${settings.domains.join(", ")} from ${settings.directoryUrl}, valid until ${new Date(got.notAfter).toISOString()}`);
    return got;
  };
  let certificate: Certificate;
  let server: Server;
  try {
    const stored = await storedCertificate(settings);
    certificate = stored && !needsRenewal(stored) ? stored : await obtain();
    server = listen(certificate);
  } catch (error) {
    await http.stop(true);
    throw error;
  }
  let renewing: Promise<void> | null = null;
  const renew = async () => {
    if (!needsRenewal(certificate)) return;
    try {
      const next = await obtain();
      const previous = server;
      server = listen(next);
      certificate = next;
      await previous.stop();
    } catch (error) {
      log.error("certificate renewal failed; it is tried again at the next check", error);
    }
  };
  const timer = setInterval(() => {
    renewing ??= renew().finally(() => {
      renewing = null;
    });
  }, options.checkMs);
  return {
    /** The https listener in force. */
    server: () => server,
    /** The http listener (challenges and redirects). */
    http,
    /** When the certificate in force expires (ms). */
    expires: () => certificate.notAfter,
    async stop(): Promise<void> {
      clearInterval(timer);
      await renewing;
      await server.stop();
      await http.stop();
    },
  };
}
