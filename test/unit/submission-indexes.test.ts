import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "../../src/db/client.ts";
import { createServices, type Services } from "../../src/services/index.ts";
import { FILTERS, PAYMENT_LISTS, type Filter, type Order } from "../../src/services/submissions/submissions.ts";
import { UNCOUNTED } from "../../src/services/submissions/pages.ts";
import type { Principal } from "../../src/domain/types.ts";
import { operator } from "../../src/services/principal.ts";

/**
 * The requirement: indexes serve every list filter and order without a sort or a scan of other
 * forms. Checked on the very statements the service runs (caught at prepare), with EXPLAIN QUERY PLAN.
 */

interface Statement {
  sql: string;
  params: unknown[];
}

let dir: string;
let store: Store;
let services: Services;
let owner: Principal;
let formId: string;
const ROWS_PER_FORM = 1200; // more than one export batch in every filter

// Records every statement run on any bun:sqlite connection, with its parameters.
const recorded: Statement[] = [];
const originalPrepare = Database.prototype.prepare;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "formsvc-plan-"));
  store = await openStore(join(dir, "formsvc.db"));
  services = createServices(store, { baseUrl: () => "http://x", submitUrl: () => "http://x" });
  const account = await services.accounts.create("plans");
  owner = operator(account.id, "live");
  formId = (await services.forms.create(owner, { name: "Busy" })).id;
  const neighbour = (await services.forms.create(owner, { name: "Neighbour" })).id;
  // Rows go straight in (the plan does not depend on counters): half spam, the rest unread and starred, a second
  // apart (40 minutes), so that a deep page reads the minute counters too.
  const raw = new Database(join(dir, "formsvc.db"));
  const insert = raw.prepare("INSERT INTO submissions (id, form_id, data, created_at, is_read, is_starred, is_spam) VALUES (?, ?, '{}', ?, 0, 1, ?)");
  raw.transaction(() => {
    for (let i = 0; i < ROWS_PER_FORM * 2; i++) {
      for (const form of [formId, neighbour]) insert.run(`sub_${form}_${String(i).padStart(6, "0")}`, form, 1_700_000_000_000 + i * 1000, i % 2);
    }
    // The counters the service keeps on write, set as it would have: the list reads them to find its pages.
    raw.exec(`INSERT INTO submission_days (form_id, day, submission_count, spam_count, unread_count, starred_count)
      SELECT form_id, created_at / 86400000, sum(is_spam = 0), sum(is_spam = 1), sum(is_spam = 0 AND is_read = 0), sum(is_spam = 0 AND is_starred = 1)
      FROM submissions GROUP BY form_id, created_at / 86400000`);
    raw.exec(`INSERT INTO submission_minutes (form_id, minute, submission_count, spam_count, unread_count, starred_count)
      SELECT form_id, created_at / 60000, sum(is_spam = 0), sum(is_spam = 1), sum(is_spam = 0 AND is_read = 0), sum(is_spam = 0 AND is_starred = 1)
      FROM submissions GROUP BY form_id, created_at / 60000`);
    raw.exec(`UPDATE forms SET submission_count = (SELECT sum(submission_count) FROM submission_days d WHERE d.form_id = forms.id),
      spam_count = (SELECT sum(spam_count) FROM submission_days d WHERE d.form_id = forms.id),
      unread_count = (SELECT sum(unread_count) FROM submission_days d WHERE d.form_id = forms.id),
      starred_count = (SELECT sum(starred_count) FROM submission_days d WHERE d.form_id = forms.id)`);
  })();
  raw.close();

  Database.prototype.prepare = function (this: Database, sql: string, ...rest: unknown[]) {
    const statement = (originalPrepare as (...args: unknown[]) => ReturnType<Database["prepare"]>).call(this, sql, ...rest);
    for (const method of ["all", "get", "values", "run", "iterate"] as const) {
      const run = statement[method].bind(statement) as (...params: unknown[]) => unknown;
      (statement as unknown as Record<string, unknown>)[method] = (...params: unknown[]) => {
        recorded.push({ sql, params });
        return run(...params);
      };
    }
    return statement;
  } as Database["prepare"];
});

