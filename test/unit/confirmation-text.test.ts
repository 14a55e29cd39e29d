import { expect, test } from "bun:test";
import { recipientOf, renderConfirmation } from "../../src/lib/confirmation-text.ts";
import { defang, ownerText } from "../../src/lib/defang.ts";

// What a visitor's values become in the owner's confirmation email: text, cut, and never a link or an address.

test.each([
  ["https://example.com/win?x=1", "hxxps://example[.]com/win?x=1"],
  ["HTTP://EVIL.EXAMPLE", "HXXP://EVIL[.]EXAMPLE"],
  ["ann@example.com", "ann[@]example[.]com"],
  ["mailto:ann@example.com", "mailto[:]ann[@]example[.]com"],
  ["write to support[@]evil.example/reset", "write to support[[@]]evil[.]example/reset"],
  ["see 203.0.113.7/reset or 10.0.0.1", "see 203[.]0[.]113[.]7/reset or 10[.]0[.]0[.]1"],
  ["evil\u2024example/reset", "evil[.]example/reset"],
  ["evil\ufe52example", "evil[.]example"],
  ["javascript:alert(1)", "javascript[:]alert(1)"],
  ["ftp://files.example.org/a", "ftp[:]//files[.]example[.]org/a"],
  ["see www.evil.example now", "see www[.]evil[.]example now"],
  ["evil\u3002example", "evil[.]example"],
  ["ann\uff20example.com", "ann[@]example[.]com"],
  ["12.50 at 10:30, 3.14", "12.50 at 10:30, 3.14"],
  ["Hello there.", "Hello there."],
])("defang(%j) is %j", (value, expected) => {
  expect(defang(value)).toBe(expected);
});

// What every owner channel shows (the notification mail, Teams, Telegram, ntfy): links defanged, an address as given.
test.each([
  ["ann.lee@example.com", "ann.lee@example.com"],
  ["reply to ann@example.com today", "reply to ann@example.com today"],
  ["https://evil.example/login", "hxxps://evil[.]example/login"],
  ["support@evil.example/reset", "support[@]evil[.]example/reset"],
  ["mailto:eve@evil.example", "mailto[:]eve@evil.example"],
  ["see www.evil.example or 203.0.113.7", "see www[.]evil[.]example or 203[.]0[.]113[.]7"],
  ["12.50 at 10:30", "12.50 at 10:30"],
])("ownerText(%j) is %j", (value, expected) => {
  expect(ownerText(value)).toBe(expected);
});

const VALUES = { formName: "Acme", date: "2026-11-25T12:00:00.000Z", link: null };

test("placeholders are filled as plain text; unknown ones become nothing; the owner's own text is kept as written", () => {
  const rendered = renderConfirmation(
    { subject: "Re: {{ form }} for {{name}}", text: "Hi {{name}} ({{missing}}), on {{date}}: {{topics}}\nhttps://acme.example/help\n" },
    { ...VALUES, data: { name: "Ann", topics: ["a", "b"] } },
  );
  expect(rendered).toEqual({ subject: "Re: Acme for Ann", text: "Hi Ann (), on 2026-11-25: a, b\nhttps://acme.example/help\n" });
});

test("a hostile value: no line break in the subject, 500 characters at most, CR dropped in the text", () => {
  const name = `Eve\r\nBcc: x@target.example\r\n${"A".repeat(10_000)}`;
  const rendered = renderConfirmation({ subject: "{{name}}", text: "{{name}}" }, { ...VALUES, data: { name } });
  expect(rendered.subject).not.toMatch(/[\r\n]/);
  expect(rendered.subject.startsWith("Eve Bcc: x[@]target[.]example AAA")).toBe(true);
  expect(rendered.subject.length).toBe(200);
  // Cut to 500 characters (CRLF counted as one) before the address in it was defanged.
  expect(rendered.text).toBe(`Eve\nBcc: x[@]target[.]example\n${"A".repeat(500 - "Eve\nBcc: x@target.example\n".length)}\n`);
});

test("the double opt-in link goes where {{link}} is, else under the text; never in the subject", () => {
  const link = "https://forms.example/confirm/abc";
  expect(renderConfirmation({ subject: "{{link}}Confirm", text: "Open {{link}} now." }, { ...VALUES, data: {}, link })).toEqual({
    subject: "Confirm",
    text: `Open ${link} now.\n`,
  });
  expect(renderConfirmation({ subject: "Confirm", text: "Hello." }, { ...VALUES, data: {}, link }).text).toBe(
    `Hello.\n\nConfirm your address by opening this link:\n${link}\n`,
  );
});

test.each([
  [" Ann@Example.COM ", "ann@example.com"],
  [["ann@example.com"], "ann@example.com"],
  [["a@example.com", "b@example.com"], null],
  ["a@example.com, b@example.com", null],
  ["Ann <ann@example.com>", null],
  ["ann@example.com\r\nBcc: x@example.com", null],
  [42, null],
  [undefined, null],
])("recipientOf(%j) is %j", (value, expected) => {
  expect(recipientOf(value)).toBe(expected);
});

test("a field the submission lacks reads gracefully: no space before the comma, or the fallback the owner wrote", () => {
  const text = "Hello {{name}},\nthanks, {{name|friend}}. Your topic: {{topic}}\n";
  expect(renderConfirmation({ subject: "Hi {{name}}", text }, { ...VALUES, data: { email: "ann@example.com" } })).toEqual({
    subject: "Hi",
    text: "Hello,\nthanks, friend. Your topic:\n",
  });
  expect(renderConfirmation({ subject: "Hi {{name}}", text }, { ...VALUES, data: { name: "Ann", topic: "sales" } }).text).toBe(
    "Hello Ann,\nthanks, Ann. Your topic: sales\n",
  );
});

test("the words formsvc adds are in the visitor's language", () => {
  const link = "https://forms.example/confirm/abc";
  expect(renderConfirmation({ subject: "Bitte bestätigen", text: "Hallo." }, { ...VALUES, data: {}, link, language: "de" }).text).toBe(
    `Hallo.\n\nBestätigen Sie Ihre Adresse, indem Sie diesen Link öffnen:\n${link}\n`,
  );
});
