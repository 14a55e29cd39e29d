// formsvc on PostgreSQL as a person runs it: the CLI's commands on a postgres:// URL, and a server that keeps
// answering (503, never 500) while the database is stopped for a few seconds and serves again once it is back.
import { afterAll, afterEach, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { freshPostgres, postgresServer } from "../helpers/postgres.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";

const drops: (() => Promise<void>)[] = [];
const servers: ServerProcess[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});
afterAll(async () => {
  for (const drop of drops) await drop();
});

const PASSWORD = /formsvc-test/;

test("migrate, keys and forms on a postgres:// URL; backup refuses it with exit 2 naming pg_dump; the password is never printed", async () => {
  const database = await freshPostgres({ empty: true });
  drops.push(database.drop);
  const migrated = await runCli(["migrate", "--db", database.url]);
  expect(migrated.code).toBe(0);
  expect(migrated.stderr).toContain("postgres://postgres:***@");
  expect(migrated.stderr).toMatch(/schema version 0 → \d+/);
  expect(`${migrated.stdout}${migrated.stderr}`).not.toMatch(PASSWORD);

  const minted = await runCli(["keys", "create", "--db", database.url]);
  expect(minted.code).toBe(0);
  expect(minted.stdout.trim()).toMatch(/^sk_live_/);
  const made = await runCli(["forms", "create", "--db", database.url, "--name", "Contact"]);
  expect(made.code).toBe(0);
  const listed = await runCli(["forms", "list", "--db", database.url, "--json"]);
  expect(listed.code).toBe(0);
  expect((JSON.parse(listed.stdout) as { name: string }[]).map((form) => form.name)).toEqual(["Contact"]);

  const backup = await runCli(["backup", "/nonexistent/copy.db", "--db", database.url]);
  expect(backup.code).toBe(2);
  expect(backup.stderr).toContain("pg_dump");
  expect(`${backup.stdout}${backup.stderr}`).not.toMatch(PASSWORD);
});

test("PostgreSQL stopped: posts and /healthz get 503 unavailable with Retry-After, never a 500, and the server serves again without a restart", async () => {
  const database = await freshPostgres();
  drops.push(database.drop);
  const pg = await postgresServer();
  const server = await startServerProcess({ db: database.url });
  servers.push(server);
  const key = (await runCli(["keys", "create", "--db", database.url])).stdout.trim();
  const created = await fetch(`${server.url}/api/forms`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Faults" }),
  });
  const form = (await created.json()) as { id: string; submitUrl: string };

  const statuses: number[] = [];
  const stored: string[] = [];
  let seq = 0;
  const post = async () => {
    const answer = await fetch(form.submitUrl, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json" },
      body: JSON.stringify({ email: `p${seq}@example.com`, seq: seq++ }),
    });
    statuses.push(answer.status);
    if (answer.status === 200) stored.push(((await answer.json()) as { id: string }).id);
    else
      expect({ status: answer.status, retryAfter: answer.headers.get("retry-after"), body: await answer.text() }).toEqual({
        status: 503,
        retryAfter: "2",
        body: expect.any(String),
      });
    return answer.status;
  };

  for (let i = 0; i < 5; i++) expect(await post()).toBe(200);
  await pg.stop();
  try {
    // Posts while the database is down: each answered 503 (the process stays up and answers).
    for (let i = 0; i < 5; i++) expect(await post()).toBe(503);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { error: { code: string } }).error.code).toBe("unavailable");
  } finally {
    await pg.start();
  }
  // Back by itself: posts succeed again once the pool reconnects.
  let recovered = false;
  for (let i = 0; i < 200 && !recovered; i++) recovered = (await post()) === 200;
  expect(recovered).toBe(true);
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);

  // Every post answered 200 is stored, once.
  const listed = await fetch(`${server.url}/api/forms/${form.id}/submissions?limit=100`, { headers: { authorization: `Bearer ${key}` } });
  const ids = ((await listed.json()) as { submissions: { id: string }[] }).submissions.map((submission) => submission.id);
  expect(ids.sort()).toEqual(stored.sort());
});
