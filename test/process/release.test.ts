import { beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash, createPrivateKey, createPublicKey, sign } from "node:crypto";
import { copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { manifestText } from "../../scripts/release-sign.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { backupBeforeMigrating } from "../../src/db/migrate.ts";
import { keyFingerprint, type Manifest } from "../../src/lib/release.ts";
import { runCli } from "../helpers/cli.ts";
import { sshPublicKey } from "../../scripts/release-sign.ts";
import { RELEASE_BUILD_MS, RELEASE_TEST_MS, fileSha256, folderBytes, run, type TestReleases, testReleases, throwawayKey } from "../release/support.ts";

// Two releases (1.0.0 and 1.0.1, linux-x64 only) built by `npm run release` with a throwaway key, published on a
// local HTTP server as a release is: BASE/ the latest, BASE/X.Y.Z/ each version; beside them, folders that
// hold 1.0.1 tampered with. An installed formsvc updates itself from there, rolls back, and refuses the tampering.
let work: string;
let server: TestReleases["server"];
let base: string;
let keyA: string;
let rel: (version: string) => string;
let binaryOf: (version: string) => string;
let folders: Map<string, string>;

beforeAll(async () => {
  const releases = await testReleases();
  ({ work, server, base, folder: rel, folders, binary: binaryOf } = releases);
  keyA = releases.key;
  const manifest = JSON.parse(readFileSync(join(rel("1.0.1"), "manifest.json"), "utf8")) as Manifest;
  const tampered = (name: string, change: (dir: string) => void) => {
    const dir = join(work, name);
    cpSync(rel("1.0.1"), dir, { recursive: true });
    change(dir);
    folders.set(`/${name}`, dir);
  };
  // The manifest changed after signing: it points at another binary's hash.
  tampered("changed", (dir) =>
    writeFileSync(join(dir, "manifest.json"), manifestText({ ...manifest, artifacts: manifest.artifacts.map((a) => ({ ...a, sha256: "0".repeat(64) })) })),
  );
  // A whole release signed by a key the binary does not trust.
  tampered("otherkey", (dir) => {
    const other = createPrivateKey(readFileSync(throwawayKey(join(work, "other-key.pem"))));
    const publicKey = Buffer.from(createPublicKey(other).export({ format: "jwk" }).x!, "base64url");
    const text = manifestText({ ...manifest, releaseKey: keyFingerprint(publicKey) });
    writeFileSync(join(dir, "manifest.json"), text);
    writeFileSync(join(dir, "manifest.json.sig"), `${sign(null, Buffer.from(text), other).toString("base64")}\n`);
  });
  // The compressed binary changed on the server (one byte), its signed manifest as it was.
  tampered("badsum", (dir) => {
    const packed = readFileSync(join(dir, "formsvc-linux-x64.xz"));
    packed[packed.length - 1]! ^= 0xff;
    writeFileSync(join(dir, "formsvc-linux-x64.xz"), packed);
  });
  // The download stops halfway.
  tampered("short", () => releases.cutShort.add("/short/formsvc-linux-x64.xz"));
  // The latest release's manifest signed as it was, but expired: what a mirror replaying an old release serves.
  tampered("expired", (dir) => {
    const text = manifestText({ ...manifest, expiresAt: "2020-01-01T00:00:00Z" });
    writeFileSync(join(dir, "manifest.json"), text);
    writeFileSync(join(dir, "manifest.json.sig"), `${sign(null, Buffer.from(text), createPrivateKey(readFileSync(keyA))).toString("base64")}\n`);
  });
}, RELEASE_BUILD_MS);

/** A folder with the 1.0.0 binary installed as `formsvc`, as install.sh leaves it. */
function installed(name: string, version = "1.0.0"): { dir: string; formsvc: string } {
  const dir = join(work, "installed", name);
  mkdirSync(dir, { recursive: true });
  copyFileSync(binaryOf(version), join(dir, "formsvc"));
  return { dir, formsvc: join(dir, "formsvc") };
}

test(
  "a release binary knows its version, platform, release address, key and schema",
  async () => {
    const key = createPublicKey(createPrivateKey(readFileSync(keyA)));
    const fingerprint = keyFingerprint(Buffer.from(key.export({ format: "jwk" }).x!, "base64url"));
    const { formsvc } = installed("version");
    const answer = await run(formsvc, ["version", "--json"]);
    expect({ ...answer, stdout: JSON.parse(answer.stdout) }).toEqual({
      code: 0,
      stdout: { version: "1.0.0", os: "linux", arch: "x64", baseUrl: base, releaseKey: fingerprint, schema: migrations.length },
      stderr: "",
    });
    expect((await run(formsvc, ["--version"])).stdout).toBe("1.0.0\n");
    const manifest = JSON.parse(readFileSync(join(rel("1.0.0"), "manifest.json"), "utf8"));
    const packed = join(rel("1.0.0"), "formsvc-linux-x64.xz");
    expect(manifest).toEqual({
      version: "1.0.0",
      publishedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      baseUrl: base,
      releaseKey: fingerprint,
      artifacts: [
        {
          name: "formsvc-linux-x64",
          os: "linux",
          arch: "x64",
          size: readFileSync(formsvc).length,
          sha256: fileSha256(formsvc),
          xz: "formsvc-linux-x64.xz",
          xzSize: readFileSync(packed).length,
          xzSha256: fileSha256(packed),
        },
      ],
    });
    // 90 days from the publication, to the second.
    expect(Date.parse(manifest.expiresAt) - Math.floor(Date.parse(manifest.publishedAt) / 1000) * 1000).toBe(90 * 86_400_000);
    // The .xz unpacks, with xz itself, to the binary.
    const unpacked = Bun.spawnSync(["xz", "-dc", packed], { stdout: "pipe" }).stdout;
    expect(createHash("sha256").update(unpacked).digest("hex")).toBe(fileSha256(formsvc));
    // Where openssl is not version 3, ssh-keygen checks the same manifest's OpenSSH signature against the same key.
    const allowed = join(work, "allowed_signers");
    writeFileSync(allowed, `formsvc-release ${sshPublicKey(Buffer.from(key.export({ format: "jwk" }).x!, "base64url"))}\n`);
    const checked = Bun.spawnSync(
      ["ssh-keygen", "-Y", "verify", "-f", allowed, "-I", "formsvc-release", "-n", "formsvc-release", "-s", join(rel("1.0.0"), "manifest.json.sshsig")],
      { stdin: Bun.file(join(rel("1.0.0"), "manifest.json")), stdout: "pipe", stderr: "pipe" },
    );
    expect({ code: checked.exitCode, said: checked.stdout.toString() }).toEqual({
      code: 0,
      said: expect.stringContaining('Good "formsvc-release" signature for formsvc-release with ED25519 key'),
    });
    // SHA256SUMS as sha256sum writes it, for every other file of the folder.
    const check = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: rel("1.0.0"), stdout: "pipe" });
    expect(check.stdout.toString().trim().split("\n").sort()).toEqual(
      ["formsvc-1.0.0-linux-x64.oci.tar", "formsvc-linux-x64.xz", "install.sh", "manifest.json", "manifest.json.sig", "manifest.json.sshsig"]
        .map((name) => `${name}: OK`)
        .sort(),
    );
  },
  RELEASE_TEST_MS,
);

