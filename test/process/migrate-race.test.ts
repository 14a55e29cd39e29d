import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SCHEMA_VERSION } from "../../src/db/migrate.ts";

// Processes started at the same moment on a new database (a service manager starting several instances): the
// database is migrated once, by one of them, and every one of them opens it.
const CLIENT = join(import.meta.dir, "../../src/db/client.ts");
const PROCESSES = 5;

/** Opens the store in a process of its own and prints what the open did to the schema. */
function open(location: string) {
  const script = `const { openStore } = await import(${JSON.stringify(CLIENT)});
    const store = await openStore(${JSON.stringify(location)});
    console.log(JSON.stringify(store.schema));
    store.close();`;
  return Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
}

for (const driver of ["sqlite", "libsql"] as const) {
  test(`${PROCESSES} processes opening a new database at once (${driver}): one migrates it, all open it`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "formsvc-migrate-"));
    try {
      for (let round = 0; round < 3; round++) {
        const file = join(dir, `round${round}.db`);
        const procs = Array.from({ length: PROCESSES }, () => open(driver === "libsql" ? `file:${file}` : file));
        const outcomes = await Promise.all(
          procs.map(async (proc) => ({
            code: await proc.exited,
            out: (await new Response(proc.stdout).text()).trim(),
            err: await new Response(proc.stderr).text(),
          })),
        );
        expect(outcomes.filter((o) => o.code !== 0)).toEqual([]);
        const schemas = outcomes.map((o) => JSON.parse(o.out) as { from: number; to: number });
        expect(schemas.filter((s) => s.from === 0)).toEqual([{ from: 0, to: SCHEMA_VERSION }]);
        expect(schemas.every((s) => s.to === SCHEMA_VERSION)).toBe(true);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
