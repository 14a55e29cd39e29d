import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { CATALOGS, LANGUAGES, pickLanguage } from "../../src/lib/i18n/index.ts";
import { en } from "../../src/lib/i18n/en.ts";
import { ROOT } from "../helpers/cli.ts";

const SAMPLE = { label: "Message", name: "extra", min: 2, max: 5, count: 3, seconds: 4, status: 400 };

test("every catalog file is a language of the list, and at least the ten languages are there", () => {
  const files = readdirSync(join(ROOT, "src/lib/i18n"))
    .filter((name) => /^[a-z]{2}\.ts$/.test(name))
    .map((name) => name.slice(0, 2));
  expect([...LANGUAGES].sort()).toEqual(files.sort());
  expect(LANGUAGES).toEqual(expect.arrayContaining(["en", "de", "fr", "es", "it", "pt", "nl", "pl", "ja", "zh"]));
});

test.each(Object.keys(CATALOGS).filter((code) => code !== "en"))("the %s catalog has every key English has, each a message that gives text", (code) => {
  const catalog = CATALOGS[code]! as unknown as Record<string, unknown>;
  const missing = Object.keys(en).filter((key) => !(key in catalog));
  expect(missing).toEqual([]);
  for (const [key, message] of Object.entries(catalog)) {
    const text = typeof message === "function" ? (message as (v: typeof SAMPLE) => string)(SAMPLE) : message;
    expect({ key, text: typeof text === "string" && text.trim() !== "" }).toEqual({ key, text: true });
  }
});

test("plurals follow each language's rules", () => {
  expect([1, 2, 5, 22].map((n) => CATALOGS.pl!.tooShort({ label: "Imię", min: n }))).toEqual([
    "Imię: wpisz co najmniej 1 znak.",
    "Imię: wpisz co najmniej 2 znaki.",
    "Imię: wpisz co najmniej 5 znaków.",
    "Imię: wpisz co najmniej 22 znaki.",
  ]);
  expect([1, 3].map((n) => en.tooShort({ label: "Name", min: n }))).toEqual(["Name: enter at least 1 character.", "Name: enter at least 3 characters."]);
  expect(CATALOGS.fr!.fieldsNeedFixing({ count: 1 })).toBe("Un champ est à corriger.");
});

test("the language: _language, else the form's, else Accept-Language by q, else English", () => {
  expect(pickLanguage({ field: "de", form: "fr", acceptLanguage: "es" })).toBe("de");
  expect(pickLanguage({ field: "xx", form: "fr", acceptLanguage: "es" })).toBe("fr");
  expect(pickLanguage({ acceptLanguage: "xx-YY, pt-BR;q=0.8, ja;q=0.9" })).toBe("ja");
  expect(pickLanguage({ acceptLanguage: "fr-CH, fr;q=0.9, en;q=0.8" })).toBe("fr");
  expect(pickLanguage({ field: "zh-Hans-CN" })).toBe("zh");
  expect(pickLanguage({ acceptLanguage: "tlh, de;q=0" })).toBe("en");
  expect(pickLanguage({})).toBe("en");
});
