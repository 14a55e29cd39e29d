// Writes the tables of serve's settings from src/config-settings.ts: the production ones into README.md, the ones
// only tests need into docs/cli.md, each between its markers. `bun scripts/settings-table.ts`;
// test/unit/settings.test.ts fails while either file says something else.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { flagName, SETTINGS } from "../src/config-settings.ts";

const root = join(import.meta.dir, "..");

/** Where each table lives, and which settings it lists. */
export const TABLES = [
  { file: "README.md", testOnly: false },
  { file: "docs/cli.md", testOnly: true },
] as const;

const START = "<!-- settings table: made by scripts/settings-table.ts from src/config-settings.ts -->";
const END = "<!-- end of settings table -->";

/** The markdown table of the production settings, or of the test-only ones. */
export function settingsTable(testOnly: boolean): string {
  const rows = Object.values(SETTINGS)
    .filter((declared) => "testOnly" in declared === testOnly)
    .map((declared) => {
      const fallback = declared.shown ?? (declared.flag.includes("<") ? `\`${declared.default}\`` : "off");
      return `| \`--${flagName(declared.flag)}\` | \`${declared.env}\` | ${fallback} | ${declared.help} |`;
    });
  return ["| flag | environment | default | meaning |", "|---|---|---|---|", ...rows].join("\n");
}

/** Where a file's table lies (between its markers), or undefined when it has no markers. */
function span(text: string): { from: number; to: number } | undefined {
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  return from < 0 || to < from ? undefined : { from: from + START.length, to };
}

/** The table as a file has it now, between its markers. */
export function tableIn(text: string): string | undefined {
  const at = span(text);
  return at && text.slice(at.from, at.to).trim();
}

if (import.meta.main) {
  for (const { file, testOnly } of TABLES) {
    const path = join(root, file);
    const text = readFileSync(path, "utf8");
    const at = span(text);
    if (!at) throw new Error(`${file} has no settings table markers (${START} … ${END})`);
    writeFileSync(path, `${text.slice(0, at.from)}\n${settingsTable(testOnly)}\n${text.slice(at.to)}`);
    console.error(`wrote the settings table of ${file}`);
  }
}
