import { afterEach, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { testApp, type TestApp } from "../helpers/app.ts";
import { apiError } from "./scenario.ts";

// File uploads (docs/api.md, "Files") through the app: the public post, the owner's download, deletes and exports.
let t: TestApp;
afterEach(() => t?.close());

const LIMIT = 64 * 1024;

/** A fresh app (posts up to 256 KiB, files up to 64 KiB) with a form that takes files. */
async function setup() {
  t = await testApp({ maxBody: 4 * LIMIT, maxFileSize: LIMIT });
  const account = await t.account("acme");
  const key = await account.key();
  const created = await t.request("POST", "/api/forms", { key, body: { name: "Jobs", slug: "jobs", fileUploads: true } });
  expect(created.status).toBe(201);
  const form = (await created.json()) as { id: string; slug: string; fileUploads: boolean };
  return { account, key, form };
}

/** Posts a multipart body to the public endpoint, asking for JSON. */
function post(slug: string, form: FormData, headers: Record<string, string> = { accept: "application/json" }) {
  return t.request("POST", `/f/${slug}`, { body: form, headers });
}

const bytes = (n: number, seed = 7) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) % 256);

async function submissionOf(key: string, formId: string, id: string) {
  const answer = await t.request("GET", `/api/forms/${formId}/submissions/${id}`, { key });
  expect(answer.status).toBe(200);
  return (await answer.json()) as { id: string; data: Record<string, any> };
}

async function fileRows(): Promise<number> {
  const [row] = await t.services.store.db.all<{ n: number }>(sql`SELECT count(*) AS n FROM files`);
  return row!.n;
}

