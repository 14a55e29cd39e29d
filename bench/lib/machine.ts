// The machine a bench ran on, printed with its figures: they mean little without it.
import { cpus, freemem, loadavg, totalmem } from "node:os";

/** One line: cores, CPU model, memory, and the load average when the bench started (others' work included). */
export function machineLine(): string {
  const gb = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  const load = loadavg()
    .map((n) => n.toFixed(2))
    .join(", ");
  return `machine: ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown CPU"}, ${gb(totalmem())} memory (${gb(freemem())} free); load average ${load}; Bun ${Bun.version}`;
}
