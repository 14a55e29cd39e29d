// `formsvc mail doctor` (docs/cli.md): what decides whether the From domain's mail lands in an inbox (SPF,
// DMARC, MX) and, for SMTP, whether this server can reach the mail server's port at all.
import { Resolver } from "node:dns/promises";
import { connect } from "node:net";
import type { ChosenTransport } from "./index.ts";

export type CheckStatus = "ok" | "warn" | "fail";

/** One line of the doctor's report. */
export interface DoctorCheck {
  name: string;
  status: CheckStatus;
  detail: string;
}

/** How long the probe waits for the SMTP port to open. */
export const PORT_PROBE_MS = 5_000;
const DNS_TIMEOUT_MS = 3_000;

/** `IP` or `IP:PORT` (`[IPv6]:PORT`) of --dns-server, as node's resolver takes it; null when it is neither. */
export function dnsServerOf(value: string): string | null {
  const found = /^(?:(\d{1,3}(?:\.\d{1,3}){3})|\[([0-9a-f:.]+)\]|([0-9a-f:]+))(?::(\d{1,5}))?$/i.exec(value);
  if (!found || (found[3] !== undefined && found[4] !== undefined)) return null;
  if (found[4] !== undefined && (Number(found[4]) < 1 || Number(found[4]) > 65535)) return null;
  return value;
}

/** The TXT records at `name`, each joined from its strings; [] when the name or the record does not exist. */
async function txt(resolver: Resolver, name: string): Promise<string[]> {
  try {
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(""));
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === "ENOTFOUND" || code === "ENODATA" || code === "NXDOMAIN";
}

/** Whether a TCP connection to host:port opens within `timeoutMs`; the reason when it does not. */
export function probePort(host: string, port: number, timeoutMs = PORT_PROBE_MS): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (reason: string | null) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(timeoutMs, () => done(`no connection within ${timeoutMs / 1000} s`));
    socket.once("connect", () => done(null));
    socket.once("error", (error) => done((error as NodeJS.ErrnoException).code ?? error.message));
  });
}

async function spfCheck(resolver: Resolver, domain: string, chosen: ChosenTransport | null): Promise<DoctorCheck> {
  const hints = chosen ? chosen.transport.doctor(chosen.config) : {};
  const at = hints.spfDomain ? hints.spfDomain(domain) : domain;
  const records = (await txt(resolver, at)).filter((record) => /^v=spf1(\s|$)/i.test(record));
  const include = hints.spfInclude;
  if (records.length === 0) {
    const wanted = include ? `"v=spf1 ${include} ~all"` : '"v=spf1 mx ~all" naming the servers that send your mail';
    return { name: "spf", status: "fail", detail: `${at} has no SPF record: add a TXT record ${wanted}` };
  }
  if (records.length > 1)
    return { name: "spf", status: "fail", detail: `${at} has ${records.length} SPF records: receivers ignore all of them; merge them into one` };
  const record = records[0]!;
  if (include && !record.toLowerCase().split(/\s+/).includes(include)) {
    return { name: "spf", status: "warn", detail: `${at}'s SPF record "${record}" does not name ${chosen!.transport.label}: add ${include}` };
  }
  return { name: "spf", status: "ok", detail: `${at}: ${record}` };
}

async function dmarcCheck(resolver: Resolver, domain: string): Promise<DoctorCheck> {
  const record = (await txt(resolver, `_dmarc.${domain}`)).find((r) => /^v=DMARC1(;|\s|$)/i.test(r));
  if (!record)
    return { name: "dmarc", status: "fail", detail: `_dmarc.${domain} has no DMARC record: add a TXT record "v=DMARC1; p=none; rua=mailto:you@${domain}"` };
  return { name: "dmarc", status: "ok", detail: `_dmarc.${domain}: ${record}` };
}

async function mxCheck(resolver: Resolver, domain: string): Promise<DoctorCheck> {
  let exchanges: { exchange: string; priority: number }[] = [];
  try {
    exchanges = await resolver.resolveMx(domain);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  if (exchanges.length === 0)
    return { name: "mx", status: "warn", detail: `${domain} has no MX record: replies to your mail cannot reach it, and some receivers refuse such a From` };
  const names = exchanges.sort((a, b) => a.priority - b.priority).map((mx) => mx.exchange);
  return { name: "mx", status: "ok", detail: `${domain}: ${names.join(", ")}` };
}

/** A DNS check, or a fail saying the resolver could not be asked. */
async function guarded(name: string, check: () => Promise<DoctorCheck>): Promise<DoctorCheck> {
  try {
    return await check();
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).message;
    return { name, status: "fail", detail: `the DNS server could not be asked (${code}): check --dns-server or this machine's resolver` };
  }
}

/** Every check for the From's domain and the chosen transport (null: mail is off), in the order they are printed. */
export async function mailDoctor(options: { from: string; chosen: ChosenTransport | null; dnsServer?: string | null }): Promise<DoctorCheck[]> {
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 2 });
  if (options.dnsServer) resolver.setServers([options.dnsServer]);
  const domain = options.from.slice(options.from.lastIndexOf("@") + 1).toLowerCase();
  const { chosen } = options;
  const checks: DoctorCheck[] = [
    chosen
      ? { name: "transport", status: "ok", detail: `mail goes through ${chosen.shown}, from ${options.from}` }
      : { name: "transport", status: "warn", detail: "mail is off: give --mail-url (FORMSVC_MAIL_URL) to check its provider too (docs/deploy.md)" },
  ];
  checks.push(
    ...(await Promise.all([
      guarded("spf", () => spfCheck(resolver, domain, chosen)),
      guarded("dmarc", () => dmarcCheck(resolver, domain)),
      guarded("mx", () => mxCheck(resolver, domain)),
    ])),
  );
  const port = chosen?.transport.doctor(chosen.config).port;
  if (port) {
    const reason = await probePort(port.host, port.port);
    checks.push(
      reason === null
        ? { name: "smtp", status: "ok", detail: `${port.host} port ${port.port} answers from this server` }
        : {
            name: "smtp",
            status: "fail",
            detail: `port ${port.port} cannot be reached from this server: many VPS providers block outgoing SMTP; use an HTTP transport (--mail-url postmark://…) (${port.host}: ${reason})`,
          },
    );
  }
  return checks;
}
