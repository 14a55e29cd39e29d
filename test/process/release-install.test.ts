import { afterAll, beforeAll, expect, test } from "bun:test";
import { createPrivateKey, sign } from "node:crypto";
import { appendFileSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { manifestText } from "../../scripts/release-sign.ts";
import { ROOT, runCli } from "../helpers/cli.ts";
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
const install = (...args: string[]) => installWith(process.env.PATH ?? "/usr/bin:/bin", ...args);

/** install.sh with another PATH: the tools it finds are those of the machine it runs on. */
async function installWith(path: string, ...args: string[]) {
  const tmp = mkdtempSync(join(scratch, "tmp-"));
  const proc = Bun.spawn(["sh", join(releases.folder("1.0.1"), "install.sh"), ...args], {
    env: { PATH: path, TMPDIR: tmp },
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
    expect(first.stderr).toMatch(/^the manifest's signature matches this release's key \(checked with OpenSSL 3\.\d+\.\d+\)$/m);

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
      "usr/local/bin/formsvc": `755 ${me} ${sha(releases.binary("1.0.0"))}`,
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
      "usr/local/bin/formsvc": `755 ${me} ${sha(releases.binary("1.0.1"))}`,
      "usr/local/bin/formsvc.previous": `755 ${me} ${sha(releases.binary("1.0.0"))}`,
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

/**
 * A folder for PATH holding every program of this machine's PATH but openssl and ssh-keygen, plus `openssl`
 * as given (a stand-in that says an older version, as OpenSSL 1.1 and macOS's LibreSSL do) and, when asked,
 * the real ssh-keygen.
 */
function machineWithout(name: string, opensslVersion: string, withSshKeygen: boolean): string {
  const bin = join(scratch, `path-${name}`);
  mkdirSync(bin);
  for (const dir of (process.env.PATH ?? "/usr/bin:/bin").split(":")) {
    if (!existsSync(dir)) continue;
    for (const program of readdirSync(dir)) {
      if (program === "openssl" || program === "ssh-keygen" || existsSync(join(bin, program))) continue;
      symlinkSync(join(dir, program), join(bin, program));
    }
  }
  // Says its version; anything else fails, as an openssl without Ed25519's -rawin does.
  writeFileSync(
    join(bin, "openssl"),
    `#!/bin/sh\n[ "$1" = version ] && echo '${opensslVersion}' && exit 0\necho "pkeyutl: Unknown option: -rawin" >&2\nexit 1\n`,
    {
      mode: 0o755,
    },
  );
  if (withSshKeygen) symlinkSync(Bun.which("ssh-keygen")!, join(bin, "ssh-keygen"));
  return bin;
}

/** 1.0.1 served from another folder with its manifest changed after signing (the version raised). */
function tamperedMirror(name: string): string {
  const dir = join(scratch, name);
  cpSync(releases.folder("1.0.1"), dir, { recursive: true });
  const manifest = readFileSync(join(dir, "manifest.json"), "utf8");
  writeFileSync(join(dir, "manifest.json"), manifest.replace('"version": "1.0.1"', '"version": "1.0.2"'));
  releases.folders.set(`/${name}`, dir);
  return `http://127.0.0.1:${releases.server.port}/${name}`;
}

test(
  "where openssl is not version 3 and there is no ssh-keygen, install.sh refuses a tampered mirror and the true release alike, unless told --insecure-skip-signature",
  async () => {
    const path = machineWithout("old-openssl", "OpenSSL 1.1.1w  11 Sep 2023", false);
    const refusal = {
      code: 1,
      stdout: "",
      stderr:
        "install.sh: cannot check the release's signature here: it needs openssl 3 or ssh-keygen (OpenSSH 8.1 or later; apt-get install openssh-client, apk add openssh-keygen), " +
        "or --insecure-skip-signature to install without the check: nothing was installed\n",
    };
    for (const [name, from] of [
      ["tampered", tamperedMirror("mirror-old-openssl")],
      ["true", releases.base],
    ]) {
      const root = join(scratch, `old-openssl-${name}`);
      expect(await installWith(path, "--root", root, "--from", from!)).toEqual(refusal);
      expect(readdirSync(join(root, "usr/local/bin"))).toEqual([]);
    }
    const root = join(scratch, "old-openssl-insecure");
    const insecure = await installWith(path, "--root", root, "--from", releases.base, "--insecure-skip-signature");
    expect(insecure.code).toBe(0);
    expect(insecure.stderr).toContain("neither openssl 3 nor ssh-keygen here: the manifest's signature is NOT checked (--insecure-skip-signature)\n");
    expect(fileSha256(join(root, "usr/local/bin/formsvc"))).toBe(fileSha256(releases.binary("1.0.1")));
  },
  RELEASE_TEST_MS,
);

test(
  "where openssl is LibreSSL, install.sh checks the signature with ssh-keygen: a tampered mirror refused, the true release installed",
  async () => {
    const path = machineWithout("libressl", "LibreSSL 3.3.6", true);
    const from = tamperedMirror("mirror-libressl");
    const refusedRoot = join(scratch, "libressl-tampered");
    const refused = await installWith(path, "--root", refusedRoot, "--from", from);
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 1, stdout: "" });
    expect(refused.stderr).toStartWith(`install.sh: the signature of ${from}/manifest.json does not match this release's key (ssh-keygen -Y verify`);
    expect(refused.stderr).toEndWith("): nothing was installed\n");
    expect(readdirSync(join(refusedRoot, "usr/local/bin"))).toEqual([]);

    const root = join(scratch, "libressl-true");
    const installed = await installWith(path, "--root", root, "--from", releases.base);
    expect(installed.code).toBe(0);
    expect(installed.stderr).toContain("the manifest's signature matches this release's key (checked with ssh-keygen)\n");
    expect(fileSha256(join(root, "usr/local/bin/formsvc"))).toBe(fileSha256(releases.binary("1.0.1")));
  },
  RELEASE_TEST_MS,
);

test(
  "install.sh --domain takes one host name: new lines, spaces or '=' are refused before anything is written",
  async () => {
    const root = join(scratch, "domain-lines");
    for (const domain of ["forms.example.com\nFORMSVC_TRUST_PROXY=true", "forms.example.com FORMSVC_HOST=0.0.0.0", "a=b"]) {
      expect(await install("--root", root, "--from", releases.base, "--domain", domain)).toEqual({
        code: 1,
        stdout: "",
        stderr: "install.sh: --domain takes one host name (letters, digits, dots and hyphens), such as forms.example.com\n",
      });
      expect(existsSync(root)).toBe(false);
    }
  },
  RELEASE_TEST_MS,
);

test(
  "a re-run against a folder serving an older signed release keeps the newer binary; --version installs the older all the same",
  async () => {
    const root = join(scratch, "downgrade");
    expect((await install("--root", root, "--from", releases.base)).code).toBe(0);
    releases.folders.set("/older", releases.folder("1.0.0"));
    const before = tree(root);
    const older = `http://127.0.0.1:${releases.server.port}/older`;
    expect(await install("--root", root, "--from", older)).toEqual({
      code: 1,
      stdout: "",
      stderr: expect.stringContaining(
        `install.sh: ${root}/usr/local/bin/formsvc is formsvc 1.0.1, newer than the release at ${older} (1.0.0): nothing was changed (--version 1.0.0 installs it all the same)\n`,
      ),
    });
    expect(tree(root)).toEqual(before);
    expect((await install("--root", root, "--from", releases.base, "--version", "1.0.0")).code).toBe(0);
    expect(fileSha256(join(root, "usr/local/bin/formsvc"))).toBe(fileSha256(releases.binary("1.0.0")));
  },
  RELEASE_TEST_MS,
);

test(
  "install.sh refuses the latest release's manifest once it has expired, signed as it is",
  async () => {
    const dir = join(scratch, "expired-release");
    cpSync(releases.folder("1.0.1"), dir, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    const text = manifestText({ ...manifest, expiresAt: "2020-01-01T00:00:00Z" });
    writeFileSync(join(dir, "manifest.json"), text);
    writeFileSync(join(dir, "manifest.json.sig"), `${sign(null, Buffer.from(text), createPrivateKey(readFileSync(releases.key))).toString("base64")}\n`);
    releases.folders.set("/expired-install", dir);
    const from = `http://127.0.0.1:${releases.server.port}/expired-install`;
    const root = join(scratch, "expired");
    const refused = await install("--root", root, "--from", from);
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 1, stdout: "" });
    expect(refused.stderr).toContain(
      `install.sh: the manifest at ${from} expired on 2020-01-01T00:00:00Z (formsvc 1.0.1): the folder is stale or a mirror serves an old release; ask its publisher to renew it, or pass --version: nothing was installed\n`,
    );
    expect(readdirSync(join(root, "usr/local/bin"))).toEqual([]);
  },
  RELEASE_TEST_MS,
);

/** Runs a binary's `formsvc install` as install.sh does, TMPDIR of its own (which must stay empty). */
async function selfInstall(binary: string, ...args: string[]) {
  const tmp = mkdtempSync(join(scratch, "tmp-"));
  const proc = Bun.spawn([binary, "install", ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: tmp },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(readdirSync(tmp)).toEqual([]);
  return { code, stdout, stderr };
}

test(
  "formsvc install --root into an empty root lays out what install.sh lays out, byte for byte, the unit as deploy/ has it",
  async () => {
    // A binary copied by hand (scp), run from where it lies.
    const copied = join(scratch, "copied");
    mkdirSync(copied);
    cpSync(releases.binary("1.0.1"), join(copied, "formsvc"));
    const byBinary = join(scratch, "self-installed");
    const answer = await selfInstall(join(copied, "formsvc"), "--root", byBinary, "--no-start");
    expect({ code: answer.code, stdout: answer.stdout }).toEqual({ code: 0, stdout: "" });
    expect(answer.stderr).toContain(`installed ${byBinary}/usr/local/bin/formsvc\n`);

    const byScript = join(scratch, "script-installed");
    expect((await install("--root", byScript, "--no-start", "--from", releases.base)).code).toBe(0);
    expect(tree(byBinary)).toEqual(tree(byScript));
    expect(readFileSync(join(byBinary, "etc/systemd/system/formsvc.service"), "utf8")).toBe(readFileSync(join(ROOT, "deploy/formsvc.service"), "utf8"));

    // Again: nothing to change; --uninstall keeps the data, the settings and the user.
    expect((await selfInstall(join(copied, "formsvc"), "--root", byBinary)).stderr).toContain(`${byBinary}/usr/local/bin/formsvc is formsvc 1.0.1 already\n`);
    expect(await selfInstall(join(copied, "formsvc"), "--root", byBinary, "--uninstall")).toEqual({
      code: 0,
      stdout: "",
      stderr: `formsvc removed. Kept: ${byBinary}/var/lib/formsvc (the database and backups), ${byBinary}/etc/formsvc/formsvc.env and the user formsvc.\n`,
    });
    expect(readdirSync(join(byBinary, "usr/local/bin"))).toEqual([]);
    expect(existsSync(join(byBinary, "etc/systemd/system/formsvc.service"))).toBe(false);
    expect(existsSync(join(byBinary, "etc/formsvc/formsvc.env"))).toBe(true);
  },
  RELEASE_TEST_MS,
);

test(
  "formsvc install --domain lets the unit bind ports 80 and 443; a --domain that is not a host name is a usage error",
  async () => {
    const root = join(scratch, "self-domain");
    expect((await selfInstall(releases.binary("1.0.1"), "--root", root, "--domain", "forms.example.com")).code).toBe(0);
    const unit = readFileSync(join(root, "etc/systemd/system/formsvc.service"), "utf8");
    expect(unit.match(/^(AmbientCapabilities|CapabilityBoundingSet)=.*$/gm)).toEqual([
      "CapabilityBoundingSet=CAP_NET_BIND_SERVICE",
      "AmbientCapabilities=CAP_NET_BIND_SERVICE",
    ]);
    expect(readFileSync(join(root, "etc/formsvc/formsvc.env"), "utf8")).toContain("FORMSVC_DOMAINS=forms.example.com\nFORMSVC_HOST=0.0.0.0\n");
    const other = join(scratch, "self-domain-refused");
    expect(await selfInstall(releases.binary("1.0.1"), "--root", other, "--domain", "forms.example.com\nFORMSVC_TRUST_PROXY=true")).toEqual({
      code: 2,
      stdout: "",
      stderr: "formsvc: --domain takes one host name (letters, digits, dots and hyphens), such as forms.example.com\n",
    });
    expect(existsSync(other)).toBe(false);
  },
  RELEASE_TEST_MS,
);

test(
  "formsvc install run by bun (not a compiled binary) says how to get one",
  async () => {
    const root = join(scratch, "from-source");
    expect(await runCli(["install", "--root", root])).toEqual({
      code: 1,
      stdout: "",
      stderr: "formsvc: formsvc install installs the compiled binary that runs it: build one (npm run build, then sudo dist/formsvc install)\n",
    });
    expect(existsSync(root)).toBe(false);
  },
  RELEASE_TEST_MS,
);
