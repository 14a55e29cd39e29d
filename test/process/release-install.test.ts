import { afterAll, beforeAll, expect, test } from "bun:test";
import { appendFileSync, cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { ROOT } from "../helpers/cli.ts";
import { RELEASE_BUILD_MS, RELEASE_TEST_MS, fileSha256, type TestReleases, testReleases } from "../release/support.ts";

// The release's install.sh, run with --root into empty folders against the test releases on a local server.
let releases: TestReleases;
let scratch: string;

beforeAll(async () => {
  releases = await testReleases();
  scratch = mkdtempSync(join(tmpdir(), "formsvc-install-"));
}, RELEASE_BUILD_MS);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs 1.0.1's install.sh with a TMPDIR of its own (which must stay empty: nothing is written outside --root). */
async function install(...args: string[]) {
  const tmp = mkdtempSync(join(scratch, "tmp-"));
  const proc = Bun.spawn(["sh", join(releases.folder("1.0.1"), "install.sh"), ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: tmp },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(readdirSync(tmp)).toEqual([]);
  return { code, stdout, stderr };
}

/** Every path under a root with its mode and owner (and, for files, the SHA-256 of its bytes). */
function tree(root: string, dir = root): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    const mode = (stat.mode & 0o7777).toString(8);
    if (stat.isDirectory()) {
      entries[`${relative(root, path)}/`] = `${mode} ${stat.uid}`;
      Object.assign(entries, tree(root, path));
    } else entries[relative(root, path)] = `${mode} ${stat.uid} ${fileSha256(path)}`;
  }
  return entries;
}

test(
  "install.sh --root --no-start --from lays out the binary, the unit, the settings and the data folder; a second run upgrades only the binary; --uninstall keeps the data",
  async () => {
    const root = join(scratch, "server");
    const first = await install("--root", root, "--no-start", "--from", releases.base, "--version", "1.0.0");
    expect({ code: first.code, stdout: first.stdout }).toEqual({ code: 0, stdout: "" });
    expect(first.stderr).toContain(`formsvc 1.0.0 for linux-x64 from ${releases.base}/1.0.0`);

    expect(readFileSync(join(root, "etc/passwd"), "utf8")).toBe("formsvc:x:999:999:formsvc:/var/lib/formsvc:/usr/sbin/nologin\n");
    expect(readFileSync(join(root, "etc/group"), "utf8")).toBe("formsvc:x:999:\n");
    const env = readFileSync(join(root, "etc/formsvc/formsvc.env"), "utf8");
    expect(env).toContain("FORMSVC_DB=/var/lib/formsvc/formsvc.db\nFORMSVC_BACKUP_DIR=/var/lib/formsvc/backups\n");
    expect(env).toContain("FORMSVC_HOST=127.0.0.1\n");
    const unit = readFileSync(join(ROOT, "deploy/formsvc.service"));
    const owner = process.getuid?.() === 0 ? 999 : process.getuid?.();
    const me = process.getuid?.();
    const sha = (path: string) => fileSha256(path);
    const laidOut = {
      "etc/": `755 ${me}`,
      "etc/formsvc/": `755 ${me}`,
      "etc/formsvc/formsvc.env": `600 ${me} ${sha(join(root, "etc/formsvc/formsvc.env"))}`,
      "etc/group": `644 ${me} ${sha(join(root, "etc/group"))}`,
      "etc/passwd": `644 ${me} ${sha(join(root, "etc/passwd"))}`,
      "etc/systemd/": `755 ${me}`,
      "etc/systemd/system/": `755 ${me}`,
      "etc/systemd/system/formsvc.service": `644 ${me} ${new Bun.CryptoHasher("sha256").update(unit).digest("hex")}`,
      "usr/": `755 ${me}`,
      "usr/local/": `755 ${me}`,
      "usr/local/bin/": `755 ${me}`,
      "usr/local/bin/formsvc": `755 ${me} ${sha(join(releases.folder("1.0.0"), "formsvc-linux-x64"))}`,
      "var/": `755 ${me}`,
      "var/lib/": `755 ${me}`,
      "var/lib/formsvc/": `700 ${owner}`,
      "var/lib/formsvc/backups/": `700 ${owner}`,
    };
    expect(tree(root)).toEqual(laidOut);

    // The owner's own settings, which a second run keeps.
    appendFileSync(join(root, "etc/formsvc/formsvc.env"), "FORMSVC_SMTP_URL=smtp://mail.example.com\n");
    const edited = sha(join(root, "etc/formsvc/formsvc.env"));
    const second = await install("--root", root, "--no-start", "--from", releases.base);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain("upgraded");
    expect(tree(root)).toEqual({
      ...laidOut,
      "etc/formsvc/formsvc.env": `600 ${me} ${edited}`,
      "usr/local/bin/formsvc": `755 ${me} ${sha(join(releases.folder("1.0.1"), "formsvc-linux-x64"))}`,
      "usr/local/bin/formsvc.previous": `755 ${me} ${sha(join(releases.folder("1.0.0"), "formsvc-linux-x64"))}`,
    });

    expect((await install("--root", root, "--uninstall")).code).toBe(0);
    const kept = tree(root);
    expect(Object.keys(kept).filter((path) => path.startsWith("usr/local/bin/") || path.startsWith("etc/systemd/system/"))).toEqual([
      "etc/systemd/system/",
      "usr/local/bin/",
    ]);
    expect(kept).toMatchObject({ "etc/formsvc/formsvc.env": `600 ${me} ${edited}`, "var/lib/formsvc/": `700 ${owner}`, "etc/passwd": laidOut["etc/passwd"] });
  },
  RELEASE_TEST_MS,
);

test(
  "install.sh --domain lets the unit bind ports 80 and 443 and writes the domain into the settings",
  async () => {
    const root = join(scratch, "domain");
    expect((await install("--root", root, "--from", releases.base, "--domain", "forms.example.com")).code).toBe(0);
    const unit = readFileSync(join(root, "etc/systemd/system/formsvc.service"), "utf8");
    expect(unit.match(/^(AmbientCapabilities|CapabilityBoundingSet)=.*$/gm)).toEqual([
      "CapabilityBoundingSet=CAP_NET_BIND_SERVICE",
      "AmbientCapabilities=CAP_NET_BIND_SERVICE",
    ]);
    expect(readFileSync(join(root, "etc/formsvc/formsvc.env"), "utf8")).toContain("FORMSVC_DOMAINS=forms.example.com\nFORMSVC_HOST=0.0.0.0\n");
  },
  RELEASE_TEST_MS,
);

test(
  "install.sh refuses a manifest changed after signing, and installs nothing",
  async () => {
    const tampered = join(scratch, "tampered-release");
    cpSync(releases.folder("1.0.1"), tampered, { recursive: true });
    const manifest = readFileSync(join(tampered, "manifest.json"), "utf8");
    writeFileSync(join(tampered, "manifest.json"), manifest.replace('"version": "1.0.1"', '"version": "1.0.2"'));
    releases.folders.set("/install-tampered", tampered);
    const root = join(scratch, "refused");
    const refused = await install("--root", root, "--from", `http://127.0.0.1:${releases.server.port}/install-tampered`);
    expect(refused).toEqual({
      code: 1,
      stdout: "",
      stderr: `install.sh: the signature of http://127.0.0.1:${releases.server.port}/install-tampered/manifest.json does not match this release's key: nothing was installed\n`,
    });
    expect(existsSync(join(root, "usr/local/bin/formsvc"))).toBe(false);
    expect(readdirSync(join(root, "usr/local/bin"))).toEqual([]);
  },
  RELEASE_TEST_MS,
);
