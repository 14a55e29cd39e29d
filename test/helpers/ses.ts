// A stand-in for Amazon SES v2 SendEmail that checks the request as AWS does: the Signature Version 4 of
// every request recomputed here with the secret (not with the library the sender signs with), the scope's
// region and service, the signed host, the body's hash, and the SendEmail fields; errors in SES's shape
// (x-amzn-ErrorType and {message}).
import { createHash, createHmac } from "node:crypto";
import { standIn, type ProviderStandIn } from "./mail-providers.ts";

const hmac = (key: string | Buffer, text: string) => createHmac("sha256", key).update(text).digest();
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Why the signature of `request` is not AWS's for this key, or null when it is. */
function signatureProblem(request: Request, body: string, keyId: string, secret: string, region: string): string | null {
  const auth = request.headers.get("authorization") ?? "";
  const found = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!found) return "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters.";
  const [, givenKey, day, givenRegion, service, signedHeaders, signature] = found;
  if (givenKey !== keyId) return "The security token included in the request is invalid.";
  if (givenRegion !== region || service !== "ses") return `Credential should be scoped to a valid region and service: ${region}/ses.`;
  const amzDate = request.headers.get("x-amz-date") ?? "";
  if (!amzDate.startsWith(day!)) return "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP.";
  const names = signedHeaders!.split(";");
  if (!names.includes("host") || !names.includes("x-amz-date")) return "'Host' or 'x-amz-date' must be a signed header.";
  const url = new URL(request.url);
  const headerValue = (name: string) => (name === "host" ? url.host : (request.headers.get(name) ?? "").trim().replace(/\s+/g, " "));
  const canonical = ["POST", url.pathname, url.search.slice(1), ...names.map((name) => `${name}:${headerValue(name)}`), "", signedHeaders, sha256(body)].join(
    "\n",
  );
  const scope = `${day}/${region}/ses/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonical)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day!), region), "ses"), "aws4_request");
  const expected = hmac(key, toSign).toString("hex");
  return expected === signature
    ? null
    : "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.";
}

/** SES v2 on /v2/email/outbound-emails for this key, in `region`. */
export function sesStandIn(keyId: string, secret: string, region: string): ProviderStandIn {
  const error = (status: number, type: string, message: string) => ({
    status,
    body: { message },
    headers: { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazonaws.sailhollywood.v2/` },
  });
  return standIn(
    "/v2/email/outbound-emails",
    (request, body) => {
      const problem = signatureProblem(request, body, keyId, secret, region);
      if (problem) return error(403, problem.startsWith("The security token") ? "UnrecognizedClientException" : "SignatureDoesNotMatch", problem);
      let json: Record<string, any>;
      try {
        json = JSON.parse(body);
      } catch {
        return error(400, "SerializationException", "Unable to parse the request body.");
      }
      const to = json?.Destination?.ToAddresses;
      const simple = json?.Content?.Simple;
      if (typeof json?.FromEmailAddress !== "string") return error(400, "BadRequestException", "Missing required field FromEmailAddress");
      if (!Array.isArray(to) || to.length === 0) return error(400, "BadRequestException", "Missing final '@domain'");
      if (typeof simple?.Subject?.Data !== "string" || typeof simple?.Body?.Text?.Data !== "string")
        return error(400, "BadRequestException", "Missing required field Content");
      return { from: json.FromEmailAddress, to, subject: simple.Subject.Data, text: simple.Body.Text.Data, replyTo: json.ReplyToAddresses?.[0] ?? null };
    },
    (_mail, n) => ({ status: 200, body: { MessageId: `010001878e2b3c4d-${String(n).padStart(8, "0")}-000000` } }),
    (status) => ({ message: status === 404 ? "Not Found" : "Internal Failure" }),
  );
}
