// The image of a release, written without a container engine or a base image: an OCI image layout (oci-layout,
// index.json, blobs/sha256/…) in one tar, as `podman load` and `docker load` read it. Its one layer holds the
// linux-x64 binary, the libraries `ldd` names, /etc/passwd and /etc/group with the user it runs as, and /data
// owned by that user: no shell, no package manager.
import { createHash } from "node:crypto";
import { readFileSync, realpathSync, statSync } from "node:fs";

/** The user the image runs as; numeric in the config, and listed in the image's /etc/passwd. */
export const IMAGE_USER = { name: "formsvc", uid: 10001, gid: 10001 } as const;
/** Where the binary is in the image. */
export const IMAGE_BINARY = "/usr/local/bin/formsvc";

/** One entry of a tar archive. */
interface TarEntry {
  path: string;
  type: "file" | "dir";
  mode: number;
  uid?: number;
  gid?: number;
  data?: Uint8Array;
}

const octal = (value: number, width: number) => `${value.toString(8).padStart(width - 1, "0")}\0`;

/** A ustar header block for one entry (every name in the image is under 100 bytes). */
function tarHeader(entry: TarEntry, size: number, mtime: number): Uint8Array {
  const header = new Uint8Array(512);
  const put = (text: string, offset: number) => header.set(new TextEncoder().encode(text), offset);
  const name = entry.type === "dir" && !entry.path.endsWith("/") ? `${entry.path}/` : entry.path;
  if (name.length > 100) throw new Error(`${name} is too long for a tar header`);
  put(name, 0);
  put(octal(entry.mode, 8), 100);
  put(octal(entry.uid ?? 0, 8), 108);
  put(octal(entry.gid ?? 0, 8), 116);
  put(octal(size, 12), 124);
  put(octal(mtime, 12), 136);
  put("        ", 148);
  put(entry.type === "dir" ? "5" : "0", 156);
  put("ustar\u000000", 257);
  let sum = 0;
  for (const byte of header) sum += byte;
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return header;
}

/** A tar archive of the entries, in their order, every entry dated `mtime` (Unix seconds). */
export function tar(entries: TarEntry[], mtime: number): Uint8Array<ArrayBuffer> {
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    const data = entry.data ?? new Uint8Array();
    parts.push(tarHeader(entry, data.length, mtime), data);
    if (data.length % 512) parts.push(new Uint8Array(512 - (data.length % 512)));
  }
  parts.push(new Uint8Array(1024));
  return Buffer.concat(parts);
}

