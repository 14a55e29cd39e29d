// Runs every bench in this folder, each in its own process so that one's memory does not colour the
// next's figures: `bun bench/run.ts`, or `bun bench/run.ts export` for the ones whose name matches.
import { readdirSync } from "node:fs";
import { join } from "node:path";

const only = process.argv.slice(2);
const benches = readdirSync(import.meta.dir)
  .filter((name) => name.endsWith(".ts") && name !== "run.ts")
  .filter((name) => only.length === 0 || only.some((word) => name.includes(word)))
  .sort();

let failed = 0;
for (const name of benches) {
  console.log(`\n== bench/${name}`);
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, name)], { stdout: "inherit", stderr: "inherit" });
  if ((await proc.exited) !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
