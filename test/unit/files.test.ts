import { expect, test } from "bun:test";
import { attachmentHeader, safeFileName } from "../../src/lib/files.ts";
import { notificationText } from "../../src/lib/mail.ts";

test("safeFileName keeps a name a name: no path, controls, NUL, bidi overrides, leading dots or device names", () => {
  const cases: [string, string][] = [
    ["cv.pdf", "cv.pdf"],
    ["../../etc/passwd", "_.._etc_passwd"],
    ["..\\..\\boot.ini", "_.._boot.ini"],
    ["a\u0000b\u001bc\u007f.txt", "abc.txt"],
    ["invoice\u202Efdp.exe", "invoicefdp.exe"],
    ["\u2067evil\u2069.js", "evil.js"],
    [".htaccess", "htaccess"],
    ["  ", "file"],
    ["...", "file"],
    ["nul.txt", "_nul.txt"],
    ['a"b<c>|d?.txt', "a_b_c__d_.txt"],
    ["résumé.pdf", "résumé.pdf"],
  ];
  expect(cases.map(([name]) => [name, safeFileName(name)])).toEqual(cases);
  const long = safeFileName(`${"é".repeat(400)}.tar.gz`);
  expect({ length: Array.from(long).length, end: long.slice(-3) }).toEqual({ length: 150, end: ".gz" });
});

test("attachmentHeader gives an ASCII filename and the UTF-8 filename* of RFC 6266", () => {
  expect(attachmentHeader("Ann's CV (final).pdf")).toBe(`attachment; filename="Ann's CV (final).pdf"; filename*=UTF-8''Ann%27s%20CV%20%28final%29.pdf`);
  expect(attachmentHeader("日本語.txt")).toBe(`attachment; filename="___.txt"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%E8%AA%9E.txt`);
  expect(attachmentHeader("100%;x.txt")).toBe(`attachment; filename="100__x.txt"; filename*=UTF-8''100%25%3Bx.txt`);
});

test("a notification names the files of a submission and never carries their bytes", () => {
  const text = notificationText({
    formName: "Jobs",
    formSlug: "jobs",
    submissionId: "sub_1",
    receivedAt: "2026-11-23T12:00:00.000Z",
    data: {
      name: "Ann",
      cv: { file: "fil_1", name: "cv\nBcc: x@example.com.pdf", type: "application/pdf", size: 1234 },
      photos: [
        { file: "fil_2", name: "a.png", type: "image/png", size: 3 },
        { file: "fil_3", name: "b.png", type: "image/png", size: 4 },
      ],
    },
  });
  expect(text.split("\n").slice(2, 5)).toEqual([
    "name: Ann",
    "cv: cv Bcc: x@example.com.pdf (file, application/pdf, 1234 bytes)",
    // A file's name is the visitor's: a name that reads as a host (a.zip is one) is defanged as every value is.
    "photos: a[.]png (file, image/png, 3 bytes), b[.]png (file, image/png, 4 bytes)",
  ]);
  expect(text).toContain("Download its files with: formsvc submissions files jobs sub_1");
});
