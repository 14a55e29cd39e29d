#!/usr/bin/env bun
import { processIo } from "./io.ts";
import { main } from "./program.ts";

process.exitCode = await main(process.argv.slice(2), processIo());
