import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..", "..");
export const CLI = join(ROOT, "cli", "formsvc.ts");

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI as a process (`bun cli/formsvc.ts …`), with a clean environment plus `env`. */
export async function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string; stdin?: string } = {}): Promise<RunResult> {
  const proc = Bun.spawn([process.execPath, CLI, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...options.env },
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}
