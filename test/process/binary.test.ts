import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ROOT } from "../helpers/cli.ts";

// The compiled binary, built once for this file, copied alone into an empty directory outside the
// repository and run with a PATH that holds neither node nor bun: what a user who downloads it has.
let buildDir: string;
let runDir: string;
let server: ReturnType<typeof Bun.spawn> | undefined;
const ENV = () => ({ PATH: join(runDir, "no-such-bin"), HOME: runDir });

beforeAll(async () => {
  buildDir = mkdtempSync(join(tmpdir(), "formsvc-build-"));
  runDir = mkdtempSync(join(tmpdir(), "formsvc-binary-"));
  const build = Bun.spawn([process.execPath, join(ROOT, "scripts", "build.ts"), "--outfile", join(buildDir, "formsvc")], { stdout: "pipe", stderr: "pipe" });
  if ((await build.exited) !== 0) throw new Error(`build failed: ${await new Response(build.stderr).text()}`);
  copyFileSync(join(buildDir, "formsvc"), join(runDir, "formsvc"));
  rmSync(buildDir, { recursive: true, force: true });
}, 60_000);

afterAll(async () => {
  server?.kill("SIGTERM");
  await server?.exited;
  rmSync(runDir, { recursive: true, force: true });
});

/** Runs ./formsvc in the run directory. */
async function formsvc(...args: string[]) {
  const proc = Bun.spawn(["./formsvc", ...args], { cwd: runDir, env: ENV(), stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

test("dist/formsvc runs alone from an empty directory: serve, keys, forms, a post, submissions", async () => {
  expect(Bun.which("node", { PATH: ENV().PATH })).toBeNull();
  expect(Bun.which("bun", { PATH: ENV().PATH })).toBeNull();

  // serve on a database that does not exist yet: it is made and migrated.
  server = Bun.spawn(["./formsvc", "serve", "--host", "127.0.0.1", "--port", "0", "--rate-limit", "0"], {
    cwd: runDir,
    env: ENV(),
    stdout: "ignore",
    stderr: "pipe",
  });
  const reader = (server.stderr as ReadableStream<Uint8Array>).getReader();
  let log = "";
  while (!log.includes("--name admin\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve exited: ${log}`);
    log += new TextDecoder().decode(value);
  }
  const url = /listening on \S+, (http:\/\/\S+)/.exec(log)![1]!;
  expect(log).toContain("No API keys yet. Make the first one with:\n  formsvc keys create --db ./formsvc.db --name admin\n");
  // The dashboard is in the binary: the setup link's page, its stylesheet and its script.
  const setup = /(http:\/\/\S+\/dashboard\/setup\?token=\S+)/.exec(log)![1]!;
  expect(await (await fetch(setup)).text()).toContain("Create user and sign in");
  expect(await (await fetch(`${url}/dashboard/assets/dashboard.css`)).text()).toContain("prefers-color-scheme: dark");
  expect(await (await fetch(`${url}/dashboard/assets/dashboard.js`)).text()).toContain("data-copy");
  // The ALTCHA widget's script travels inside the binary, byte for byte.
  const widget = await fetch(`${url}/altcha.js`);
  expect(widget.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
  expect(await widget.text()).toBe(await Bun.file(join(ROOT, "node_modules", "altcha", "dist", "main", "altcha.min.js")).text());

  const minted = await formsvc("keys", "create", "--name", "admin");
  expect(minted.code).toBe(0);
  const key = minted.stdout.trim();
  expect(key).toMatch(/^sk_live_\w{32,}$/);
  const remote = ["--url", url, "--key", key];

  const created = await formsvc("forms", "create", "--name", "Contact", "--slug", "contact", "--json", ...remote);
  expect(created.code).toBe(0);
  expect(JSON.parse(created.stdout)).toMatchObject({ slug: "contact", submitUrl: `${url}/f/contact` });

  const posted = await fetch(`${url}/f/contact`, {
    method: "POST",
    headers: { accept: "application/json" },
    body: new URLSearchParams({ email: "ada@example.com", name: "Ada" }),
  });
  expect(posted.status).toBe(200);
  const { id } = (await posted.json()) as { id: string };

  const listed = await formsvc("submissions", "list", "contact", "--since", "1h", ...remote);
  expect(listed).toEqual({ code: 0, stdout: expect.stringMatching(new RegExp(`^${id}\\t\\S+Z\\tunread\\tada@example.com\\tAda\\n$`)), stderr: "" });
  expect(await formsvc("submissions", "list", "contact", "--since", "1h")).toEqual(listed);

  // The MCP SDK is in the binary too, loaded by the first request to /mcp.
  const client = new Client({ name: "binary-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  const got = (await client.callTool({ name: "getForm", arguments: { id: "contact" } })) as { content: { text: string }[] };
  expect(JSON.parse(got.content[0]!.text)).toMatchObject({ slug: "contact" });
  await client.close();
});

test("the binary runs every other command too", async () => {
  const ok = async (...args: string[]) => {
    const result = await formsvc(...args);
    expect({ args, code: result.code, stderr: result.code === 0 ? "" : result.stderr }).toEqual({ args, code: 0, stderr: "" });
    return result.stdout;
  };
  // The build embeds the commit it was made from, so that two builds of one version can be told apart.
  const head = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
  expect(await ok("version")).toMatch(new RegExp(`^formsvc dev \\(commit ${head}(-dirty)?, bun \\S+, linux-\\w+, schema \\d+\\)\n$`));
  expect(await ok("--help")).toContain("Exit codes:");
  expect(await ok("accounts", "list")).toContain("default");
  expect(await ok("keys", "list")).toContain("admin");
  expect(await ok("forms", "list")).toContain("contact");
  await ok("forms", "update", "contact", "--email", "owner@example.com");
  expect(JSON.parse(await ok("forms", "get", "contact", "--json")).notificationEmail).toBe("owner@example.com");
  const sub = JSON.parse((await ok("submissions", "list", "contact", "--format", "ndjson")).trim()).id;
  expect(await ok("submissions", "get", "contact", sub)).toContain("data.email\tada@example.com");
  await ok("submissions", "mark", "contact", sub, "--read", "--star");
  expect(await ok("submissions", "export", "contact", "--format", "csv")).toStartWith("id,createdAt,email,name\n");
  // The forms file: pulled, then planned against the same instance, which it matches (a file outside the run directory).
  const pulled = join(mkdtempSync(join(tmpdir(), "formsvc-pulled-")), "formsvc.json");
  await Bun.write(pulled, await ok("pull"));
  expect(await formsvc("plan", "-f", pulled)).toEqual({ code: 0, stdout: "", stderr: "No changes: the forms are as the file says.\n" });
  expect(await ok("dashboard", "link")).toMatch(/\/dashboard\/setup\?token=\w+\n$/);
  expect(await ok("users", "list")).toBe("");
  await ok("backup", "copy.db");
  await ok("submissions", "delete", "contact", sub);
  await ok("forms", "delete", "contact", "--yes");
  expect(await formsvc("forms", "get", "contact")).toEqual({ code: 5, stdout: "", stderr: "formsvc: No form contact.\n" });
  expect(
    readdirSync(runDir)
      .filter((name) => !name.startsWith("formsvc"))
      .sort(),
  ).toEqual(["copy.db"]);
});
