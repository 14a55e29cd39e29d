import { afterAll, beforeAll, describe, test } from "bun:test";
import { BASE } from "../helpers/app.ts";
import { chunked, publicFixture, runScenario, type PublicFixture, type Scenario } from "./public-support.ts";

// The body limit is small here so that "too large" costs nothing to send.
const MAX_BODY = 2048;
const THANKS = `${BASE}/thanks`;
const JSON_ACCEPT = { accept: "application/json" };
const URLENCODED = { "content-type": "application/x-www-form-urlencoded" };

let fx: PublicFixture;
beforeAll(async () => {
  fx = await publicFixture({ maxBody: MAX_BODY });
});
afterAll(() => fx.close());

function multipart(entries: [string, string | Blob, string?][]): FormData {
  const form = new FormData();
  for (const [name, value, filename] of entries) {
    if (typeof value === "string") form.append(name, value);
    else form.append(name, value, filename);
  }
  return form;
}

const ALL_SPECIAL = {
  _next: "https://example.com/sent",
  _subject: "New lead",
  _replyto: "ann@example.com",
  _gotcha: "",
  "g-recaptcha-response": "token-1",
  "h-captcha-response": "token-2",
  "cf-turnstile-response": "token-3",
};

const BODIES: Scenario[] = [
  {
    name: "a urlencoded form post is stored and the browser is sent to the thank-you page",
    request: { body: new URLSearchParams({ name: "Ann", email: "ann@example.com" }) },
    status: 303,
    location: THANKS,
    stored: { data: { name: "Ann", email: "ann@example.com" } },
  },
  {
    name: "/api/f/{slug} is the same endpoint as /f/{slug}",
    request: { path: "/api/f", body: new URLSearchParams({ name: "Ann" }) },
    status: 303,
    location: THANKS,
    stored: { data: { name: "Ann" } },
  },
  {
    name: "urlencoded: a checkbox group (a key sent several times) becomes an array, in order",
    request: { body: "topic=sales&name=Ann&topic=support&topic=billing", headers: URLENCODED },
    status: 303,
    location: THANKS,
    stored: { data: { topic: ["sales", "support", "billing"], name: "Ann" } },
  },
  {
    name: "urlencoded: + and percent escapes decode to the text that was typed",
    request: { body: "message=hello+world%21&city=Z%C3%BCrich&empty=", headers: { "content-type": "application/x-www-form-urlencoded; charset=UTF-8" } },
    status: 303,
    location: THANKS,
    stored: { data: { message: "hello world!", city: "Zürich", empty: "" } },
  },
  {
    name: "multipart: fields are stored and a repeated key becomes an array",
    request: () => ({
      body: multipart([
        ["name", "Ann"],
        ["topic", "sales"],
        ["topic", "support"],
      ]),
    }),
    status: 303,
    location: THANKS,
    stored: { data: { name: "Ann", topic: ["sales", "support"] } },
  },
  {
    name: "multipart: a file to a form without fileUploads is 400 files_not_accepted, naming the field",
    request: () => ({
      headers: JSON_ACCEPT,
      body: multipart([
        ["name", "Ann"],
        ["cv", new Blob(["hello"], { type: "text/plain" }), "cv.txt"],
      ]),
    }),
    status: 400,
    error: { code: "files_not_accepted", field: "cv" },
  },
  {
    name: "multipart: a file to a form without fileUploads, from a browser, is the 400 page",
    request: () => ({
      body: multipart([
        ["name", "Ann"],
        ["cv", new Blob(["hello"], { type: "text/plain" }), "cv.txt"],
      ]),
    }),
    status: 400,
    error: { code: "files_not_accepted", html: true },
  },
  {
    name: "multipart: a file input left empty is no file: stored as an empty value, even without fileUploads",
    request: () => ({
      body: multipart([
        ["name", "Ann"],
        ["cv", new Blob([], { type: "application/octet-stream" }), ""],
      ]),
    }),
    status: 303,
    location: THANKS,
    stored: { data: { name: "Ann", cv: "" } },
  },
  {
    name: "JSON: values are kept as sent (numbers, booleans, null, arrays, objects)",
    request: { headers: JSON_ACCEPT, body: { name: "Ann", age: 41, subscribe: true, phone: null, tags: ["a", 2], address: { city: "Oslo", zip: "0150" } } },
    status: 200,
    stored: { data: { name: "Ann", age: 41, subscribe: true, phone: null, tags: ["a", 2], address: { city: "Oslo", zip: "0150" } } },
  },
  {
    name: "JSON: a charset parameter on the content type is accepted",
    request: { headers: { ...JSON_ACCEPT, "content-type": "Application/JSON; charset=utf-8" }, body: { name: "Ann" } },
    status: 200,
    stored: { data: { name: "Ann" } },
  },
  {
    name: "field names that are also JavaScript prototype names are kept as fields (JSON)",
    request: { headers: { ...JSON_ACCEPT, "content-type": "application/json" }, body: '{"__proto__":{"admin":true},"constructor":"x","name":"Ann"}' },
    status: 200,
    stored: { data: JSON.parse('{"__proto__":{"admin":true},"constructor":"x","name":"Ann"}') },
  },
  {
    name: "field names that are also JavaScript prototype names are kept as fields (urlencoded)",
    request: { headers: URLENCODED, body: "__proto__=x&toString=y" },
    status: 303,
    location: THANKS,
    stored: { data: JSON.parse('{"__proto__":"x","toString":"y"}') },
  },
  {
    name: "urlencoded: every special field is removed before storing, and _next steers the redirect",
    request: { body: new URLSearchParams({ ...ALL_SPECIAL, message: "hi" }) },
    status: 303,
    location: "https://example.com/sent",
    stored: { data: { message: "hi" } },
  },
  {
    name: "JSON: every special field is removed before storing",
    request: { headers: JSON_ACCEPT, body: { ...ALL_SPECIAL, message: "hi" } },
    status: 200,
    stored: { data: { message: "hi" } },
  },
  {
    name: "multipart: every special field is removed before storing",
    request: () => ({ body: multipart([...Object.entries(ALL_SPECIAL).map(([k, v]) => [k, v] as [string, string]), ["message", "hi"]]) }),
    status: 303,
    location: "https://example.com/sent",
    stored: { data: { message: "hi" } },
  },
  {
    name: "nothing left after the special fields is 400 empty_submission",
    request: { headers: JSON_ACCEPT, body: { _subject: "x", "g-recaptcha-response": "t" } },
    status: 400,
    error: { code: "empty_submission" },
  },
  {
    name: "an empty urlencoded body is 400 empty_submission, as a page for the browser",
    request: { headers: URLENCODED, body: "" },
    status: 400,
    error: { code: "empty_submission", html: true },
  },
  { name: "an empty JSON object is 400 empty_submission", request: { headers: JSON_ACCEPT, body: {} }, status: 400, error: { code: "empty_submission" } },
  { name: "a JSON array is 400 invalid_body", request: { headers: JSON_ACCEPT, body: [{ name: "Ann" }] }, status: 400, error: { code: "invalid_body" } },
  {
    name: "a JSON string is 400 invalid_body",
    request: { headers: { ...JSON_ACCEPT, "content-type": "application/json" }, body: '"name=Ann"' },
    status: 400,
    error: { code: "invalid_body" },
  },
  {
    name: "JSON null is 400 invalid_body",
    request: { headers: { ...JSON_ACCEPT, "content-type": "application/json" }, body: "null" },
    status: 400,
    error: { code: "invalid_body" },
  },
  {
    name: "malformed JSON is 400 invalid_json",
    request: { headers: { ...JSON_ACCEPT, "content-type": "application/json" }, body: '{"name": "Ann",' },
    status: 400,
    error: { code: "invalid_json" },
  },
  {
    name: "an empty body declared as JSON is 400 invalid_json",
    request: { headers: { ...JSON_ACCEPT, "content-type": "application/json" }, body: "" },
    status: 400,
    error: { code: "invalid_json" },
  },
  {
    name: "text/plain is 415 unsupported_media_type",
    request: { headers: { ...JSON_ACCEPT, "content-type": "text/plain" }, body: "name=Ann" },
    status: 415,
    error: { code: "unsupported_media_type" },
  },
  {
    name: "a body without a content type is 415",
    request: { headers: JSON_ACCEPT, body: new Uint8Array([110, 61, 49]) },
    status: 415,
    error: { code: "unsupported_media_type" },
  },
  {
    name: "XML is 415, as a page for the browser",
    request: { headers: { "content-type": "application/xml" }, body: "<name>Ann</name>" },
    status: 415,
    error: { code: "unsupported_media_type", html: true },
  },
  {
    name: "multipart without its boundary is 400 invalid_body",
    request: { headers: { ...JSON_ACCEPT, "content-type": "multipart/form-data" }, body: "name=Ann" },
    status: 400,
    error: { code: "invalid_body" },
  },
  {
    name: "a body of exactly --max-body bytes is accepted",
    request: { headers: URLENCODED, body: `note=${"x".repeat(MAX_BODY - 5)}` },
    status: 303,
    location: THANKS,
    stored: { data: { note: "x".repeat(MAX_BODY - 5) } },
  },
  {
    name: "a body over --max-body with a Content-Length is 413 payload_too_large",
    request: { headers: { ...JSON_ACCEPT, ...URLENCODED }, body: `note=${"x".repeat(MAX_BODY)}` },
    status: 413,
    error: { code: "payload_too_large" },
  },
  {
    name: "a chunked body over --max-body (no Content-Length) is 413",
    request: () => ({ headers: { ...JSON_ACCEPT, "content-type": "application/json" }, body: chunked(JSON.stringify({ note: "x".repeat(MAX_BODY) })) }),
    status: 413,
    error: { code: "payload_too_large" },
  },
  {
    name: "a chunked body under the limit is read whole",
    request: () => ({ headers: { ...JSON_ACCEPT, "content-type": "application/json" }, body: chunked(JSON.stringify({ note: "y".repeat(1000) })) }),
    status: 200,
    stored: { data: { note: "y".repeat(1000) } },
  },
  {
    name: "a too-large multipart body is 413, as a page for the browser",
    request: () => ({ body: multipart([["note", "z".repeat(MAX_BODY)]]) }),
    status: 413,
    error: { code: "payload_too_large", html: true },
  },
  {
    name: "size is checked before the type: a too-large body of an unsupported type is 413",
    request: { headers: { ...JSON_ACCEPT, "content-type": "text/plain" }, body: "x".repeat(MAX_BODY + 1) },
    status: 413,
    error: { code: "payload_too_large" },
  },
  {
    name: "size is checked before parsing: a too-large chunked body of malformed JSON is 413",
    request: () => ({ headers: { ...JSON_ACCEPT, "content-type": "application/json" }, body: chunked(`{${"x".repeat(MAX_BODY)}`) }),
    status: 413,
    error: { code: "payload_too_large" },
  },
];

