// The settings of `forms create` and `forms update` read from JSON files: fields, spam rules, the confirmation
// email and the form's page. Each is checked by the API; here only that the file is there and is JSON.
import { readFileSync } from "node:fs";
import { CliError, EXIT } from "./errors.ts";
import type { Io } from "./io.ts";

/** The fields a form declares, from a JSON file holding their array (`[]` declares none). */
export function fieldsFromFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new CliError(`--fields-file: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, EXIT.usage);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(
      `--fields-file: ${path} is not JSON: it must hold an array of fields such as [{"name": "email", "type": "email", "required": true}]`,
      EXIT.usage,
    );
  }
}

/** The confirmation part of the body: the JSON of `--confirmation-file` (an object, or null to remove it), checked by the API. */
export async function withConfirmation(body: Record<string, unknown>, flags: { confirmationFile?: string }, io: Io): Promise<Record<string, unknown>> {
  if (flags.confirmationFile === undefined) return body;
  let text: string;
  try {
    text = flags.confirmationFile === "-" ? await io.input() : readFileSync(flags.confirmationFile, "utf8");
  } catch (error) {
    throw new CliError(`cannot read --confirmation-file ${flags.confirmationFile}: ${(error as Error).message}`, EXIT.usage);
  }
  try {
    return { ...body, confirmation: JSON.parse(text) };
  } catch {
    throw new CliError(
      `--confirmation-file ${flags.confirmationFile} is not JSON: it must hold an object such as {"enabled": true, "subject": "…", "text": "…"}, or null`,
      EXIT.usage,
    );
  }
}

/** The page part of the body: the JSON of `--page-file` (an object, or null to turn the page off), checked by the API. */
export async function withPage(body: Record<string, unknown>, flags: { pageFile?: string }, io: Io): Promise<Record<string, unknown>> {
  if (flags.pageFile === undefined) return body;
  let text: string;
  try {
    text = flags.pageFile === "-" ? await io.input() : readFileSync(flags.pageFile, "utf8");
  } catch (error) {
    throw new CliError(`cannot read --page-file ${flags.pageFile}: ${(error as Error).message}`, EXIT.usage);
  }
  try {
    return { ...body, page: JSON.parse(text) };
  } catch {
    throw new CliError(
      `--page-file ${flags.pageFile} is not JSON: it must hold an object such as {"enabled": true, "title": "Contact us"}, or null`,
      EXIT.usage,
    );
  }
}

/** The spam rules in a JSON file ({blockedWords, blockedEmails, ...}); '' or none clears them. */
export function spamRulesFrom(path: string): unknown {
  if (path === "" || path === "none") return null;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new CliError(`--spam-rules-file: cannot read ${path}: ${(error as Error).message}`, EXIT.usage);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(`--spam-rules-file: ${path} is not JSON such as {"blockedWords": ["casino"], "maxLinks": 2}`, EXIT.usage);
  }
}
