// What `formsvc install` does (docs/deploy.md, "formsvc install"): the binary lays itself out as install.sh
// always has, which now downloads, checks and runs it. Each step keeps what an earlier run or the owner made:
// the settings file is written once, the data folder is only made; the binary and the unit are replaced.
import { chmodSync, chownSync, copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import unit from "../deploy/formsvc.service" with { type: "text" };
import { buildInfo } from "../src/lib/release.ts";
import { CliError } from "./errors.ts";
import type { Io } from "./io.ts";

/** `formsvc install`'s flags (docs/cli.md, "install"). */
export interface InstallOptions {
  domain?: string;
  start: boolean;
  root?: string;
  uninstall?: boolean;
}

/** Where each part goes, under --root or /. */
function layout(root: string) {
  const binDir = join(root, "usr/local/bin");
  return {
    binDir,
    bin: join(binDir, "formsvc"),
    unit: join(root, "etc/systemd/system/formsvc.service"),
    envDir: join(root, "etc/formsvc"),
    envFile: join(root, "etc/formsvc/formsvc.env"),
    data: join(root, "var/lib/formsvc"),
  };
}

/** The settings file as first written; the owner's from then on. */
function settingsText(domain: string | undefined): string {
  const lines = [
    "# formsvc serve's settings (docs/cli.md lists every FORMSVC_* variable); install.sh keeps this file.",
    "FORMSVC_DB=/var/lib/formsvc/formsvc.db",
    "FORMSVC_BACKUP_DIR=/var/lib/formsvc/backups",
    "FORMSVC_BACKUP_EVERY=24h",
    "FORMSVC_BACKUP_KEEP=7",
    ...(domain
      ? [
          "# HTTPS by itself: ports 80 and 443, a certificate from Let's Encrypt.",
          `FORMSVC_DOMAINS=${domain}`,
          "FORMSVC_HOST=0.0.0.0",
          "# FORMSVC_ACME_EMAIL=you@example.com",
        ]
      : [
          "# Behind Caddy or nginx on this machine (docs/deploy.md): loopback only.",
          "FORMSVC_HOST=127.0.0.1",
          "FORMSVC_PORT=8080",
          "# FORMSVC_BASE_URL=https://forms.example.com",
          "# FORMSVC_TRUST_PROXY=true",
        ]),
    "# FORMSVC_SMTP_URL=smtps://user:password@mail.example.com",
    "# FORMSVC_MAIL_FROM=Forms <forms@example.com>",
  ];
  return `${lines.join("\n")}\n`;
}

/** Runs a program, its exit code and output; a program that is not there is exit 127. */
function runProgram(argv: string[]): { code: number; stdout: string; stderr: string } {
  try {
    const run = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
    return { code: run.exitCode ?? 1, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
  } catch (error) {
    return { code: 127, stdout: "", stderr: (error as Error).message };
  }
}

/** Whether systemd runs this machine (and so may be asked to start the service). */
const hasSystemd = () => Bun.which("systemctl") !== null && existsSync("/run/systemd/system");

/** The lowest-numbered free system id, counted down from 999 as useradd --system does, in a passwd or group file. */
function freeId(file: string): number {
  const used = new Set(
    readFileSync(file, "utf8")
      .split("\n")
      .map((line) => Number(line.split(":")[2])),
  );
  for (let id = 999; id >= 100; id--) if (!used.has(id)) return id;
  throw new CliError(`no free system id in ${file}`);
}

/** The user and group formsvc: in DIR/etc/passwd and group under --root, else by useradd. Their ids. */
function ensureUser(root: string): { uid: number; gid: number } {
  if (root) {
    const passwd = join(root, "etc/passwd");
    const group = join(root, "etc/group");
    mkdirSync(join(root, "etc"), { recursive: true });
    for (const file of [passwd, group]) if (!existsSync(file)) writeFileSync(file, "", { mode: 0o644 });
    const entry = (file: string) =>
      readFileSync(file, "utf8")
        .split("\n")
        .find((line) => line.startsWith("formsvc:"));
    if (!entry(group)) writeFileSync(group, `formsvc:x:${freeId(group)}:\n`, { flag: "a" });
    const gid = Number(entry(group)!.split(":")[2]);
    if (!entry(passwd)) writeFileSync(passwd, `formsvc:x:${freeId(passwd)}:${gid}:formsvc:/var/lib/formsvc:/usr/sbin/nologin\n`, { flag: "a" });
    return { uid: Number(entry(passwd)!.split(":")[2]), gid };
  }
  if (runProgram(["id", "formsvc"]).code !== 0) {
    const made = runProgram([
      "useradd",
      "--system",
      "--user-group",
      "--home-dir",
      "/var/lib/formsvc",
      "--no-create-home",
      "--shell",
      "/usr/sbin/nologin",
      "formsvc",
    ]);
    if (made.code !== 0) throw new CliError(`useradd formsvc failed: ${made.stderr.trim() || `exit ${made.code}`}`);
  }
  return { uid: Number(runProgram(["id", "-u", "formsvc"]).stdout.trim()), gid: Number(runProgram(["id", "-g", "formsvc"]).stdout.trim()) };
}

/** Puts this binary at `bin` by a rename (never a half-written formsvc), keeping the one it replaces as bin.previous. */
function placeBinary(self: string, bin: string, io: Io): boolean {
  const version = buildInfo().version;
  if (existsSync(bin) && realpathSync(bin) === self) {
    io.err(`${bin} is formsvc ${version} already\n`);
    return false;
  }
  const first = !existsSync(bin);
  if (!first && Bun.spawnSync(["cmp", "-s", bin, self]).exitCode === 0) {
    io.err(`${bin} is formsvc ${version} already\n`);
    return false;
  }
  const incoming = join(dirname(bin), `.${basename(bin)}.install-${process.pid}`);
  copyFileSync(self, incoming);
  chmodSync(incoming, 0o755);
  if (!first) {
    rmSync(`${bin}.previous`, { force: true });
    try {
      linkSync(bin, `${bin}.previous`);
    } catch {
      copyFileSync(bin, `${bin}.previous`);
    }
  }
  renameSync(incoming, bin);
  io.err(first ? `installed ${bin}\n` : `upgraded ${bin} to formsvc ${version} (the one it replaced: ${bin}.previous)\n`);
  return first;
}

/** `formsvc install`: the binary, the user, the data, the settings and the unit; then starts it and prints the setup link. */
export async function install(options: InstallOptions, io: Io): Promise<void> {
  const self = realpathSync(process.execPath);
  if (/^bun(\.exe)?$/.test(basename(self))) {
    throw new CliError("formsvc install installs the compiled binary that runs it: build one (npm run build, then sudo dist/formsvc install)");
  }
  if (options.root) mkdirSync(options.root, { recursive: true });
  const root = options.root ? realpathSync(options.root) : "";
  if (!root && process.getuid?.() !== 0) throw new CliError("run it as root (sudo formsvc install), or with --root DIR");
  const start = options.start && !root;
  const paths = layout(root);
  mkdirSync(paths.binDir, { recursive: true });
  const first = placeBinary(self, paths.bin, io);

  const { uid, gid } = ensureUser(root);
  // Its parents as any folder (0755); only the data folder itself is formsvc's alone.
  mkdirSync(dirname(paths.data), { recursive: true });
  for (const dir of [paths.data, join(paths.data, "backups")]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    if (process.getuid?.() === 0) chownSync(dir, uid, gid);
  }
  if (process.getuid?.() !== 0) io.err(`not root: ${paths.data} is not given to the user formsvc (${uid})\n`);

  mkdirSync(paths.envDir, { recursive: true, mode: 0o755 });
  if (existsSync(paths.envFile)) {
    io.err(`kept ${paths.envFile}\n`);
    if (options.domain && !readFileSync(paths.envFile, "utf8").split("\n").includes(`FORMSVC_DOMAINS=${options.domain}`)) {
      io.err(`--domain ${options.domain}: set FORMSVC_DOMAINS in ${paths.envFile} yourself\n`);
    }
  } else {
    writeFileSync(paths.envFile, settingsText(options.domain), { mode: 0o600 });
    chmodSync(paths.envFile, 0o600);
    io.err(`wrote ${paths.envFile}\n`);
  }

  // The unit as deploy/ has it; with a domain, allowed to bind ports 80 and 443.
  const domains = /^FORMSVC_DOMAINS=./m.test(readFileSync(paths.envFile, "utf8"));
  const text = domains
    ? unit
        .replace(/^CapabilityBoundingSet=$/m, "CapabilityBoundingSet=CAP_NET_BIND_SERVICE")
        .replace(/^AmbientCapabilities=$/m, "AmbientCapabilities=CAP_NET_BIND_SERVICE")
    : unit;
  mkdirSync(dirname(paths.unit), { recursive: true });
  writeFileSync(`${paths.unit}.new`, text, { mode: 0o644 });
  chmodSync(`${paths.unit}.new`, 0o644);
  renameSync(`${paths.unit}.new`, paths.unit);

  if (!start) {
    io.err("not started (--root or --no-start): systemctl enable --now formsvc starts it\n");
    return;
  }
  if (!hasSystemd()) throw new CliError(`no systemd here: installed, not started (start ${paths.bin} serve yourself)`);
  for (const argv of [
    ["systemctl", "daemon-reload"],
    ["systemctl", "enable", "formsvc"],
    ["systemctl", "restart", "formsvc"],
  ]) {
    const run = runProgram(argv);
    if (run.code !== 0)
      throw new CliError(
        `${argv.join(" ")} failed: ${
          run.stderr
            .trim()
            .split(/\s*\n\s*/)
            .join(" ") || `exit ${run.code}`
        }`,
      );
  }
  await sayLink(paths.bin, first, io);
}

/** After a first start, the dashboard's setup link (the service makes the database: it is waited for). */
async function sayLink(bin: string, first: boolean, io: Io): Promise<void> {
  const version = buildInfo().version;
  if (!first) {
    io.err(`formsvc ${version} restarted (systemctl status formsvc)\n`);
    return;
  }
  for (let i = 0; i < 30; i++) {
    const link = runProgram(["runuser", "-u", "formsvc", "--", bin, "dashboard", "link", "--db", "/var/lib/formsvc/formsvc.db"]);
    if (link.code === 0) {
      io.err(`formsvc ${version} is running. Open this link to make the dashboard's first user (it works once, within 15 minutes):\n`);
      io.out(link.stdout);
      return;
    }
    await Bun.sleep(1000);
  }
  io.err("formsvc started; journalctl -u formsvc shows its setup link\n");
}

/** `formsvc install --uninstall`: the binary and the unit go; the data, the settings and the user stay. */
export async function uninstall(options: InstallOptions, io: Io): Promise<void> {
  const root = options.root ? realpathSync(options.root) : "";
  if (!root && process.getuid?.() !== 0) throw new CliError("run it as root (sudo formsvc install --uninstall), or with --root DIR");
  const paths = layout(root);
  const systemd = !root && hasSystemd();
  if (systemd) runProgram(["systemctl", "disable", "--now", "formsvc"]);
  for (const path of [paths.bin, `${paths.bin}.previous`, paths.unit]) rmSync(path, { force: true });
  if (systemd) runProgram(["systemctl", "daemon-reload"]);
  io.err(`formsvc removed. Kept: ${paths.data} (the database and backups), ${paths.envFile} and the user formsvc.\n`);
}
