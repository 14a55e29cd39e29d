import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import { runCli } from "../helpers/cli.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import type { ServerProcess } from "../helpers/server.ts";
import { type Dashboard, expectAccessible, screenshot, setUp, setupLink, startDashboard, WAIT } from "./dashboard-support.ts";

// Every page of the dashboard, in a real Chromium at 1280 and 390 px, on an account with a life behind it: a
// form of ten fields and a hundred submissions with files, webhooks whose receiver fails, a team, a month of
// activity. Each page must fit (nothing scrolls sideways outside a scroll area, no table cell cut without its
// whole text in a title, dates on one line), pass axe, and read as intended.

// Seeding posts a hundred submissions and drives many pages at two widths with axe, on a shared machine.
setDefaultTimeout(240_000);

let dashboard: Dashboard;
let server: ServerProcess;
let page: Page;
let failing: Receiver;
let working: Receiver;
let key = "";
let formId = "";
let withFiles = "";
let spamId = "";
let memberId = "";
let invitationUrl = "";
let newsletterId = "";
const LONG_EMAIL = "alexandra.konstantinopoulou-whitfield@recruiting.example-company.co.uk";

const FIELDS = [
  { name: "name", label: "Full name", type: "text", required: true, maxLength: 100 },
  { name: "email", label: "Email", type: "email", required: true },
  { name: "phone", label: "Phone", type: "tel" },
  { name: "role", label: "Role applied for", type: "select", options: ["Engineer", "Designer", "Support"], required: true },
  { name: "start", label: "Start date", type: "date" },
  { name: "salary", label: "Salary expectation", type: "number", min: 0 },
  { name: "website", label: "Portfolio", type: "url" },
  { name: "message", label: "Cover letter", type: "textarea", maxLength: 5000 },
  { name: "consent", label: "I agree to the privacy policy", type: "checkbox", required: true },
  { name: "cv", label: "CV", type: "file" },
];

const api = async (method: string, path: string, body?: unknown) => {
  const answer = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!answer.ok) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as Record<string, unknown>;
};

// A 1×1 PNG: a file the submission page previews.
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

/** One application as a visitor's browser posts it: every field, a CV, and now and then words of a spammer. */
async function apply(n: number): Promise<string> {
  const body = new FormData();
  const spam = n % 10 === 7;
  body.set("name", `${["Ada", "Grace", "Alan", "Edsger", "Barbara"][n % 5]} Applicant ${n}`);
  body.set("email", n === 3 ? "dana@example.com" : `applicant${n}@example.com`);
  body.set("phone", "+44 20 7946 0958");
  body.set("role", ["Engineer", "Designer", "Support"][n % 3]!);
  body.set("start", "2027-01-04");
  body.set("salary", String(50_000 + n * 100));
  body.set("website", `https://portfolio.example.com/applicants/${n}/a-rather-long-path-to-their-work`);
  body.set("message", spam ? "Win big at our casino tonight" : `I would like to join the team. ${"I have worked on forms for years. ".repeat(n % 4)}`);
  body.set("consent", "on");
  body.set(
    "cv",
    n % 2 ? new File([PNG], `photo-${n}.png`, { type: "image/png" }) : new File([`CV of applicant ${n}`], `cv-${n}.pdf`, { type: "application/pdf" }),
  );
  const answer = await fetch(`${server.url}/f/jobs`, { method: "POST", body, headers: { accept: "application/json" } });
  if (!answer.ok) throw new Error(`post ${n}: ${answer.status} ${await answer.text()}`);
  return ((await answer.json()) as { id: string }).id;
}

