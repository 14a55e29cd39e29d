import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrations } from "../../src/db/migrations/index.ts";
import type { Manifest } from "../../src/lib/release.ts";
import { fileSha256, release, run, throwawayKey } from "./support.ts";

// `npm run test:release`, before each release (docs/deploy.md, "Making a release"): the whole release, every
// platform, with a throwaway key. The arm64 binary runs under qemu-user (Debian's qemu-user-static and
// libc6-arm64-cross); the image is loaded by podman when podman is installed. npm test covers the rest with
// linux-x64 alone (test/process/release*.test.ts).
let out: string;
let manifest: Manifest;
/** The binaries themselves, which `npm run release` leaves beside the folder. */
let binaries: string;
const VERSION = "2.0.0";
const BASE = "https://releases.example.com/formsvc";

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "formsvc-full-release-"));
  const key = throwawayKey(join(out, "..", `${out.split("/").at(-1)}.pem`));
  await release({ version: VERSION, baseUrl: BASE, key, out: join(out, "release"), platforms: "linux-x64,linux-arm64,darwin-x64,darwin-arm64" });
  rmSync(key);
  manifest = JSON.parse(readFileSync(join(out, "release", "manifest.json"), "utf8"));
  binaries = join(out, "release.binaries");
}, 600_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

test("the release holds the four binaries xz-compressed, each the platform's executable, listed in the signed manifest and SHA256SUMS", () => {
  const folder = join(out, "release");
  const names = ["formsvc-linux-x64", "formsvc-linux-arm64", "formsvc-darwin-x64", "formsvc-darwin-arm64"];
  expect(manifest.artifacts.map((a) => a.name)).toEqual(names);
  for (const artifact of manifest.artifacts) {
    const packed = join(folder, `${artifact.name}.xz`);
    const path = join(binaries, artifact.name);
    const unpacked = Bun.spawnSync(["xz", "-dc", packed], { stdout: "pipe" }).stdout;
    const seen: Record<string, unknown> = {
      size: readFileSync(path).length,
      sha256: fileSha256(path),
      unpacked: fileSha256(path) === createHash("sha256").update(unpacked).digest("hex"),
      xz: artifact.xz,
      xzSize: readFileSync(packed).length,
      xzSha256: fileSha256(packed),
    };
    expect(seen).toEqual({
      size: artifact.size,
      sha256: artifact.sha256,
      unpacked: true,
      xz: `${artifact.name}.xz`,
      xzSize: artifact.xzSize,
      xzSha256: artifact.xzSha256,
    });
  }
  // ELF with the machine's number (x86-64 62, AArch64 183), or 64-bit Mach-O with its CPU type.
  const head = (name: string) => readFileSync(join(binaries, name)).subarray(0, 20);
  expect(head("formsvc-linux-x64").readUInt16LE(18)).toBe(62);
  expect(head("formsvc-linux-arm64").readUInt16LE(18)).toBe(183);
  expect(head("formsvc-darwin-x64").readUInt32LE(0)).toBe(0xfeedfacf);
  expect(head("formsvc-darwin-x64").readUInt32LE(4)).toBe(0x01000007);
  expect(head("formsvc-darwin-arm64").readUInt32LE(4)).toBe(0x0100000c);
  const check = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: folder, stdout: "pipe" });
  expect(check.exitCode).toBe(0);
  // Four .xz files, install.sh, manifest.json and its two signatures, the image.
  expect(check.stdout.toString().trim().split("\n").length).toBe(9);
});

test("the arm64 binary answers version --json under qemu-aarch64-static", async () => {
  const qemu = Bun.which("qemu-aarch64-static");
  if (!qemu || !existsSync("/usr/aarch64-linux-gnu")) {
    throw new Error("needs qemu-aarch64-static and /usr/aarch64-linux-gnu: apt-get install qemu-user-static libc6-arm64-cross");
  }
  const answer = await run(qemu, ["-L", "/usr/aarch64-linux-gnu", join(binaries, "formsvc-linux-arm64"), "version", "--json"]);
  expect({ ...answer, stdout: answer.code === 0 ? JSON.parse(answer.stdout) : answer.stdout }).toEqual({
    code: 0,
    stdout: { version: VERSION, os: "linux", arch: "arm64", baseUrl: BASE, releaseKey: manifest.releaseKey, schema: migrations.length },
    stderr: "",
  });
});

test("the linux-x64 binary runs on a CPU without AVX2 (qemu-x86_64-static as a Nehalem)", async () => {
  const qemu = Bun.which("qemu-x86_64-static");
  if (!qemu) throw new Error("needs qemu-x86_64-static: apt-get install qemu-user-static");
  const db = join(out, "old-cpu.db");
  const made = await run(qemu, ["-cpu", "Nehalem", join(binaries, "formsvc-linux-x64"), "forms", "create", "--name", "Old", "--db", db, "--json"]);
  expect({ code: made.code, stderr: made.code === 0 ? "" : made.stderr, name: made.code === 0 ? JSON.parse(made.stdout).name : null }).toEqual({
    code: 0,
    stderr: "",
    name: "Old",
  });
});

test("podman loads the image archive: formsvc serve as user 10001, /data a volume, port 8080", async () => {
  const podman = Bun.which("podman");
  if (!podman) {
    console.warn("podman is not installed: the image was read as an OCI layout by npm test only (test/process/release-image.test.ts)");
    return;
  }
  const image = `formsvc:${VERSION}`;
  const loaded = await run(podman, ["load", "-i", join(out, "release", `formsvc-${VERSION}-linux-x64.oci.tar`)]);
  expect({ code: loaded.code, stderr: loaded.code === 0 ? "" : loaded.stderr }).toEqual({ code: 0, stderr: "" });
  try {
    const inspected = await run(podman, ["image", "inspect", image]);
    expect(inspected.code).toBe(0);
    const [config] = JSON.parse(inspected.stdout);
    expect(config.Config).toMatchObject({
      User: "10001:10001",
      ExposedPorts: { "8080/tcp": {} },
      Volumes: { "/data": {} },
      Entrypoint: ["/usr/local/bin/formsvc"],
      Cmd: ["serve"],
    });
    expect(config.Config.Env).toContain("FORMSVC_DB=/data/formsvc.db");
  } finally {
    await run(podman, ["rmi", "-f", image]);
  }
});