afterAll(() => {
  Database.prototype.prepare = originalPrepare;
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The statements on the submissions table that `work` runs. */
async function statementsOf(work: () => Promise<unknown>): Promise<Statement[]> {
  recorded.length = 0;
  await work();
  return recorded.filter((s) => /from "submissions"/i.test(s.sql));
}

/** The query plan's lines for one statement, on a connection of its own. */
function planOf(statement: Statement): string[] {
  const db = new Database(join(dir, "formsvc.db"), { readonly: true });
  try {
    const rows = db.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(...(statement.params as [])) as { detail: string }[];
    return rows.map((row) => row.detail);
  } finally {
    db.close();
  }
}

/** Each line must search one of the form's indexes by form_id, and none may sort. */
function expectIndexedWithoutSort(statement: Statement, indexFor: Filter | "payment"): void {
  const plan = planOf(statement);
  const wanted =
    indexFor === "spam" || indexFor === "all"
      ? "submissions_form_spam"
      : indexFor === "awaiting_payment"
        ? "submissions_form_payment"
        : indexFor === "payment"
          ? "submissions_form_payment"
          : `submissions_form_${indexFor}`;
  expect({ sql: statement.sql, plan }).toEqual({
    sql: statement.sql,
    plan: [expect.stringMatching(new RegExp(`^SEARCH submissions USING (COVERING )?INDEX ${wanted} \\(form_id=\\?`))],
  });
  expect(plan.join("\n")).not.toContain("TEMP B-TREE");
}

const drain = async (rows: AsyncIterable<unknown>) => {
  let n = 0;
  for await (const _ of rows) n++;
  return n;
};

describe("every list filter and order is served by an index, with no sort and no other form's rows", () => {
  for (const analyzed of [false, true]) {
    // Unconfirmed submissions (double opt-in) and those awaiting payment have no counter and are counted as listed: see the tests below.
    for (const filter of FILTERS.filter((f) => !UNCOUNTED.includes(f))) {
      for (const order of ["asc", "desc"] as Order[]) {
        for (const since of [null, 1_700_000_000_500]) {
          const name = `${analyzed ? "after ANALYZE: " : ""}filter=${filter} order=${order}${since ? " since" : ""}`;
          test(`${name}: list`, async () => {
            if (analyzed) await store.write(async (tx) => tx.run("ANALYZE" as never));
            const statements = await statementsOf(() =>
              services.submissions.list(owner, formId, { filter, order, since, limit: 50, offset: 100, after: null }),
            );
            // The page, and with since a count of what it matches.
            expect(statements).toHaveLength(since === null ? 1 : 2);
            for (const statement of statements) expectIndexedWithoutSort(statement, filter);
          });

          test(`${name}: export`, async () => {
            const statements = await statementsOf(async () => {
              const exported = await services.submissions.export(owner, formId, { filter, order, since });
              expect(await drain(exported.submissions)).toBeGreaterThan(500);
            });
            // The first batch and the batches after a cursor.
            expect(statements.length).toBeGreaterThanOrEqual(2);
            for (const statement of statements) expectIndexedWithoutSort(statement, filter);
          });
        }
      }
    }
  }
});

test("a deep offset and a since read the minute counters of one form's day by its key, with no sort", async () => {
  for (const filter of FILTERS.filter((f) => !UNCOUNTED.includes(f))) {
    for (const order of ["asc", "desc"] as Order[]) {
      recorded.length = 0;
      await services.submissions.list(owner, formId, { filter, order, since: 1_700_000_000_500, limit: 50, offset: 100, after: null });
      const minutes = recorded.filter((s) => /from "submission_minutes"/i.test(s.sql));
      // The count of since's day after its minute, and the minute the offset falls in.
      expect({ filter, order, statements: minutes.length }).toEqual({ filter, order, statements: 2 });
      for (const statement of minutes) {
        const plan = planOf(statement);
        expect({ sql: statement.sql, plan }).toEqual({
          sql: statement.sql,
          plan: expect.arrayContaining([expect.stringMatching(/^SEARCH submission_minutes USING INDEX \S+ \(form_id=\? AND minute>\? AND minute<\?\)$/)]),
        });
        expect(plan.join("\n")).not.toMatch(/TEMP B-TREE|SCAN submission_minutes/);
      }
    }
  }
});

test("the unconfirmed list (double opt-in) reads its own partial index, page and count, with no sort", async () => {
  for (const order of ["asc", "desc"] as Order[]) {
    const statements = await statementsOf(() =>
      services.submissions.list(owner, formId, { filter: "unconfirmed", order, since: null, limit: 50, offset: 0, after: null }),
    );
    expect(statements).toHaveLength(2);
    for (const statement of statements) expectIndexedWithoutSort(statement, "unconfirmed");
  }
});

test("the lists by payment (awaiting_payment, payment=paid|expired|refunded) read the payment's partial index, page and count, with no sort", async () => {
  for (const order of ["asc", "desc"] as Order[]) {
    const queries = [{ filter: "awaiting_payment" as Filter, payment: null }, ...PAYMENT_LISTS.map((payment) => ({ filter: "all" as Filter, payment }))];
    for (const query of queries) {
      const statements = await statementsOf(() =>
        services.submissions.list(owner, formId, { ...query, order, since: null, limit: 50, offset: 0, after: null }),
      );
      expect(statements).toHaveLength(2);
      for (const statement of statements) expectIndexedWithoutSort(statement, "payment");
    }
  }
});
