import { relative } from "node:path";

/** How the person who started this program runs formsvc: `npx bun cli/formsvc.ts` in a source checkout, else `formsvc`. */
export function selfCommand(): string {
  const entry = relative(process.cwd(), Bun.main);
  return entry.endsWith(".ts") && !entry.startsWith("..") ? `npx bun ${entry}` : "formsvc";
}
