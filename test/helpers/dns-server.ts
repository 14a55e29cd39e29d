// A DNS server on loopback (UDP, a free port), answering TXT and MX from a table and NXDOMAIN for other
// names: what `formsvc mail doctor --dns-server` asks in the tests.
import dgram from "node:dgram";
import * as packet from "dns-packet";

/** The records of one name: TXT strings and MX exchanges by preference. */
export interface DnsRecords {
  txt?: string[];
  mx?: { preference: number; exchange: string }[];
}

export interface DnsServer {
  /** `127.0.0.1:PORT`, as --dns-server takes it. */
  address: string;
  /** The questions asked, `TYPE name`. */
  asked: string[];
  stop(): Promise<void>;
}

/** Starts the server with `zone` (names lowercased, without the trailing dot). */
export async function startDnsServer(zone: Record<string, DnsRecords>): Promise<DnsServer> {
  const socket = dgram.createSocket("udp4");
  const asked: string[] = [];
  socket.on("message", (message, peer) => {
    const query = packet.decode(message);
    const question = query.questions?.[0];
    if (!question) return;
    asked.push(`${question.type} ${question.name}`);
    const records = zone[question.name.toLowerCase()];
    const answers: packet.Answer[] = [];
    if (question.type === "TXT") for (const text of records?.txt ?? []) answers.push({ type: "TXT", name: question.name, ttl: 60, data: text });
    if (question.type === "MX") for (const mx of records?.mx ?? []) answers.push({ type: "MX", name: question.name, ttl: 60, data: mx });
    // NXDOMAIN for a name the zone lacks; NOERROR with no answer for a name without records of the type asked.
    const rcode = records ? 0 : 3;
    const reply = packet.encode({
      id: query.id,
      type: "response",
      flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | rcode,
      questions: query.questions,
      answers,
    });
    socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    asked,
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