beforeAll(async () => {
  dashboard = await startDashboard({ args: ["--rate-limit", "0", "--webhooks-allow-private"] });
  ({ server, page } = dashboard);
  failing = startReceiver(() => ({ status: 500, body: "the receiver is down for maintenance" }));
  working = startReceiver();
  await setUp(page, await setupLink(server));

  // An admin key, made on the keys page as an owner would.
  await page.goto(`${server.url}/dashboard/keys`);
  await page.getByLabel("Name").fill("seed script");
  await page.getByLabel("admin").check();
  await Promise.all([page.waitForURL(/\/dashboard\/keys$/, WAIT), page.getByRole("button", { name: "Create key" }).click()]);
  key = (await page.locator("#new-key").textContent())!;

  const form = await api("POST", "/api/forms", { name: "Job applications", slug: "jobs", notificationEmail: "hiring@example.com", fields: FIELDS });
  formId = form.id as string;
  await api("PATCH", `/api/forms/${formId}`, { fileUploads: true, spamRules: { blockedWords: ["casino"], maxLinks: 3 } });
  await api("POST", `/api/forms/${formId}/webhooks`, { url: `${failing.url}/hooks/formsvc`, description: "Applicant tracking system" });
  await api("POST", `/api/forms/${formId}/webhooks`, {
    url: `${working.url}/services/T0000000/B0000000/an-incoming-webhook-token-that-is-long`,
    format: "slack",
  });
  newsletterId = (await api("POST", "/api/forms", { name: "Newsletter", slug: "newsletter" })).id as string;

  const ids: string[] = [];
  for (let n = 0; n < 100; n++) ids.push(await apply(n));
  withFiles = ids[99]!;
  spamId = ids[97]!;
  // The failing receiver is tried for each kept submission: some failures are on the deliveries page.
  await failing.waitFor(3);

  // A team: members made on the server's command line, an invitation pending.
  for (const [email, role] of [
    ["ed@example.com", "editor"],
    [LONG_EMAIL, "viewer"],
  ] as const) {
    const made = await runCli(["users", "create", email, "--role", role, "--password-stdin", "--db", server.db], { stdin: "a long enough password\n" });
    expect(made.code).toBe(0);
  }
  await page.goto(`${server.url}/dashboard/team`);
  await page.locator("#invite").getByLabel("Email").fill("new.hire@example.com");
  await Promise.all([page.waitForURL(/\/dashboard\/team$/, WAIT), page.getByRole("button", { name: "Invite" }).click()]);
  invitationUrl = (await page.locator("#invite-url").textContent())!;
  memberId = (await page.getByRole("link", { name: `Change ${LONG_EMAIL}` }).getAttribute("href"))!.split("/").pop()!;

  // A month of changes through the API, then spread over the last 30 days as they would have come.
  for (let day = 0; day < 12; day++) {
    await api("PATCH", `/api/forms/${formId}`, {
      confirmation: { enabled: true, field: "email", subject: "We got your application", text: "Thank you, {{name}}.", doubleOptIn: day % 2 === 0 },
    });
    await api("PATCH", `/api/forms/${formId}`, { retentionDays: 30 + day, spamRetentionDays: day % 2 ? null : 14 });
  }
  const db = new Database(server.db);
  try {
    const rows = db.query("SELECT id FROM activity ORDER BY id DESC").all() as { id: string }[];
    const step = (30 * 86_400_000) / rows.length;
    for (const [i, row] of rows.entries()) db.run("UPDATE activity SET at = ? WHERE id = ?", [Date.now() - Math.round(i * step), row.id]);
  } finally {
    db.close();
  }
});

afterAll(async () => {
  failing?.stop();
  working?.stop();
  await dashboard?.stop();
});

/** What does not fit on the page as shown: sideways scrolling outside a scroll area, cut text without a title, wrapped dates. */
const layoutProblems = (page: Page) =>
  page.evaluate(() => {
    const problems: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > window.innerWidth) problems.push(`the page scrolls sideways: ${root.scrollWidth} px in ${window.innerWidth}`);
    // The places that scroll sideways on purpose: code to copy, and strips of links.
    const scrollAreas = "pre, .section-index, .tabs, .filters";
    const name = (element: Element) =>
      `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ""}${element.className && typeof element.className === "string" ? `.${element.className.split(" ").join(".")}` : ""}`;
    const flat = (text: string | null) => (text ?? "").replace(/\s+/g, " ").trim();
    for (const element of document.querySelectorAll("body *")) {
      const box = element.getBoundingClientRect();
      // Not shown, or shown only to screen readers (1 px): nothing a reader's eye can find cut.
      if (box.width <= 1 || box.height <= 1 || element.closest(".sr-only, input, select, textarea")) continue;
      if (element.scrollWidth <= element.clientWidth + 1) continue;
      const overflow = getComputedStyle(element).overflowX;
      if (overflow === "auto" || overflow === "scroll") {
        if (!element.matches(scrollAreas)) problems.push(`${name(element)} scrolls sideways: ${element.scrollWidth} px in ${element.clientWidth}`);
      } else if (overflow === "hidden" || overflow === "clip") {
        const text = flat(element.textContent);
        const title = flat(element.closest("[title]")?.getAttribute("title") ?? null);
        if (!title.includes(text)) problems.push(`${name(element)} is cut without its whole text in a title: "${text.slice(0, 60)}"`);
      } else if (element.matches("td, th")) {
        problems.push(`${name(element)} spills out of its cell: "${flat(element.textContent).slice(0, 60)}"`);
      }
    }
    for (const time of document.querySelectorAll("time")) {
      if (time.getClientRects().length > 1) problems.push(`a date wraps: "${time.textContent}"`);
    }
    return problems;
  });

