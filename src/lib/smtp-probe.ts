/**
 * Whether the server of `smtpUrl` offers SMTPUTF8 (RFC 6531): one short conversation, as the sender has it
 * (TLS for smtps://, STARTTLS when offered), that reads the server's answer to EHLO and quits without logging in.
 */
export async function offersSmtpUtf8(smtpUrl: string, timeoutMs: number): Promise<boolean> {
  // Loaded here, not at the top: a server without mail, or whose mail never needs it, never loads nodemailer for it.
  const [{ default: SMTPConnection }, { parseConnectionUrl }] = await Promise.all([import("nodemailer/lib/smtp-connection"), import("nodemailer/lib/shared")]);
  const { host, port, secure, tls } = parseConnectionUrl(smtpUrl);
  const connection = new SMTPConnection({ host, port, secure, tls, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
  try {
    await new Promise<void>((resolve, reject) => {
      connection.once("error", reject);
      connection.connect(() => resolve());
    });
    // Once connected, the last answer is the one to EHLO (the one after STARTTLS when the server offered that).
    const ehlo = connection.lastServerResponse || "";
    return /^250[ -]SMTPUTF8\b/im.test(ehlo);
  } finally {
    // An error while quitting (the server hung up first) is of no interest: the answer is known.
    connection.on("error", () => {});
    connection.quit();
  }
}