describe("uploads", () => {
  test("a form takes files only once fileUploads is on; the form object shows the setting", async () => {
    t = await testApp();
    const account = await t.account("acme");
    const key = await account.key();
    const created = await t.request("POST", "/api/forms", { key, body: { name: "Contact" } });
    const form = (await created.json()) as { id: string; slug: string; fileUploads: boolean };
    expect(form.fileUploads).toBe(false);
    const upload = () => {
      const body = new FormData();
      body.append("cv", new Blob(["%PDF-1.7"], { type: "application/pdf" }), "cv.pdf");
      return post(form.slug, body);
    };
    const refused = await upload();
    expect({ status: refused.status, body: await refused.json() }).toEqual({ status: 400, body: apiError("files_not_accepted", "cv") });
    const patched = await t.request("PATCH", `/api/forms/${form.id}`, { key, body: { fileUploads: true } });
    expect(((await patched.json()) as { fileUploads: boolean }).fileUploads).toBe(true);
    expect((await upload()).status).toBe(200);
    const badValue = await t.request("PATCH", `/api/forms/${form.id}`, { key, body: { fileUploads: "yes" } });
    expect({ status: badValue.status, body: await badValue.json() }).toEqual({ status: 400, body: apiError("invalid_body", "fileUploads") });
  });

  test("the field becomes the file object (an array for several), and the owner downloads the same bytes", async () => {
    const { key, form } = await setup();
    const cv = bytes(5000);
    const body = new FormData();
    body.append("name", "Ann");
    body.append("cv", new Blob([cv], { type: "application/pdf" }), "cv.pdf");
    body.append("photos", new Blob(["one"], { type: "image/png" }), "a.png");
    body.append("photos", new Blob(["two!"], { type: "image/png" }), "b.png");
    const answer = await post(form.slug, body);
    expect(answer.status).toBe(200);
    const { id } = (await answer.json()) as { id: string };
    const stored = await submissionOf(key, form.id, id);
    const fileObject = (name: string, type: string, size: number) => ({ file: expect.stringMatching(/^fil_[0-9a-z]+$/), name, type, size });
    expect(stored.data).toEqual({
      name: "Ann",
      cv: fileObject("cv.pdf", "application/pdf", 5000),
      photos: [fileObject("a.png", "image/png", 3), fileObject("b.png", "image/png", 4)],
    });
    const download = await t.request("GET", `/api/forms/${form.id}/submissions/${id}/files/${stored.data.cv.file}`, { key });
    expect({
      status: download.status,
      type: download.headers.get("content-type"),
      disposition: download.headers.get("content-disposition"),
      nosniff: download.headers.get("x-content-type-options"),
      csp: download.headers.get("content-security-policy"),
    }).toEqual({
      status: 200,
      type: "application/pdf",
      disposition: `attachment; filename="cv.pdf"; filename*=UTF-8''cv.pdf`,
      nosniff: "nosniff",
      csp: "sandbox",
    });
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(cv);
    // The field list gains the file fields like any other.
    const list = (await (await t.request("GET", `/api/forms/${form.id}/submissions`, { key })).json()) as { fields: string[] };
    expect(list.fields).toEqual(["name", "cv", "photos"]);
  });

  test("a form-level read key downloads its form's files; a file is not found under another submission", async () => {
    const { account, key, form } = await setup();
    const body = new FormData();
    body.append("cv", new Blob(["abc"]), "cv.txt");
    const first = ((await (await post(form.slug, body)).json()) as { id: string }).id;
    const second = (
      (await (await t.request("POST", `/f/${form.slug}`, { body: { name: "Bob" }, headers: { accept: "application/json" } })).json()) as { id: string }
    ).id;
    const fileId = (await submissionOf(key, form.id, first)).data.cv.file as string;
    const formKey = await account.key({ type: "form", formId: form.id });
    expect((await t.request("GET", `/api/forms/${form.slug}/submissions/${first}/files/${fileId}`, { key: formKey })).status).toBe(200);
    const elsewhere = await t.request("GET", `/api/forms/${form.id}/submissions/${second}/files/${fileId}`, { key });
    expect({ status: elsewhere.status, body: await elsewhere.json() }).toEqual({ status: 404, body: apiError("not_found") });
    const unknown = await t.request("GET", `/api/forms/${form.id}/submissions/${first}/files/fil_nothing`, { key });
    expect(unknown.status).toBe(404);
    // Never public: the public endpoint has no GET for files, and the API needs a key.
    expect((await t.request("GET", `/api/forms/${form.id}/submissions/${first}/files/${fileId}`)).status).toBe(401);
  });

  test("dangerous names are made safe in Content-Disposition: no path, NUL, controls, RTL override; long names cut", async () => {
    const { key, form } = await setup();
    const names = ["../../etc/passwd", "a\u0000b\u0007c.txt", "invoice\u202Efdp.exe", `${"x".repeat(300)}.pdf`, 'quo"te;\\name.txt', "résumé.pdf", "..", "CON"];
    const body = new FormData();
    // Sent raw, as a hostile client would: a browser would already strip the path.
    for (const name of names) body.append("doc", new Blob(["x"]), name);
    const answer = await post(form.slug, body);
    expect(answer.status).toBe(200);
    const { id } = (await answer.json()) as { id: string };
    const stored = await submissionOf(key, form.id, id);
    const headers: string[] = [];
    for (const file of stored.data.doc as { file: string }[]) {
      const download = await t.request("GET", `/api/forms/${form.id}/submissions/${id}/files/${file.file}`, { key });
      expect(download.status).toBe(200);
      headers.push(download.headers.get("content-disposition")!);
    }
    for (const header of headers) {
      expect(header).toStartWith('attachment; filename="');
      expect(header).not.toMatch(/[\u0000-\u001f\u007f\u202e]|\.\.\/|\/|\\/);
      // filename= carries one quoted value without a quote inside it.
      expect(header).toMatch(/^attachment; filename="[^"]*"; filename\*=UTF-8''[A-Za-z0-9%!._~-]+$/);
    }
    expect(headers[0]).toBe(`attachment; filename="passwd"; filename*=UTF-8''passwd`);
    expect(headers[1]).toBe(`attachment; filename="abc.txt"; filename*=UTF-8''abc.txt`);
    expect(headers[2]).toBe(`attachment; filename="invoicefdp.exe"; filename*=UTF-8''invoicefdp.exe`);
    const long = /filename\*=UTF-8''(.*)$/.exec(headers[3]!)![1]!;
    expect({ length: long.length, end: long.slice(-4) }).toEqual({ length: 150, end: ".pdf" });
    expect(headers[4]).toBe(`attachment; filename="name.txt"; filename*=UTF-8''name.txt`);
    expect(headers[5]).toBe(`attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`);
    expect(headers[6]).toBe(`attachment; filename="file"; filename*=UTF-8''file`);
    expect(headers[7]).toBe(`attachment; filename="_CON"; filename*=UTF-8''_CON`);
  });

  test("11 files are refused with 400 naming the limit, and nothing is stored", async () => {
    const { key, form } = await setup();
    const body = new FormData();
    for (let i = 0; i < 11; i++) body.append("scan", new Blob([`page ${i}`]), `page-${i}.txt`);
    const answer = await post(form.slug, body);
    expect({ status: answer.status, body: await answer.json() }).toEqual({
      status: 400,
      body: {
        error: { code: "invalid_body", message: "A submission may carry at most 10 files.", field: "scan" },
        errors: [{ code: "invalid_body", message: "A submission may carry at most 10 files.", field: "scan" }],
      },
    });
    const ten = new FormData();
    for (let i = 0; i < 10; i++) ten.append("scan", new Blob([`page ${i}`]), `page-${i}.txt`);
    expect((await post(form.slug, ten)).status).toBe(200);
    const list = (await (await t.request("GET", `/api/forms/${form.id}/submissions`, { key })).json()) as { pagination: { total: number } };
    expect(list.pagination.total).toBe(1);
    expect(await fileRows()).toBe(10);
  });

  test("a file over --max-file-size, or a post over --max-body, is 413 and leaves nothing behind", async () => {
    const { form } = await setup();
    const overFile = new FormData();
    overFile.append("cv", new Blob([bytes(LIMIT * 3)]), "big.bin");
    const big = await post(form.slug, overFile);
    expect({ status: big.status, body: await big.json() }).toEqual({
      status: 413,
      body: {
        error: { code: "payload_too_large", message: `The file "big.bin" is larger than the limit of ${LIMIT} bytes.`, field: "cv" },
        errors: [{ code: "payload_too_large", message: `The file "big.bin" is larger than the limit of ${LIMIT} bytes.`, field: "cv" }],
      },
    });
    const overBody = new FormData();
    overBody.append("cv", new Blob([bytes(LIMIT * 5)]), "huge.bin");
    const huge = await post(form.slug, overBody);
    expect({ status: huge.status, body: await huge.json() }).toEqual({ status: 413, body: apiError("payload_too_large") });
    expect(await fileRows()).toBe(0);
  });

  test("deleting the submission, or the form, deletes its files", async () => {
    const { key, form } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const body = new FormData();
      body.append("cv", new Blob([bytes(100, i)]), `cv-${i}.pdf`);
      ids.push(((await (await post(form.slug, body)).json()) as { id: string }).id);
    }
    expect(await fileRows()).toBe(2);
    const fileId = (await submissionOf(key, form.id, ids[0]!)).data.cv.file as string;
    expect((await t.request("DELETE", `/api/forms/${form.id}/submissions/${ids[0]}`, { key })).status).toBe(204);
    expect(await fileRows()).toBe(1);
    expect((await t.request("GET", `/api/forms/${form.id}/submissions/${ids[0]}/files/${fileId}`, { key })).status).toBe(404);
    const after = (await (await t.request("GET", `/api/forms/${form.id}`, { key })).json()) as { submissionCount: number };
    expect(after.submissionCount).toBe(1);
    expect((await t.request("DELETE", `/api/forms/${form.id}`, { key })).status).toBe(204);
    expect(await fileRows()).toBe(0);
  });

  test("exports list each file's name and API path: CSV as `name (path)`, NDJSON as the file object with `path`", async () => {
    const { key, form } = await setup();
    const body = new FormData();
    body.append("email", "ann@example.com");
    body.append("cv", new Blob(["pdf"], { type: "application/pdf" }), "=cv.pdf");
    const id = ((await (await post(form.slug, body)).json()) as { id: string }).id;
    // A JSON post may send any object, even one shaped like a file: it gets no path, as no file is behind it.
    await t.request("POST", `/f/${form.slug}`, {
      body: { email: "eve@example.com", cv: { file: "fil_forged", name: "x.pdf", type: "application/pdf", size: 1 } },
      headers: { accept: "application/json" },
    });
    const fileId = (await submissionOf(key, form.id, id)).data.cv.file as string;
    const path = `/api/forms/${form.id}/submissions/${id}/files/${fileId}`;
    const ndjson = await (await t.request("GET", `/api/forms/${form.id}/submissions/export?format=ndjson&order=asc`, { key })).text();
    const [first, second] = ndjson
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { data: Record<string, any> });
    expect(first!.data.cv).toEqual({ file: fileId, name: "=cv.pdf", type: "application/pdf", size: 3, path });
    expect(second!.data.cv).toEqual({ file: "fil_forged", name: "x.pdf", type: "application/pdf", size: 1 });
    const csv = await (await t.request("GET", `/api/forms/${form.id}/submissions/export?format=csv&order=asc`, { key })).text();
    // The name starts with "=": the cell is escaped against formula injection like any other.
    expect(csv.split("\n").slice(0, 3)).toEqual([
      "id,createdAt,email,cv",
      expect.stringMatching(new RegExp(`^${id},[^,]+,ann@example.com,'=cv.pdf \\(${path.replaceAll("/", "\\/")}\\)$`)),
      expect.stringMatching(/,eve@example.com,x.pdf \(fil_forged\)$/),
    ]);
  });
});
