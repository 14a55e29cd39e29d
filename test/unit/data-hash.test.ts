import { expect, test } from "bun:test";
import { UploadedFile } from "../../src/lib/files.ts";
import { dataHash } from "../../src/services/spam/verdict.ts";

test("the duplicate rule's hash counts a file by its name, type and size, and never turns its bytes into JSON", () => {
  // Uploaded bytes arrive as Buffers, whose toJSON is an array of every byte: 6 MB of it once cost 300 MB.
  const file = (fill: number, size = 6 * 1024 * 1024) => new UploadedFile("cv.pdf", "application/pdf", Buffer.alloc(size, fill));
  expect(dataHash({ cv: file(1), note: "hi" })).toBe(dataHash({ cv: file(2), note: "hi" }));
  expect(dataHash({ cv: file(1), note: "hi" })).not.toBe(dataHash({ cv: file(1, 10), note: "hi" }));
  expect(dataHash({ cv: file(1), note: "hi" })).not.toBe(dataHash({ cv: file(1), note: "hello" }));
});
