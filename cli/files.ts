import type { Command } from "commander";
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Submission } from "../src/domain/types.ts";
import { ApiError } from "../src/errors.ts";
import { fileRefsOf, safeFileName } from "../src/lib/files.ts";
import { withBackend, type ConnectionOptions } from "./backend.ts";
import { CliError } from "./errors.ts";
import type { Io } from "./io.ts";
import { cellText } from "./output.ts";

/** `name (1).ext`, `name (2).ext`, ...: the names tried after `name.ext` is taken. */
function alternative(name: string, n: number): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}

/**
 * Creates a new file in `dir` for `name`, never replacing one that is there (O_EXCL): the first free name of
 * name.ext, name (1).ext, ... Owner-only, as the database is: it holds what people sent.
 */
function createFree(dir: string, name: string): { path: string; fd: number } {
  for (let n = 0; n < 1000; n++) {
    const path = join(dir, n === 0 ? name : alternative(name, n));
    try {
      return { path, fd: openSync(path, "wx", 0o600) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw new CliError(`cannot write ${path}: ${(error as Error).message}`);
    }
  }
  throw new CliError(`cannot find a free name for ${name} in ${dir}`);
}

/**
 * Downloads every file of a submission into --output (default: the current directory), each under its safe
 * name; a name already taken is never overwritten: the file is saved under the next free name, and stderr says so.
 * Prints each path written on stdout.
 */
export async function runSubmissionFiles(ref: string, id: string, flags: { output?: string }, globals: ConnectionOptions, io: Io): Promise<void> {
  const dir = flags.output ?? ".";
  await withBackend(globals, io.env, async (backend) => {
    const submission = await backend.call<Submission>("getSubmission", { params: { id: ref, submissionId: id } });
    const files = fileRefsOf(submission.data);
    if (files.length === 0) {
      io.err(`Submission ${submission.id} has no files.\n`);
      return;
    }
    mkdirSync(dir, { recursive: true });
    let saved = 0;
    for (const { field, ref: file } of files) {
      let content: AsyncIterable<Uint8Array>;
      try {
        content = await backend.download("downloadFile", { params: { id: ref, submissionId: submission.id, fileId: file.file } });
      } catch (error) {
        // A file object that is not a stored file (a JSON post can send any object): said, and skipped.
        if (error instanceof ApiError && error.code === "not_found") {
          io.err(`Skipped ${cellText(file.name)} (field ${cellText(field)}): ${file.file} is not a stored file of this submission.\n`);
          continue;
        }
        throw error;
      }
      const name = safeFileName(file.name);
      const { path, fd } = createFree(dir, name);
      try {
        for await (const chunk of content) writeSync(fd, chunk);
        closeSync(fd);
      } catch (error) {
        closeSync(fd);
        rmSync(path, { force: true });
        throw new CliError(`download of ${name} stopped: ${(error as Error).message}`);
      }
      if (path !== join(dir, name)) io.err(`${cellText(name)} already exists in ${dir}: saved as ${cellText(path)} instead.\n`);
      io.out(`${cellText(path)}\n`);
      saved += 1;
    }
    const where = dir === "." ? "the current directory" : cellText(dir);
    io.err(`Downloaded ${saved} of ${files.length} file${files.length === 1 ? "" : "s"} of ${submission.id} into ${where}.\n`);
  });
}

/** `formsvc submissions files FORM SUBMISSION [--output DIR]`. */
export function filesCommand(submissions: Command, io: Io): void {
  submissions
    .command("files <form> <submission>")
    .description("download the files of a submission (never overwriting a file already there)")
    .option("--output <dir>", "the directory to save them in (default: the current directory; made if missing)")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc submissions files jobs sub_01jd3k4m5n6p7q8r9s0t1v2w3x\n  formsvc submissions files jobs sub_01jd3k4m5n6p7q8r9s0t1v2w3x --output ./cvs\n",
    )
    .action((ref: string, id: string, flags: { output?: string }, command: Command) => runSubmissionFiles(ref, id, flags, command.optsWithGlobals(), io));
}