describe("formsvc update", () => {
  test(
    "a development build cannot update itself, and says so",
    async () => {
      for (const args of [
        ["update", "--check"],
        ["update", "--yes"],
        ["update", "--rollback", "--yes"],
      ]) {
        expect(await runCli(args)).toEqual({
          code: 1,
          stdout: "",
          stderr: "formsvc: this is a development build of formsvc: it knows no release to update from (install a release: docs/deploy.md)\n",
        });
      }
    },
    RELEASE_TEST_MS,
  );

  test(
    "1.0.0 checks, updates to 1.0.1, rolls back, and goes to either version with --to",
    async () => {
      const { dir, formsvc } = installed("cycle");
      const bytes = (version: string) => fileSha256(binaryOf(version));
      const version = async () => JSON.parse((await run(formsvc, ["version", "--json"])).stdout).version;

      expect(await run(formsvc, ["update", "--check"])).toEqual({ code: 10, stdout: "1.0.0 → 1.0.1\n", stderr: "" });
      expect(await run(formsvc, ["update"])).toEqual({
        code: 2,
        stdout: "",
        stderr: `formsvc: Replace formsvc 1.0.0 at ${formsvc} with 1.0.1: not without a terminal to ask on; pass --yes (formsvc update --yes)\n`,
      });
      expect(Object.keys(folderBytes(dir))).toEqual(["formsvc"]);

      const updated = await run(formsvc, ["update", "--yes", "--db", join(dir, "none.db")]);
      expect(updated.code).toBe(0);
      expect(updated.stderr).toContain(`formsvc 1.0.0 → 1.0.1 at ${formsvc}; 1.0.0 is kept as formsvc.previous`);
      expect(updated.stderr).toContain("systemctl restart formsvc");
      expect(folderBytes(dir)).toEqual({ formsvc: `755 ${bytes("1.0.1")}`, "formsvc.previous": `755 ${bytes("1.0.0")}` });
      expect(await version()).toBe("1.0.1");
      expect(await run(formsvc, ["update", "--check"])).toEqual({ code: 0, stdout: "1.0.1 → 1.0.1 (up to date)\n", stderr: "" });

      // No database at the path given: nothing to refuse over.
      const rolledBack = await run(formsvc, ["update", "--rollback", "--yes", "--db", join(dir, "none.db")]);
      expect(rolledBack.code).toBe(0);
      expect(folderBytes(dir)).toEqual({ formsvc: `755 ${bytes("1.0.0")}`, "formsvc.previous": `755 ${bytes("1.0.1")}` });
      expect(await version()).toBe("1.0.0");

      expect((await run(formsvc, ["update", "--to", "1.0.1", "--yes", "--db", join(dir, "none.db")])).code).toBe(0);
      expect(await version()).toBe("1.0.1");
      expect((await run(formsvc, ["update", "--to", "1.0.0", "--from", `${base}/`, "--yes", "--db", join(dir, "none.db")])).code).toBe(0);
      expect(folderBytes(dir)).toEqual({ formsvc: `755 ${bytes("1.0.0")}`, "formsvc.previous": `755 ${bytes("1.0.1")}` });
    },
    RELEASE_TEST_MS,
  );

  test.each([
    ["changed", "formsvc: the signature of manifest.json does not match it: the manifest was changed after it was signed\n"],
    ["otherkey", /^formsvc: manifest\.json is signed by an unknown key \([0-9a-f]{16}…\), not this formsvc's release key \([0-9a-f]{16}…\)\n$/],
    [
      "badsum",
      /^formsvc: formsvc-linux-x64\.xz from \S+\/badsum\/formsvc-linux-x64\.xz has SHA-256 [0-9a-f]{64}, not the [0-9a-f]{64} its signed manifest says\n$/,
    ],
    ["short", /^formsvc: the download of \S+\/short\/formsvc-linux-x64\.xz was cut short after \d+ of \d+ bytes[^\n]*\n$/],
    [
      "expired",
      /^formsvc: the manifest at \S+\/expired\/ expired on 2020-01-01T00:00:00Z \(formsvc 1\.0\.1\): the folder is stale or a mirror serves an old release; ask its publisher to renew it, or pass --to VERSION\n$/,
    ],
  ])(
    "a release folder %s: exit 1, one line, the binary's folder byte for byte as it was",
    async (name, reason) => {
      const { dir, formsvc } = installed(`refused-${name}`);
      writeFileSync(join(dir, "formsvc.previous"), "an older formsvc\n", { mode: 0o755 });
      const before = folderBytes(dir);
      const answer = await run(formsvc, ["update", "--from", `http://127.0.0.1:${server.port}/${name}`, "--yes"]);
      expect({ code: answer.code, stdout: answer.stdout }).toEqual({ code: 1, stdout: "" });
      if (typeof reason === "string") expect(answer.stderr).toBe(reason);
      else expect(answer.stderr).toMatch(reason);
      expect(folderBytes(dir)).toEqual(before);
    },
    RELEASE_TEST_MS,
  );

  test(
    "--rollback refuses over a database the newer binary migrated, naming serve's backup and the restore command",
    async () => {
      const { dir, formsvc } = installed("schema", "1.0.1");
      copyFileSync(binaryOf("1.0.0"), join(dir, "formsvc.previous"));
      const db = join(work, "schema.db");
      expect((await run(formsvc, ["accounts", "create", "Ada", "--db", db])).code).toBe(0);
      // As serve does when it starts on a database an earlier formsvc made: a checked copy first, then the
      // migration, here one that 1.0.0 does not know (it writes schema migrations.length).
      const backup = backupBeforeMigrating(db, migrations.length);
      const sqlite = new Database(db);
      sqlite.run(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ('a migration of 1.0.1', ?)`, [Date.now() * 10]);
      sqlite.close();
      const before = folderBytes(dir);

      expect(await run(formsvc, ["update", "--rollback", "--yes"], { FORMSVC_DB: db })).toEqual({
        code: 1,
        stdout: "",
        stderr:
          `formsvc: the database ${db} has schema version ${migrations.length + 1}, newer than formsvc 1.0.0 knows (${migrations.length}), so nothing was changed: ` +
          `serve backed it up before migrating, to ${backup}; stop the server, run "formsvc restore ${backup} --db ${db} --yes" ` +
          "(it keeps the database it replaces), then formsvc update --rollback again\n",
      });
      expect(folderBytes(dir)).toEqual(before);
      // The same for 1.0.0 asked for by name: the downloaded binary says what it knows, and nothing is changed.
      expect(await run(formsvc, ["update", "--to", "1.0.0", "--from", `${base}/`, "--yes"], { FORMSVC_DB: db })).toEqual({
        code: 1,
        stdout: "",
        stderr:
          `formsvc: the database ${db} has schema version ${migrations.length + 1}, newer than formsvc 1.0.0 knows (${migrations.length}), so nothing was changed: ` +
          `serve backed it up before migrating, to ${backup}; stop the server, run "formsvc restore ${backup} --db ${db} --yes" ` +
          "(it keeps the database it replaces), then formsvc update --to 1.0.0 again\n",
      });
      expect(folderBytes(dir)).toEqual(before);

      // Doing as it says puts 1.0.0 back, on the database as 1.0.0 left it.
      const restored = await run(formsvc, ["restore", backup, "--db", db, "--yes"]);
      // Its reason is shown if it fails.
      expect({ code: restored.code, stderr: restored.code === 0 ? "" : restored.stderr }).toEqual({ code: 0, stderr: "" });
      expect((await run(formsvc, ["update", "--rollback", "--yes", "--db", db])).code).toBe(0);
      expect(JSON.parse((await run(formsvc, ["version", "--json"])).stdout).version).toBe("1.0.0");
      expect((await run(formsvc, ["accounts", "list", "--db", db])).stdout).toContain("Ada");
    },
    RELEASE_TEST_MS,
  );

  test(
    "an expired latest manifest is refused by update --check too, in the same words",
    async () => {
      const { formsvc } = installed("expired-check");
      const answer = await run(formsvc, ["update", "--check", "--from", `http://127.0.0.1:${server.port}/expired`]);
      expect({ code: answer.code, stdout: answer.stdout }).toEqual({ code: 1, stdout: "" });
      expect(answer.stderr).toContain("expired on 2020-01-01T00:00:00Z (formsvc 1.0.1): the folder is stale or a mirror serves an old release");
    },
    RELEASE_TEST_MS,
  );

  test(
    "the hidden files a killed update left are removed by the next update; those of an update still running are kept",
    async () => {
      const { dir, formsvc } = installed("leftovers");
      // Process 999999999 cannot exist (Linux's ids stop at 4194304); an older formsvc wrote no id at all.
      for (const name of [".formsvc.update-999999999-0123456789ab", ".formsvc.update-999999999-0123456789ab.xz", ".formsvc.update-0123456789ab"]) {
        writeFileSync(join(dir, name), "half a binary");
      }
      const live = `.formsvc.update-${process.pid}-0123456789ab`;
      writeFileSync(join(dir, live), "an update under way");
      const updated = await run(formsvc, ["update", "--yes", "--db", join(dir, "none.db")]);
      expect(updated.code).toBe(0);
      expect(Object.keys(folderBytes(dir))).toEqual([live, "formsvc", "formsvc.previous"]);
    },
    RELEASE_TEST_MS,
  );

  test(
    "--restart says in one line why systemctl failed, its lines joined rather than escaped",
    async () => {
      const { dir, formsvc } = installed("restart");
      copyFileSync(binaryOf("1.0.1"), join(dir, "formsvc.previous"));
      const stubs = join(work, "restart-stubs");
      mkdirSync(stubs, { recursive: true });
      writeFileSync(
        join(stubs, "systemctl"),
        "#!/bin/sh\necho 'System has not been booted with systemd as init system (PID 1). Can'\\''t operate.' >&2\necho 'Failed to connect to bus: Host is down' >&2\nexit 1\n",
        { mode: 0o755 },
      );
      const answer = await run(formsvc, ["update", "--rollback", "--yes", "--restart", "--db", join(dir, "none.db")], {
        PATH: `${stubs}:${process.env.PATH}`,
      });
      expect({ code: answer.code, stdout: answer.stdout, last: answer.stderr.trimEnd().split("\n").at(-1) }).toEqual({
        code: 1,
        stdout: "",
        last: "formsvc: systemctl restart formsvc failed: System has not been booted with systemd as init system (PID 1). Can't operate. Failed to connect to bus: Host is down",
      });
    },
    RELEASE_TEST_MS,
  );
});