const HONEYPOT: Scenario[] = [
  {
    name: "a filled _gotcha gets exactly the success redirect, and is stored as spam",
    request: { body: new URLSearchParams({ name: "Bot", _gotcha: "http://spam.example" }) },
    status: 303,
    location: THANKS,
    stored: { data: { name: "Bot" }, isSpam: true },
  },
  {
    name: "a filled _gotcha gets exactly the JSON success, and is stored as spam",
    request: { headers: JSON_ACCEPT, body: { name: "Bot", _gotcha: "filled" } },
    status: 200,
    stored: { data: { name: "Bot" }, isSpam: true },
  },
  {
    name: "a filled _gotcha with _next goes to _next like a person would",
    form: { redirectUrl: "https://example.com/form-thanks" },
    request: { body: new URLSearchParams({ name: "Bot", _gotcha: "x", _next: "https://example.com/next" }) },
    status: 303,
    location: "https://example.com/next",
    stored: { data: { name: "Bot" }, isSpam: true },
  },
  {
    name: "an empty _gotcha is a person: not spam",
    request: { body: new URLSearchParams({ name: "Ann", _gotcha: "" }) },
    status: 303,
    location: THANKS,
    stored: { data: { name: "Ann" } },
  },
];

describe("public submission bodies", () => {
  for (const scenario of BODIES) test(scenario.name, () => runScenario(fx, scenario));
});

describe("the _gotcha honeypot", () => {
  for (const scenario of HONEYPOT) test(scenario.name, () => runScenario(fx, scenario));
});
