import { describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";

// The commands of users and dashboard are tested in-process (test/cli/users.test.ts); this one reads what serve
// itself prints.
describe("a setup link once a user exists", () => {
  test("is refused, even unused: it only ever makes the first user", async () => {
    const fresh = await startServerProcess();
    try {
      const link = /(http:\/\/\S+\/dashboard\/setup\?token=\S+)/.exec(await waitFor(fresh, /setup\?token=\S+\n/))![1]!;
      expect((await fetch(link)).status).toBe(200);
      expect((await runCli(["users", "create", "ann@example.com", "--password-stdin", "--db", fresh.db], { stdin: "a long enough password" })).code).toBe(0);
      expect((await fetch(link)).status).toBe(410);
    } finally {
      await fresh.stop();
      rmSync(fresh.dir, { recursive: true, force: true });
    }
  });
});

/** The server's stderr once it shows `pattern`. */
async function waitFor(server: ServerProcess, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 250 && !pattern.test(server.stderr()); i++) await Bun.sleep(20);
  return server.stderr();
}
