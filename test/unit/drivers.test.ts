import { afterEach, describe, expect, test } from "bun:test";
import { testApp, type Driver, type TestApp } from "../helpers/app.ts";
import { sql } from "drizzle-orm";
import { openStore } from "../../src/db/client.ts";
import { SCHEMA_VERSION } from "../../src/db/migrate.ts";

// The same scenario on both storage drivers: the embedded SQLite file and a libSQL database (here a libSQL
// file URL, the same client that talks to a libSQL server).
for (const driver of ["sqlite", "libsql"] as Driver[]) {
  describe(`on ${driver}`, () => {
    let t: TestApp;
    afterEach(() => t.close());

    test("forms, submissions, flags, counters and delete behave the same", async () => {
      t = await testApp({ driver });
      const account = await t.account();
      const key = await account.key();
      const created = await t.request("POST", "/api/forms", { key, body: { name: "Contact", slug: "contact" } });
      expect(created.status).toBe(201);
      const posts = await Promise.all(
        ["a", "b", "c"].map((name) => t.request("POST", "/f/contact", { body: { name }, headers: { accept: "application/json" } })),
      );
      expect(posts.map((r) => r.status)).toEqual([200, 200, 200]);
      const ids = await Promise.all(posts.map(async (r) => ((await r.json()) as { id: string }).id));

      const starred = await t.request("PATCH", `/api/forms/contact/submissions/${ids[1]}`, { key, body: { isStarred: true, isRead: true } });
      expect(((await starred.json()) as { isStarred: boolean }).isStarred).toBe(true);
      const spam = await t.request("PATCH", `/api/forms/contact/submissions/${ids[2]}`, { key, body: { isSpam: true } });
      expect(spam.status).toBe(200);

      const totals: Record<string, number> = {};
      for (const filter of ["all", "unread", "starred", "spam"]) {
        const page = (await (await t.request("GET", `/api/forms/contact/submissions?filter=${filter}`, { key })).json()) as { pagination: { total: number } };
        totals[filter] = page.pagination.total;
      }
      expect(totals).toEqual({ all: 2, unread: 1, starred: 1, spam: 1 });

      const form = (await (await t.request("GET", "/api/forms/contact", { key })).json()) as { submissionCount: number };
      expect(form.submissionCount).toBe(2);

      expect((await t.request("DELETE", "/api/forms/contact", { key })).status).toBe(204);
      expect((await t.request("GET", "/api/forms/contact", { key })).status).toBe(404);
    });
  });
}

test("libSQL file: every connection zeroes deleted content, enforces foreign keys and syncs each commit, the one beside a write too", async () => {
  const t = await testApp({ driver: "libsql" });
  try {
    const store = t.services.store;
    const settings = async () => ({
      secureDelete: ((await store.db.all(sql`PRAGMA secure_delete`)) as { secure_delete: number }[])[0]!.secure_delete,
      foreignKeys: ((await store.db.all(sql`PRAGMA foreign_keys`)) as { foreign_keys: number }[])[0]!.foreign_keys,
      synchronous: ((await store.db.all(sql`PRAGMA synchronous`)) as { synchronous: number }[])[0]!.synchronous,
    });
    const expected = { secureDelete: 1, foreignKeys: 1, synchronous: 2 };
    expect(await settings()).toEqual(expected);
    // A write holds its connection while it runs: what runs meanwhile takes another of the pool's.
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    const write = store.write(() => holding);
    await Bun.sleep(20);
    const beside = await Promise.all([settings(), settings(), settings()]);
    release();
    await write;
    expect(beside).toEqual([expected, expected, expected]);
  } finally {
    t.close();
  }
});

test("libSQL in memory (file::memory:, one connection) opens and migrates", async () => {
  const store = await openStore("file::memory:");
  try {
    expect(store.schema).toEqual({ from: 0, to: SCHEMA_VERSION });
  } finally {
    store.close();
  }
});
