import { expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../helpers/cli.ts";
import { startServerProcess } from "../helpers/server.ts";

// `bun /path/to/cli/formsvc.ts serve`, started from another folder: Bun reads tsconfig.json (and so the JSX
// runtime) from the working directory, so the dashboard's files name theirs themselves.
test("the dashboard answers when the server runs from source in another folder", async () => {
  const server = await startServerProcess({ cwd: tmpdir() });
  try {
    const answer = await fetch(`${server.url}/dashboard/signin`);
    expect({ status: answer.status, stderr: server.stderr() }).toEqual({ status: 200, stderr: expect.not.stringContaining("Cannot find package") });
  } finally {
    await server.stop();
    rmSync(server.dir, { recursive: true, force: true });
  }
});

test("every .tsx file names its JSX runtime", () => {
  const files = readdirSync(join(ROOT, "src"), { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".tsx"));
  expect(files.length).toBeGreaterThan(0);
  expect(files.filter((name) => !readFileSync(join(ROOT, "src", name), "utf8").startsWith("/** @jsxImportSource hono/jsx */\n"))).toEqual([]);
});
