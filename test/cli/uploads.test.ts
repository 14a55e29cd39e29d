import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInProcess as runCli } from "../helpers/fake-io.ts";
import { MODES, startServerInProcess, startWorld, type CliWorld } from "./world.ts";

// The CLI's files, retention and backup commands (docs/cli.md), in local and remote mode against a real
// server. Each test runs many commands one after another: they get more time than bun's default 5 s.
const SLOW = 60_000;
let world: CliWorld;
let dir: string;
beforeAll(async () => {
  world = await startWorld();
  dir = mkdtempSync(join(tmpdir(), "formsvc-cli-uploads-"));
});
afterAll(async () => {
  await world.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Posts a multipart submission with files to the real server; returns its id. */
async function upload(slug: string, fields: Record<string, string>, files: [field: string, name: string, content: Uint8Array][]): Promise<string> {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  for (const [field, name, content] of files) body.append(field, new Blob([content as Uint8Array<ArrayBuffer>]), name);
  const answer = await fetch(`${world.server.url}/f/${slug}`, { method: "POST", headers: { accept: "application/json" }, body });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { id: string }).id;
}

const bytesOf = (text: string) => new TextEncoder().encode(text);

describe("forms create and update", () => {
  test(
    "--file-uploads, --retention-days and --spam-retention-days set the form's settings in both modes",
    async () => {
      for (const mode of MODES) {
        const slug = `settings-${mode}`;
        const made = await world.run(mode, ["forms", "create", "--name", "Jobs", "--slug", slug, "--file-uploads", "true", "--retention-days", "90", "--json"]);
        expect({ code: made.code, form: JSON.parse(made.stdout) }).toMatchObject({
          code: 0,
          form: { fileUploads: true, retentionDays: 90, spamRetentionDays: 30 },
        });
        const changed = await world.run(mode, [
          "forms",
          "update",
          slug,
          "--retention-days",
          "",
          "--spam-retention-days",
          "7",
          "--file-uploads",
          "false",
          "--json",
        ]);
        expect({ code: changed.code, form: JSON.parse(changed.stdout) }).toMatchObject({
          code: 0,
          form: { fileUploads: false, retentionDays: null, spamRetentionDays: 7 },
        });
        const bad = await world.run(mode, ["forms", "update", slug, "--retention-days", "0"]);
        expect({ code: bad.code, stderr: bad.stderr }).toEqual({
          code: 2,
          stderr: "formsvc: --retention-days must be a whole number of days from 1 to 3650, or null to keep for ever.\n",
        });
      }
    },
    SLOW,
  );
});

describe("submissions files", () => {
  test(
    "downloads every file of a submission, the same bytes in both modes, and never overwrites one",
    async () => {
      await world.ok(["forms", "create", "--name", "Jobs", "--slug", "jobs", "--file-uploads", "true"]);
      const cv = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 13) % 256);
      const id = await upload("jobs", { name: "Ann" }, [
        ["cv", "cv.pdf", cv],
        ["extra", "../../notes.txt", bytesOf("notes")],
        ["extra", "notes.txt", bytesOf("more notes")],
      ]);
      for (const mode of MODES) {
        const out = join(dir, `files-${mode}`);
        const first = await world.run(mode, ["submissions", "files", "jobs", id, "--output", out]);
        // Two files named notes.txt: the second is saved beside the first, and stderr says so.
        expect({ code: first.code, stdout: first.stdout }).toEqual({
          code: 0,
          stdout: [join(out, "cv.pdf"), join(out, "notes.txt"), join(out, "notes (1).txt")].map((p) => `${p}\n`).join(""),
        });
        expect(first.stderr).toContain(`notes.txt already exists in ${out}: saved as ${join(out, "notes (1).txt")} instead.`);
        expect(new Uint8Array(readFileSync(join(out, "cv.pdf")))).toEqual(cv);
        expect([readFileSync(join(out, "notes.txt"), "utf8"), readFileSync(join(out, "notes (1).txt"), "utf8")]).toEqual(["notes", "more notes"]);
        // Run again: nothing already there is replaced.
        writeFileSync(join(out, "cv.pdf"), "mine");
        const again = await world.run(mode, ["submissions", "files", "jobs", id, "--output", out]);
        expect(again.code).toBe(0);
        expect(readFileSync(join(out, "cv.pdf"), "utf8")).toBe("mine");
        expect(readdirSync(out).toSorted()).toEqual(["cv (1).pdf", "cv.pdf", "notes (1).txt", "notes (2).txt", "notes (3).txt", "notes.txt"]);
        expect(again.stderr).toContain("cv.pdf already exists");
      }
    },
    SLOW,
  );

  test(
    "a submission without files says so; an unknown submission exits 5",
    async () => {
      await world.ok(["forms", "create", "--name", "Plain", "--slug", "plain"]);
      const id = await world.post("plain", { email: "ann@example.com" });
      for (const mode of MODES) {
        expect(await world.run(mode, ["submissions", "files", "plain", id])).toEqual({ code: 0, stdout: "", stderr: `Submission ${id} has no files.\n` });
        const missing = await world.run(mode, ["submissions", "files", "plain", "sub_nothing"]);
        expect(missing.code).toBe(5);
      }
    },
    SLOW,
  );
});

