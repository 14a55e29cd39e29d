import { afterEach, expect, setSystemTime, test } from "bun:test";
import { testApp, type TestApp } from "../helpers/app.ts";
import { apiError } from "./scenario.ts";
import { flag, makeWorld, receive, type World } from "./world.ts";

afterEach(() => setSystemTime());

/** A world with a new form that got two submissions on 2026-11-20 (one later marked spam), one spam on 2026-11-22 and nothing on the 21st. */
async function withDays(t: TestApp): Promise<World> {
  const world = await makeWorld(t);
  // A fresh form: a submission's time never goes back before its form's last one.
  const w = { ...world, form: await world.account.form({ name: "Charted" }) };
  const at = async (time: string, data: Record<string, unknown>, isSpam = false) => {
    setSystemTime(new Date(time));
    return receive(t, w.form, data, isSpam);
  };
  await at("2026-11-20T08:00:00Z", { email: "a@example.com" });
  const marked = await at("2026-11-20T23:59:59Z", { email: "b@example.com" });
  await at("2026-11-22T00:00:00Z", { email: "spam@example.com" }, true);
  setSystemTime(new Date("2026-11-23T12:00:00Z"));
  await flag(t, w.account.id, w.form, marked, { isSpam: true });
  return w;
}

async function get(w: World, query: string, key = w.admin) {
  const response = await w.t.request("GET", `/api/forms/${w.form.id}/stats/daily${query}`, { key });
  return { status: response.status, body: await response.json() };
}

test("GET /api/forms/{id}/stats/daily: every day of the range, oldest first, 0 on a quiet day, as the counters stand now", async () => {
  const t = await testApp();
  try {
    const w = await withDays(t);
    expect(await get(w, "?since=2026-11-19&until=2026-11-22")).toEqual({
      status: 200,
      body: {
        formId: w.form.id,
        since: "2026-11-19",
        until: "2026-11-22",
        days: [
          { date: "2026-11-19", submissions: 0, spam: 0, views: 0 },
          { date: "2026-11-20", submissions: 1, spam: 1, views: 0 },
          { date: "2026-11-21", submissions: 0, spam: 0, views: 0 },
          { date: "2026-11-22", submissions: 0, spam: 1, views: 0 },
        ],
      },
    });
    // A time within a day names that day; the slug reaches the form as its id does.
    const bySlug = await w.t.request("GET", `/api/forms/${w.form.slug}/stats/daily?since=2026-11-20T13:00:00Z&until=2026-11-20`, { key: w.admin });
    expect((await bySlug.json()).days).toEqual([{ date: "2026-11-20", submissions: 1, spam: 1, views: 0 }]);
    // A span back from now names the day it falls on (now is 2026-11-23T12:00Z).
    expect((await get(w, "?since=2d&until=2026-11-22")).body.days).toEqual([
      { date: "2026-11-21", submissions: 0, spam: 0, views: 0 },
      { date: "2026-11-22", submissions: 0, spam: 1, views: 0 },
    ]);
  } finally {
    t.close();
  }
});

test("without since and until: the 30 days up to today", async () => {
  const t = await testApp();
  try {
    const w = await withDays(t);
    const { status, body } = await get(w, "");
    expect({ status, since: body.since, until: body.until, days: body.days.length }).toEqual({
      status: 200,
      since: "2026-10-25",
      until: "2026-11-23",
      days: 30,
    });
    expect(body.days.filter((d: { submissions: number; spam: number }) => d.submissions + d.spam > 0).map((d: { date: string }) => d.date)).toEqual([
      "2026-11-20",
      "2026-11-22",
    ]);
  } finally {
    t.close();
  }
});

test("a form-level key with read sees its own form's days", async () => {
  const t = await testApp();
  try {
    const w = await withDays(t);
    const key = await w.account.key({ type: "form", formId: w.form.id, permissions: ["read"] });
    expect((await get(w, "?since=2026-11-20&until=2026-11-20", key)).body.days).toEqual([{ date: "2026-11-20", submissions: 1, spam: 1, views: 0 }]);
  } finally {
    t.close();
  }
});

test("bad ranges are 400 invalid_parameter naming the parameter, never a 500", async () => {
  const t = await testApp();
  try {
    const w = await makeWorld(t);
    const cases: [string, string][] = [
      ["?since=yesterday", "since"],
      ["?until=2026-02-30", "until"],
      ["?since=2026-11-22&until=2026-11-21", "since"],
      ["?since=2025-01-01&until=2026-11-22", "since"],
    ];
    for (const [query, field] of cases) {
      expect({ query, ...(await get(w, query)) }).toEqual({ query, status: 400, body: apiError("invalid_parameter", field) });
    }
    // A year and a day is the longest range: a leap year fits.
    expect((await get(w, "?since=2024-01-01&until=2024-12-31")).body.days).toHaveLength(366);
  } finally {
    t.close();
  }
});
