import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { RELEASE_BUILD_MS, RELEASE_TEST_MS, testReleases } from "../release/support.ts";

// The image of release 1.0.0, read as an OCI image layout the way podman and docker read it, then its one layer
// unpacked as a root filesystem: the binary runs there, as the image's user, with nothing else beside it.
let layout: string;
let layerBytes: Buffer;
let binary: string;
let rootfs: string;

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const blob = (digest: string) => readFileSync(join(layout, "blobs", "sha256", digest.replace(/^sha256:/, "")));

beforeAll(async () => {
  const releases = await testReleases();
  binary = releases.binary("1.0.0");
  layout = mkdtempSync(join(tmpdir(), "formsvc-oci-"));
  const untar = Bun.spawnSync(["tar", "-xf", join(releases.folder("1.0.0"), "formsvc-1.0.0-linux-x64.oci.tar"), "-C", layout], { stderr: "pipe" });
  if (untar.exitCode !== 0) throw new Error(untar.stderr.toString());
  const manifest = JSON.parse(blob(JSON.parse(readFileSync(join(layout, "index.json"), "utf8")).manifests[0].digest).toString());
  layerBytes = gunzipSync(blob(manifest.layers[0].digest));
  rootfs = mkdtempSync(join(tmpdir(), "formsvc-rootfs-"));
}, RELEASE_BUILD_MS);

afterAll(() => {
  for (const dir of [layout, rootfs, `${rootfs}.tar`]) rmSync(dir, { recursive: true, force: true });
});

test(
  "the image archive is an OCI layout: every blob is what its digest says, and the config runs formsvc serve as a user that is not root",
  () => {
    expect(JSON.parse(readFileSync(join(layout, "oci-layout"), "utf8"))).toEqual({ imageLayoutVersion: "1.0.0" });
    const index = JSON.parse(readFileSync(join(layout, "index.json"), "utf8"));
    expect(index.manifests).toEqual([
      expect.objectContaining({
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        platform: { architecture: "amd64", os: "linux" },
        annotations: expect.objectContaining({ "org.opencontainers.image.ref.name": "formsvc:1.0.0" }),
      }),
    ]);
    const manifestBytes = blob(index.manifests[0].digest);
    expect(`sha256:${sha256(manifestBytes)}`).toBe(index.manifests[0].digest);
    const manifest = JSON.parse(manifestBytes.toString());
    for (const descriptor of [manifest.config, ...manifest.layers]) {
      expect({ digest: `sha256:${sha256(blob(descriptor.digest))}`, size: blob(descriptor.digest).length }).toEqual({
        digest: descriptor.digest,
        size: descriptor.size,
      });
    }
    expect(manifest.layers.map((l: { mediaType: string }) => l.mediaType)).toEqual(["application/vnd.oci.image.layer.v1.tar+gzip"]);
    expect(sha256(gunzipSync(blob(manifest.layers[0].digest)))).toBe(sha256(layerBytes));

    const config = JSON.parse(blob(manifest.config.digest).toString());
    expect(config).toMatchObject({ architecture: "amd64", os: "linux", rootfs: { type: "layers", diff_ids: [`sha256:${sha256(layerBytes)}`] } });
    expect(config.config).toEqual({
      User: "10001:10001",
      Env: ["PATH=/usr/local/bin", "FORMSVC_DB=/data/formsvc.db", "FORMSVC_HOST=0.0.0.0", "FORMSVC_PORT=8080"],
      Entrypoint: ["/usr/local/bin/formsvc"],
      Cmd: ["serve"],
      WorkingDir: "/data",
      ExposedPorts: { "8080/tcp": {} },
      Volumes: { "/data": {} },
      Labels: { "org.opencontainers.image.title": "formsvc", "org.opencontainers.image.version": "1.0.0" },
    });
  },
  RELEASE_TEST_MS,
);

test(
  "in a root filesystem holding only the image's layer (the binary and the libraries ldd names), as the image's user: version and /healthz",
  async () => {
    if (process.getuid?.() !== 0) {
      throw new Error(
        "this test needs root, to chroot and mount /proc (CI runs as root): run it as root; it cannot show the image's filesystem is enough otherwise",
      );
    }
    const layerTar = `${rootfs}.tar`;
    await Bun.write(layerTar, layerBytes);
    const list = Bun.spawnSync(["tar", "-tvf", layerTar], { stdout: "pipe" }).stdout.toString();
    const files = [...list.matchAll(/^(\S+) (\S+) .* (\S+)$/gm)].filter((m) => !m[1]!.startsWith("d"));
    const libraries = [
      ...Bun.spawnSync(["ldd", binary], { stdout: "pipe" })
        .stdout.toString()
        .matchAll(/(\/\S+) \(0x/g),
    ].map((m) => m[1]!.slice(1));
    // The binary, the libraries it loads, and the user it runs as: nothing else, no shell.
    expect(files.map((m) => m[3]).sort()).toEqual(["etc/group", "etc/passwd", "usr/local/bin/formsvc", ...libraries].sort());
    expect(Bun.spawnSync(["tar", "-xf", layerTar, "-C", rootfs]).exitCode).toBe(0);
    // A root filesystem's top is open to every user, as a container runtime makes it (mkdtemp's is not).
    chmodSync(rootfs, 0o755);
    expect(readFileSync(join(rootfs, "etc/passwd"), "utf8")).toContain("formsvc:x:10001:10001:");
    expect({ mode: (statSync(join(rootfs, "data")).mode & 0o777).toString(8), uid: statSync(join(rootfs, "data")).uid }).toEqual({ mode: "700", uid: 10001 });

    // A mount namespace of its own, so that /proc (which the binary reads itself from) is mounted there alone.
    mkdirSync(join(rootfs, "proc"), { recursive: true });
    const chrooted = (args: string[]) =>
      Bun.spawn(
        [
          "unshare",
          "--mount",
          "sh",
          "-c",
          'mount -t proc proc "$0/proc" && exec chroot --userspec=10001:10001 "$0" /usr/local/bin/formsvc "$@"',
          rootfs,
          ...args,
        ],
        { env: { FORMSVC_DB: "/data/formsvc.db", PATH: process.env.PATH ?? "/usr/bin:/bin" }, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
      );
    const version = chrooted(["version", "--json"]);
    const [out, err, code] = await Promise.all([new Response(version.stdout).text(), new Response(version.stderr).text(), version.exited]);
    expect({ code, err, version: code === 0 ? JSON.parse(out).version : out }).toEqual({ code: 0, err: "", version: "1.0.0" });

    const serve = chrooted(["serve", "--host", "127.0.0.1", "--port", "0"]);
    try {
      const reader = (serve.stderr as ReadableStream<Uint8Array>).getReader();
      let log = "";
      while (!/listening on \S+, (http:\/\/\S+)/.test(log)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`serve in the root filesystem exited: ${log}`);
        log += new TextDecoder().decode(value);
      }
      const url = /listening on \S+, (http:\/\/\S+)/.exec(log)![1]!;
      const health = await fetch(`${url}/healthz`);
      expect({ status: health.status, body: await health.json() }).toEqual({ status: 200, body: { status: "ok" } });
      expect(statSync(join(rootfs, "data", "formsvc.db")).uid).toBe(10001);
    } finally {
      serve.kill("SIGTERM");
      await serve.exited;
    }
  },
  RELEASE_TEST_MS,
);