/** The words of the page's main part as a reader reads them, code and inputs left out. */
const wordsOf = (page: Page) =>
  page.evaluate(() => {
    const main = document.querySelector("main")!.cloneNode(true) as HTMLElement;
    for (const code of main.querySelectorAll("pre, code, input, select, textarea")) code.remove();
    document.body.append(main);
    // biome-ignore lint/performance/useDomNodeTextContent: the text as laid out, its lines and sentences as a reader sees them.
    const text = main.innerText;
    main.remove();
    return text;
  });

/** What no page may say: a count with the wrong plural, JSON, a small letter after a full stop, a value the code forgot. */
function misreadings(text: string): string[] {
  const found: string[] = [];
  for (const [pattern, what] of [
    [/\b1 (submissions|forms|files|days|hours|attempts|links|webhooks|members)\b/, "a plural after 1"],
    [/\b(?!1\b)\d+ (submission|form|file|day|hour|attempt|link|webhook|member)\b(?! of)/, "a singular after a count other than 1"],
    [/\{"\w+":/, "JSON"],
    [/[a-z][.!?] [a-z]/, "a small letter after a full stop"],
    [/\bundefined\b|\bnull\b|\[object Object\]|NaN/, "a value the page did not fill"],
  ] as const) {
    const match = pattern.exec(text);
    if (match) found.push(`${what}: "${text.slice(Math.max(0, match.index - 40), match.index + 40)}"`);
  }
  return found;
}

/** Checks the page as it is at 1280 px and at 390 px: it fits, axe finds nothing grave; saves both screenshots. */
async function checkPage(name: string): Promise<void> {
  for (const [width, suffix] of [
    [1280, ""],
    [390, "-phone"],
  ] as const) {
    await page.setViewportSize({ width, height: width === 390 ? 760 : 800 });
    // A page opened at a section (#retention) shows that section at either width, as a browser does on arrival.
    await page.evaluate(() => (location.hash ? document.querySelector(location.hash)?.scrollIntoView() : undefined));
    expect({ page: name, width, problems: await layoutProblems(page) }).toEqual({ page: name, width, problems: [] });
    await expectAccessible(page);
    await screenshot(page, `glance-${name}${suffix}`, { mobile: width === 390 });
  }
  expect({ page: name, misreadings: misreadings(await wordsOf(page)) }).toEqual({ page: name, misreadings: [] });
}

const open = async (path: string) => {
  const answer = await page.goto(`${server.url}${path}`);
  expect({ path, status: answer?.status() }).toEqual({ path, status: 200 });
};

describe("every page at 1280 and 390 px, with an account's worth of data", () => {
  test("forms", async () => {
    await open("/dashboard/forms");
    expect(await page.locator("main tbody tr").count()).toBe(2);
    await checkPage("forms");
  });

  test("the inbox, and its spam view with each reason", async () => {
    await open(`/dashboard/forms/${formId}/submissions`);
    expect(await page.locator(".pages .muted").textContent()).toBe("1–25 of 90");
    await checkPage("inbox");
    await open(`/dashboard/forms/${formId}/submissions?filter=spam`);
    expect(await page.locator("ul.inbox li .reason").allTextContents()).toEqual(
      Array.from({ length: 10 }, () => " (spam: the rule “Blocked words and phrases” matched)"),
    );
    await checkPage("inbox-spam");
  });

  test("a submission: each field under its declared label, its files, why it is spam", async () => {
    await open(`/dashboard/forms/${formId}/submissions/${withFiles}`);
    expect(await page.locator("dl.data dt").allTextContents()).toEqual(FIELDS.map((field) => field.label));
    expect(await page.locator("dl.data dd").last().textContent()).toContain("photo-99.png");
    await checkPage("submission-file");
    await open(`/dashboard/forms/${formId}/submissions/${spamId}`);
    expect(await page.locator("article p.muted").first().textContent()).toContain("spam: the rule “Blocked words and phrases” matched");
    await checkPage("submission-spam");
  });

  test("settings: an index of its sections, the words of each", async () => {
    await open(`/dashboard/forms/${formId}/settings`);
    expect(await page.locator(".section-index a").allTextContents()).toEqual([
      "General",
      "Put it on your site",
      "Fields",
      "Page",
      "Captcha",
      "Spam",
      "Files",
      "Webhooks and channels",
      "Destinations",
      "Notifications",
      "Confirmation email",
      "Retention",
      "Test submission",
      "Delete this form",
    ]);
    expect(await page.locator("section#captcha .hint").first().textContent()).toContain(
      "ALTCHA, formsvc's own captcha, needs no other service: turn it on under Spam",
    );
    expect(await page.locator("section#files p.hint").textContent()).toBe(
      "Up to 10 files a submission, the whole post (its files and fields together) up to 1 MB (the server's --max-body). Files are kept with their submission and only signed-in users can download them.",
    );
    expect(await page.locator("section#delete p").first().textContent()).toBe("The form and all its 90 submissions are deleted for good.");
    // The script sends every declared field, the required ones and the file among them.
    const script = (await page.locator("#snippet-fetch").textContent())!;
    for (const field of FIELDS) expect(script).toContain(`body.append("${field.name}", `);
    await checkPage("settings");
  });

  test("deliveries: notification emails, endpoints, webhook deliveries that failed", async () => {
    await open(`/dashboard/forms/${formId}/deliveries`);
    // The receiver that answers 500 failed often enough in a row to be paused; the other one is delivered to.
    expect(await page.locator("section#endpoints tbody tr", { hasText: "/hooks/formsvc" }).textContent()).toContain("paused");
    expect(await page.locator("section#webhooks tbody tr", { hasText: "delivered" }).count()).toBeGreaterThan(0);
    expect(await page.locator("section#webhooks").textContent()).not.toContain("No webhook deliveries yet");
    // A cut address carries its whole text.
    expect(await page.locator("section#webhooks td.clip").first().getAttribute("title")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    await checkPage("deliveries-webhooks");
  });

  test("keys", async () => {
    await open("/dashboard/keys");
    expect(await page.locator("main tbody tr").count()).toBe(1);
    await checkPage("keys");
  });

  test("team, and a member with a long address", async () => {
    await open("/dashboard/team");
    expect(await page.locator("#members-title").textContent()).toBe("Members");
    await checkPage("team");
    await open(`/dashboard/team/${memberId}`);
    expect(await page.locator("h1").textContent()).toBe(LONG_EMAIL);
    await checkPage("team-member");
  });

  test("activity: a month of it, in sentences", async () => {
    await open("/dashboard/activity");
    const sentences = await page.locator("tbody .summary").allTextContents();
    const key = /^The API key sk_live_\w{4} /;
    expect(sentences.slice(0, 3).map((sentence) => sentence.replace(key, "KEY "))).toEqual([
      'KEY changed "Job applications": submissions kept 41 days, spam kept for ever.',
      'KEY changed the confirmation email of "Job applications": double opt-in off.',
      'KEY changed "Job applications": submissions kept 40 days, spam kept 14 days.',
    ]);
    expect(sentences.at(-1)).toBe("owner@example.com set up the first user, owner@example.com, as owner.");
    await checkPage("activity");
  });

  test("erasure: what would go, counted in words", async () => {
    await open("/dashboard/erase");
    await page.getByLabel("Email address").fill("dana@example.com");
    await page.getByRole("button", { name: "Show what would be erased" }).click();
    await page.locator("#result-title").waitFor(WAIT);
    expect(await page.locator("#result-title").textContent()).toBe("1 submission of dana@example.com would be erased");
    expect(await page.getByRole("button", { name: "Erase this submission" }).count()).toBe(1);
    await checkPage("erase");
  });

  test("account", async () => {
    await open("/dashboard/account");
    await checkPage("account");
  });

  test("a saved notice is in the section saved; a form with no submission yet starts with its snippet", async () => {
    await open(`/dashboard/forms/${newsletterId}/settings`);
    expect((await page.locator(".section-index a").allTextContents()).slice(0, 2)).toEqual(["Put it on your site", "General"]);
    await page.locator("section#retention").getByLabel("Keep submissions for (days)").fill("90");
    await Promise.all([
      page.waitForURL(/notice=saved&at=retention#retention$/, WAIT),
      page.locator("section#retention").getByRole("button", { name: "Save retention" }).click(),
    ]);
    expect(await page.locator("section#retention .notice").textContent()).toBe("Settings saved.");
    expect(await page.locator("main > .notice").count()).toBe(0);
    await checkPage("settings-saved");
  });

  test("a page that is not there", async () => {
    const answer = await page.goto(`${server.url}/dashboard/forms/frm_00000000000000000000000000/settings`);
    expect(answer?.status()).toBe(404);
    await checkPage("not-found");
  });

  test("sign-in, signed out: the command that makes a sign-in link, as this server is run", async () => {
    await page.context().clearCookies();
    await open("/dashboard/signin");
    expect(await page.locator("main .hint").last().textContent()).toBe(
      "Forgot your password? On the server, run npx bun cli/formsvc.ts dashboard link --email you@example.com for a one-time sign-in link.",
    );
    await checkPage("signin");
  });

  test("an invitation's page, as the person invited opens it", async () => {
    await open(new URL(invitationUrl).pathname + new URL(invitationUrl).search);
    expect(await page.locator("main p").first().textContent()).toContain("You will sign in as new.hire@example.com.");
    await checkPage("invitation");
  });
});
