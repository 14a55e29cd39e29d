import { describe, expect, test } from "bun:test";
import { loadServeConfig, redactedSmtpUrl } from "../../src/config.ts";
import { ApiError } from "../../src/errors.ts";
import { notificationReplyTo, notificationSubject, notificationText, parseMailbox } from "../../src/lib/mail.ts";

describe("the subject", () => {
  test.each([
    ["a _subject is used as given", "Quote request", "Quote request"],
    ["CR/LF cannot start a header: the line break becomes a space", "Hi\r\nBcc: victim@example.com", "Hi Bcc: victim@example.com"],
    ["other control characters and Unicode line separators go too", "a\u0000b\u001b[31mc\u2028d\td", "a b [31mc d d"],
    ["surrounding space is trimmed", "   Hello   ", "Hello"],
    ["an empty _subject falls back to the form's name", "  \r\n ", "New submission: Contact"],
    ["no _subject: the form's name", undefined, "New submission: Contact"],
    ["a _subject sent twice (an array) is not a subject", ["a", "b"], "New submission: Contact"],
    ["a number is not a subject", 42, "New submission: Contact"],
  ])("%s", (_name, requested, expected) => {
    expect(notificationSubject(requested, "Contact")).toBe(expected);
  });

  test("at most 200 characters, never cutting a character in half", () => {
    expect(notificationSubject("x".repeat(500), "Contact")).toBe("x".repeat(200));
    const emoji = notificationSubject("😀".repeat(250), "Contact");
    expect(Array.from(emoji)).toEqual(Array(200).fill("😀"));
  });

  test("a form name with a line break cannot start a header either", () => {
    expect(notificationSubject(undefined, "Evil\r\nBcc: x@example.com")).toBe("New submission: Evil Bcc: x@example.com");
  });
});

describe("the Reply-To", () => {
  test.each([
    ["ann@example.com", "ann@example.com"],
    ["  ann@example.com ", "ann@example.com"],
    ["not an address", null],
    ["ann@example.com\r\nBcc: victim@example.com", null],
    ["Ann <ann@example.com>", null],
    ["a@b.com, c@d.com", null],
    ["", null],
    [["ann@example.com"], null],
    [undefined, null],
    [`${"a".repeat(250)}@example.com`, null],
  ])("%j → %j", (requested, expected) => {
    expect(notificationReplyTo(requested)).toBe(expected);
  });
});

describe("the text body", () => {
  const content = { formName: "Contact", formSlug: "contact", submissionId: "sub_1", receivedAt: "2026-11-22T12:00:00.000Z" };

  test("one name: value line per field, then the id, the time and how to see it", () => {
    const text = notificationText({
      ...content,
      data: { name: "Ann", topics: ["a", "b"], meta: { plan: "pro" }, count: 3, agree: true, nothing: null },
    });
    expect(text).toBe(
      [
        "New submission to Contact:",
        "",
        "name: Ann",
        "topics: a, b",
        'meta: {"plan":"pro"}',
        "count: 3",
        "agree: true",
        "nothing: ",
        "",
        "Submission: sub_1",
        "Received: 2026-11-22T12:00:00.000Z",
        "See it with: formsvc submissions get contact sub_1",
        "",
      ].join("\n"),
    );
  });

  test("with the server's public address, the email links to the submission's page in the dashboard instead of naming a command", () => {
    const text = notificationText({ ...content, data: { name: "Ann" }, link: "https://forms.example.com/dashboard/forms/frm_1/submissions/sub_1" });
    expect(
      text.endsWith("Received: 2026-11-22T12:00:00.000Z\nOpen it in the dashboard: https://forms.example.com/dashboard/forms/frm_1/submissions/sub_1\n"),
    ).toBe(true);
    expect(text).not.toContain("formsvc submissions");
  });

  test("a value's own lines are indented, so that it cannot pass for a field or the footer", () => {
    const text = notificationText({ ...content, data: { message: "Hello\r\nSubmission: sub_fake\nbye", "evil\nname": "x" } });
    expect(text).toContain("message: Hello\n  Submission: sub_fake\n  bye\n");
    expect(text).toContain("evil name: x\n");
    expect(text.split("\n").filter((line) => line.startsWith("Submission:"))).toEqual(["Submission: sub_1"]);
  });

  test("terminal escapes and other control characters are dropped; tabs stay", () => {
    expect(notificationText({ ...content, data: { note: "\u001b[2Jred\u0007\tok" } })).toContain("note: [2Jred\tok\n");
  });
});

describe("the From and the SMTP URL", () => {
  test("parseMailbox takes an address, with or without a display name", () => {
    expect(parseMailbox("forms@example.com")).toEqual({ name: "", address: "forms@example.com" });
    expect(parseMailbox("Forms <forms@example.com>")).toEqual({ name: "Forms", address: "forms@example.com" });
    expect(parseMailbox('"Acme Forms" <forms@example.com>')).toEqual({ name: "Acme Forms", address: "forms@example.com" });
    expect(parseMailbox("Forms\r\nBcc: x@example.com <forms@example.com>")).toBeNull();
    expect(parseMailbox("not an address")).toBeNull();
  });

  test("mail is off without --smtp-url; the From defaults to the SMTP login when it is an address", () => {
    expect(loadServeConfig({}, {})).toMatchObject({
      smtpUrl: null,
      mailFrom: { name: "formsvc", address: "formsvc@localhost" },
      mailRetryBaseMs: 60_000,
      mailTimeoutMs: 10_000,
    });
    expect(loadServeConfig({}, { FORMSVC_SMTP_URL: "smtps://forms%40example.com:pw@mail.example.com" })).toMatchObject({
      smtpUrl: "smtps://forms%40example.com:pw@mail.example.com",
      mailFrom: { name: "formsvc", address: "forms@example.com" },
    });
    // A flag beats the environment.
    expect(loadServeConfig({ mailFrom: "Forms <f@example.com>" }, { FORMSVC_MAIL_FROM: "other@example.com" }).mailFrom).toEqual({
      name: "Forms",
      address: "f@example.com",
    });
  });

  test("a bad SMTP URL is refused without repeating it (it may hold a password)", () => {
    for (const bad of ["http://user:hunter2@mail.example.com", "smtp://", "smtp://user:hunter2@mail.example.com/\n", "hunter2"]) {
      let error: unknown;
      try {
        loadServeConfig({ smtpUrl: bad }, {});
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).message).toStartWith("smtp-url must be an address such as smtp://");
      expect((error as ApiError).message).not.toContain("hunter2");
    }
  });

  test("the URL as shown hides the password", () => {
    expect(redactedSmtpUrl("smtp://user:hunter2@mail.example.com:587")).toBe("smtp://user:***@mail.example.com:587");
    expect(redactedSmtpUrl("smtps://mail.example.com")).toBe("smtps://mail.example.com");
  });
});

test("a field named like a JavaScript property is mailed as the data it is, and absent fields are not mailed", () => {
  const text = (data: string) =>
    notificationText({ formName: "Contact", formSlug: "contact", submissionId: "sub_1", receivedAt: "2026-11-23T12:00:00.000Z", data: JSON.parse(data) });
  const tricky = text('{"name":"Bob","toString":"t","constructor":"c","__proto__":{"isAdmin":true}}');
  expect(tricky).toContain('name: Bob\ntoString: t\nconstructor: c\n__proto__: {"isAdmin":true}\n');
  const plain = text('{"name":"Ann"}');
  expect(plain).toContain("name: Ann\n\nSubmission: sub_1");
  expect(plain).not.toContain("native code");
});