/** The shared libraries a dynamically linked binary loads, as `ldd` lists them (the loader included). */
export function sharedLibraries(binary: string): string[] {
  const ldd = Bun.spawnSync(["ldd", binary], { stdout: "pipe", stderr: "pipe" });
  const text = ldd.stdout.toString();
  if (ldd.exitCode !== 0) throw new Error(`ldd ${binary} failed: ${ldd.stderr.toString().trim() || text.trim()}`);
  return [...text.matchAll(/^\s*(?:\S+ => )?(\/\S+) \(0x[0-9a-f]+\)$/gm)].map((m) => m[1]!);
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** A blob of the layout and its descriptor. */
function blob(mediaType: string, bytes: Uint8Array) {
  const digest = `sha256:${sha256(bytes)}`;
  return { bytes, descriptor: { mediaType, digest, size: bytes.length } };
}

/** Every folder above a path, outermost first: /usr/local/bin → usr, usr/local. */
function parents(path: string): string[] {
  const segments = path.replace(/^\//, "").split("/").slice(0, -1);
  return segments.map((_, i) => segments.slice(0, i + 1).join("/"));
}

/** The root filesystem of the image: the binary, its libraries, the user, /data, /tmp and /proc to mount on. */
function rootfsLayer(binary: string, libraries: string[], mtime: number): Uint8Array<ArrayBuffer> {
  const { name, uid, gid } = IMAGE_USER;
  const files: TarEntry[] = [
    { path: IMAGE_BINARY.slice(1), type: "file", mode: 0o755, data: readFileSync(binary) },
    // The content of each library, at the path the binary asks for (the loader's path is written in the binary).
    ...libraries.map(
      (lib): TarEntry => ({ path: lib.slice(1), type: "file", mode: statSync(realpathSync(lib)).mode & 0o777, data: readFileSync(realpathSync(lib)) }),
    ),
    {
      path: "etc/passwd",
      type: "file",
      mode: 0o644,
      data: Buffer.from(`root:x:0:0:root:/:/sbin/nologin\n${name}:x:${uid}:${gid}:${name}:/data:/sbin/nologin\n`),
    },
    { path: "etc/group", type: "file", mode: 0o644, data: Buffer.from(`root:x:0:\n${name}:x:${gid}:\n`) },
  ];
  const dirs = new Set(files.flatMap((file) => parents(file.path.startsWith("/") ? file.path : `/${file.path}`)));
  const entries: TarEntry[] = [
    ...[...dirs].sort().map((path): TarEntry => ({ path, type: "dir", mode: 0o755 })),
    { path: "data", type: "dir", mode: 0o700, uid, gid },
    { path: "tmp", type: "dir", mode: 0o1777 },
    { path: "proc", type: "dir", mode: 0o555 },
    ...files,
  ];
  return tar(entries, mtime);
}

/**
 * The OCI image archive of a release: `formsvc serve` as a user that is not root, its database at
 * /data/formsvc.db (a volume), port 8080 exposed.
 */
export function imageArchive(options: { binary: string; version: string; createdAt: string }): Uint8Array {
  const mtime = Math.floor(Date.parse(options.createdAt) / 1000);
  const libraries = sharedLibraries(options.binary);
  const layerTar = rootfsLayer(options.binary, libraries, mtime);
  const layer = blob("application/vnd.oci.image.layer.v1.tar+gzip", Bun.gzipSync(layerTar));
  const config = blob(
    "application/vnd.oci.image.config.v1+json",
    Buffer.from(
      JSON.stringify({
        created: options.createdAt,
        architecture: "amd64",
        os: "linux",
        config: {
          User: `${IMAGE_USER.uid}:${IMAGE_USER.gid}`,
          Env: ["PATH=/usr/local/bin", "FORMSVC_DB=/data/formsvc.db", "FORMSVC_HOST=0.0.0.0", "FORMSVC_PORT=8080"],
          Entrypoint: [IMAGE_BINARY],
          Cmd: ["serve"],
          WorkingDir: "/data",
          ExposedPorts: { "8080/tcp": {} },
          Volumes: { "/data": {} },
          Labels: { "org.opencontainers.image.title": "formsvc", "org.opencontainers.image.version": options.version },
        },
        rootfs: { type: "layers", diff_ids: [`sha256:${sha256(layerTar)}`] },
        history: [{ created: options.createdAt, created_by: `formsvc release ${options.version}: the binary and ${libraries.length} libraries` }],
      }),
    ),
  );
  const manifest = blob(
    "application/vnd.oci.image.manifest.v1+json",
    Buffer.from(
      JSON.stringify({ schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json", config: config.descriptor, layers: [layer.descriptor] }),
    ),
  );
  const reference = `formsvc:${options.version}`;
  const index = {
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.index.v1+json",
    manifests: [
      {
        ...manifest.descriptor,
        platform: { architecture: "amd64", os: "linux" },
        annotations: { "org.opencontainers.image.ref.name": reference, "io.containerd.image.name": `docker.io/library/${reference}` },
      },
    ],
  };
  const path = (b: { descriptor: { digest: string } }) => `blobs/sha256/${b.descriptor.digest.slice("sha256:".length)}`;
  // Docker before version 25 reads its own manifest.json rather than the OCI index: both are there.
  const dockerManifest = [{ Config: path(config), RepoTags: [reference], Layers: [path(layer)] }];
  return tar(
    [
      { path: "oci-layout", type: "file", mode: 0o644, data: Buffer.from(JSON.stringify({ imageLayoutVersion: "1.0.0" })) },
      { path: "index.json", type: "file", mode: 0o644, data: Buffer.from(JSON.stringify(index)) },
      { path: "manifest.json", type: "file", mode: 0o644, data: Buffer.from(JSON.stringify(dockerManifest)) },
      { path: "blobs", type: "dir", mode: 0o755 },
      { path: "blobs/sha256", type: "dir", mode: 0o755 },
      ...[config, manifest, layer].map((b): TarEntry => ({ path: path(b), type: "file", mode: 0o644, data: b.bytes })),
    ],
    mtime,
  );
}
