#!/usr/bin/env bun
import { processIo } from "./io.ts";
import { main } from "./program.ts";

// A reader that stops early (`| head`) closes the pipe: that is the reader's choice, not an error to report.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2), processIo());