describe("submissions erase", () => {
  test(
    "piped without --yes it refuses; --dry-run counts; on a terminal it asks; --yes erases, in both modes",
    async () => {
      await world.ok(["forms", "create", "--name", "Newsletter", "--slug", "newsletter"]);
      const formId = JSON.parse(await world.ok(["forms", "get", "newsletter", "--json"])).id as string;
      for (const mode of MODES) {
        await world.post("newsletter", { email: `Eve.${mode}@Example.com` });
        await world.post("newsletter", { email: "someone@example.com", cc: [`eve.${mode}@example.com`] });
        const email = `eve.${mode}@example.com`;
        const refused = await world.run(mode, ["submissions", "erase", "--email", email]);
        expect(refused).toEqual({
          code: 2,
          stdout: "",
          stderr: "formsvc: refusing to erase without --yes: stdin is not a terminal to confirm on (try --dry-run first)\n",
        });
        const dry = await world.run(mode, ["submissions", "erase", "--email", email, "--dry-run", "--json"]);
        expect({ code: dry.code, answer: JSON.parse(dry.stdout) }).toEqual({ code: 0, answer: { erased: 2, forms: { [formId]: 2 }, dryRun: true } });
        expect(dry.stderr).toContain("Would erase 2 submissions");
        // On a terminal: the question, and an answer other than yes erases nothing.
        const declined = await world.run(mode, ["submissions", "erase", "--email", email], { env: { FORMSVC_TTY: "1" }, stdin: "no\n" });
        expect({ code: declined.code, asked: declined.stderr.includes("Erase 2 submissions holding") }).toEqual({ code: 1, asked: true });
        const confirmed = await world.run(mode, ["submissions", "erase", "--email", email], { env: { FORMSVC_TTY: "1", NO_COLOR: "1" }, stdin: "yes\n" });
        expect({ code: confirmed.code, said: confirmed.stderr.endsWith(`Type yes to confirm: Erased 2 submissions holding ${email} from 1 form.\n`) }).toEqual({
          code: 0,
          said: true,
        });
        const after = await world.run(mode, ["submissions", "erase", "--email", email, "--yes", "--json"]);
        expect(JSON.parse(after.stdout)).toEqual({ erased: 0, forms: {}, dryRun: false });
      }
      const form = JSON.parse(await world.ok(["forms", "get", "newsletter", "--json"])) as { submissionCount: number };
      expect(form.submissionCount).toBe(0);
    },
    SLOW,
  );
});

describe("backup and restore", () => {
  test(
    "a backup holds the files; deleting in the original leaves the copy whole; a server on the copy serves them",
    async () => {
      await world.ok(["forms", "create", "--name", "Claims", "--slug", "claims", "--file-uploads", "true"]);
      const photo = Uint8Array.from({ length: 40_000 }, (_, i) => (i * 17) % 256);
      const id = await upload("claims", { policy: "P-1" }, [["photo", "damage.jpg", photo]]);
      const copy = join(dir, "backup.db");
      const backup = await world.run("local", ["backup", copy]);
      expect(backup.code).toBe(0);
      expect((await world.run("remote", ["submissions", "delete", "claims", id])).code).toBe(0);
      const counts = (path: string) => {
        const db = new Database(path, { readonly: true });
        try {
          return db
            .prepare(
              "SELECT (SELECT count(*) FROM files) AS files, (SELECT count(*) FROM files WHERE submission_id NOT IN (SELECT id FROM submissions)) AS orphans",
            )
            .get();
        } finally {
          db.close();
        }
      };
      // The original lost the file with its submission; the copy kept both.
      expect(counts(copy)).toEqual({ files: 4, orphans: 0 });
      expect(counts(world.server.db)).toEqual({ files: 3, orphans: 0 });
      // Restore: a server on the copy, and the file downloaded from it is the one uploaded.
      const restored = await startServerInProcess({ db: copy });
      try {
        const out = join(dir, "restored");
        const minted = await runCli(["keys", "create", "--db", copy]);
        const fetched = await runCli(["submissions", "files", "claims", id, "--output", out], {
          env: { FORMSVC_URL: restored.url, FORMSVC_KEY: minted.stdout.trim() },
        });
        expect({ code: fetched.code, stdout: fetched.stdout }).toEqual({ code: 0, stdout: `${join(out, "damage.jpg")}\n` });
        expect(new Uint8Array(readFileSync(join(out, "damage.jpg")))).toEqual(photo);
      } finally {
        await restored.stop();
      }
      expect(existsSync(copy)).toBe(true);
    },
    SLOW,
  );
});
