import { expect, test } from "bun:test";
import { asciiAddress, needsSmtpUtf8, planAddresses } from "../../src/lib/mail-address.ts";

test("an address has an ASCII form when its local part is ASCII: the domain becomes punycode", () => {
  expect(["ann@example.com", "ann@bücher.de", "用户@例子.广告", "zoë@example.com", "ann@例子.广告"].map(asciiAddress)).toEqual([
    "ann@example.com",
    "ann@xn--bcher-kva.de",
    null,
    null,
    "ann@xn--fsqu00a.xn--4rr70v",
  ]);
});

const wanted = { from: "forms@example.com", to: "owner@example.com", cc: ["ann@bücher.de"], replyTo: "ann@example.com" };

test("only a message with an address that has no ASCII form needs the server to be asked", () => {
  expect(needsSmtpUtf8(wanted)).toBe(false);
  expect(
    [
      { ...wanted, replyTo: "zoë@example.com" },
      { ...wanted, cc: ["josé@example.com"] },
      { ...wanted, from: "zoë@example.com" },
    ].map(needsSmtpUtf8),
  ).toEqual([true, true, true]);
});

test("a sender with no ASCII form refuses the message when the server does not offer SMTPUTF8, and goes as written when it does", () => {
  const fromZoe = { ...wanted, from: "zoë@example.com" };
  expect(planAddresses(fromZoe, false).refusal).toBe(
    "Not sent: the sender address zoë@example.com (--mail-from) needs SMTPUTF8, which the mail server does not offer (a local part outside ASCII cannot be encoded). Use an ASCII address or a mail server that offers SMTPUTF8, then retry.",
  );
  expect(planAddresses(fromZoe, true)).toEqual({
    addresses: { from: "zoë@example.com", to: "owner@example.com", cc: ["ann@xn--bcher-kva.de"], replyTo: "ann@example.com" },
    refusal: null,
    note: null,
  });
});
