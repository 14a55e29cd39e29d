import { afterEach, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { BASE } from "../helpers/app.ts";
import { publicFixture, type PublicFixture } from "./public-support.ts";

let f: PublicFixture;
afterEach(() => f.close());

const FIELDS = [
  { name: "name", label: "Your name", type: "text", required: true, hint: "As you would like to be addressed." },
  { name: "email", label: "Email", type: "email", required: true },
  { name: "message", label: "Message", type: "textarea", minLength: 20 },
];
const PAGE = { enabled: true, title: "Write to us", description: "We answer within a day.", thankYouMessage: "Thanks, we will write back." };
const urlencoded = { "content-type": "application/x-www-form-urlencoded" };

/** A form with the page on (or as `page` says) and its declared fields. */
async function pageForm(page: Record<string, unknown> | null = PAGE, extra: Record<string, unknown> = {}) {
  return f.form({ fields: FIELDS, page, ...extra });
}

const open = (slug: string, headers: Record<string, string> = {}, query = "") =>
  f.t.request("GET", `/f/${slug}${query}`, { headers: { accept: "text/html", ...headers } });

test("page: the API takes, keeps and shows it; a bad one is 400 naming the field", async () => {
  f = await publicFixture();
  const { id } = await pageForm({ ...PAGE, accentColor: "#0A7", language: "de" });
  const shown = (await (await f.t.request("GET", `/api/forms/${id}`, { key: f.key })).json()) as { page: unknown; fields: unknown[] };
  expect(shown.page).toEqual({ ...PAGE, accentColor: "#0a7", logoUrl: null, submitLabel: null, language: "de" });
  expect(shown.fields[0]).toEqual(FIELDS[0]);
  for (const [page, field] of [
    [{ enabled: true, accentColor: "red" }, "page.accentColor"],
    [{ enabled: true, language: "tlh" }, "page.language"],
    [{ enabled: true, logoUrl: "javascript:alert(1)" }, "page.logoUrl"],
    [{ enabled: "yes" }, "page.enabled"],
    [{ enabled: true, colour: "#fff" }, "colour"],
  ] as const) {
    const refused = await f.t.request("PATCH", `/api/forms/${id}`, { key: f.key, body: { page } });
    expect({ status: refused.status, field: ((await refused.json()) as { error: { field?: string } }).error.field }).toEqual({ status: 400, field });
  }
  const long = await f.t.request("PATCH", `/api/forms/${id}`, { key: f.key, body: { fields: [{ name: "a", type: "text", hint: "x".repeat(201) }] } });
  expect(long.status).toBe(400);
});

test("GET /f/{slug} with the page on is the form: labels, hint tied by aria-describedby, honeypot, title and description, in a policy with no inline script", async () => {
  f = await publicFixture();
  const { slug } = await pageForm();
  const answer = await open(slug);
  const page = await answer.text();
  expect(answer.status).toBe(200);
  expect(answer.headers.get("content-security-policy")).toContain("script-src 'self'");
  expect(page).toContain('<html lang="en">');
  expect(page).toContain("<h1>Write to us</h1>");
  expect(page).toContain("We answer within a day.");
  expect(page).toContain('<label for="formsvc-f0">Your name <span class="formsvc-required">(required)</span></label>');
  expect(page).toContain('aria-describedby="formsvc-f0-hint"');
  expect(page).toContain('<p class="formsvc-hint" id="formsvc-f0-hint">As you would like to be addressed.</p>');
  expect(page).toContain('name="_gotcha"');
  expect(page).not.toMatch(/<script>(?!<\/script>)/);
});

test("the page is off, or the form declares no fields: the address says what it is, as before", async () => {
  f = await publicFixture();
  const off = await pageForm(null);
  const bare = await f.form({ page: PAGE });
  for (const slug of [off.slug, bare.slug]) expect((await open(slug)).status).toBe(405);
});

test("a post from the page that needs fixing comes back as the page: 400, each error beside its field, every value kept", async () => {
  f = await publicFixture();
  const { id, slug } = await pageForm();
  const answer = await f.post(slug, {
    body: "name=Ada+%3Cb%3E&email=nope&message=too+short&_language=en",
    headers: { ...urlencoded, referer: `${BASE}/f/${slug}` },
  });
  const page = await answer.text();
  expect(answer.status).toBe(400);
  expect(page).toContain('value="Ada &lt;b&gt;"');
  expect(page).toContain('aria-describedby="formsvc-f1-error" aria-invalid="true" autofocus autocomplete="email" value="nope"');
  expect(page).toContain('<p class="formsvc-error" id="formsvc-f1-error">Email: enter an email address such as ann@example.com.</p>');
  expect(page).toContain('<p class="formsvc-error" id="formsvc-f2-error">Message: enter at least 20 characters.</p>');
  expect(page).toContain(">too short</textarea>");
  expect(await f.stored(id)).toEqual([]);
});

test("a good post from the page goes to the form's thank-you page with its thank-you text", async () => {
  f = await publicFixture();
  const { id, slug } = await pageForm();
  const answer = await f.post(slug, { body: "name=Ada&email=ada%40example.com", headers: { ...urlencoded, referer: `${BASE}/f/${slug}` } });
  expect({ status: answer.status, location: answer.headers.get("location") }).toEqual({ status: 303, location: `${BASE}/f/${slug}/thanks` });
  expect(await (await open(`${slug}/thanks`)).text()).toContain("Thanks, we will write back.");
  expect((await f.stored(id)).map((s) => s.data)).toEqual([{ name: "Ada", email: "ada@example.com" }]);
  const json = await f.post(slug, { body: "name=Bo&email=bo%40example.com", headers: { ...urlencoded, accept: "application/json" } });
  expect(((await json.json()) as { message: string }).message).toBe("Thanks, we will write back.");
});

test("_language=de and Accept-Language: fr give German and French pages and field errors; an unknown language English", async () => {
  f = await publicFixture();
  const { slug } = await pageForm({ enabled: true });
  const german = await (await open(slug, {}, "?_language=de")).text();
  expect(german).toContain('<html lang="de">');
  expect(german).toContain("(Pflichtfeld)");
  expect(german).toContain(">Senden</button>");
  const french = await (await open(slug, { "accept-language": "fr-FR,fr;q=0.9,en;q=0.5" })).text();
  expect(french).toContain('<html lang="fr">');
  expect(french).toContain(">Envoyer</button>");
  expect(await (await open(slug, { "accept-language": "tlh" })).text()).toContain(">Send</button>");

  const errors = async (body: string, headers: Record<string, string> = {}) =>
    (
      (await (await f.post(slug, { body, headers: { ...urlencoded, accept: "application/json", ...headers } })).json()) as { errors: { message: string }[] }
    ).errors.map((e) => e.message);
  expect(await errors("email=x&_language=de")).toEqual(["Your name: Bitte ausfüllen.", "Email: Bitte eine E-Mail-Adresse wie anna@example.com eingeben."]);
  expect(await errors("email=x", { "accept-language": "fr" })).toEqual([
    "Your name : veuillez remplir ce champ.",
    "Email : saisissez une adresse e-mail comme anne@example.com.",
  ]);
  expect(await errors("email=x&_language=xx")).toEqual(["Your name: fill this in.", "Email: enter an email address such as ann@example.com."]);
  // A browser's error page is in the language too, each error said once.
  const page = await (await f.post(slug, { body: "email=x&name=Ada&_language=de", headers: { ...urlencoded, referer: "https://site.example/" } })).text();
  expect(page).toContain('<html lang="de">');
  expect(page.match(/Bitte eine E-Mail-Adresse/g)?.length).toBe(1);
  expect(page).toContain('<p class="formsvc-back"><a href="https://site.example/">Zurück</a></p>');
});

test("the page's language setting wins over the browser's, and _language over both", async () => {
  f = await publicFixture();
  const { slug } = await pageForm({ enabled: true, language: "ja" });
  expect(await (await open(slug, { "accept-language": "fr" })).text()).toContain('<html lang="ja">');
  expect(await (await open(slug, { "accept-language": "fr" }, "?_language=pl")).text()).toContain('<html lang="pl">');
});

test("the embed's description: CORS for the site, the form's markup and styles; a form without a page is 404", async () => {
  f = await publicFixture();
  const { slug } = await pageForm();
  const answer = await f.t.request("GET", `/f/${slug}/embed`, { headers: { origin: "https://site.example", accept: "application/json" } });
  expect(answer.headers.get("access-control-allow-origin")).toBe("https://site.example");
  const embed = (await answer.json()) as { html: string; css: string; language: string; scripts: unknown[] };
  expect(embed.html).toContain("<h2>Write to us</h2>");
  expect(embed.html).toContain(`action="${BASE}/f/${slug}"`);
  expect(embed.css).toContain(".formsvc");
  const off = await f.form();
  expect((await f.t.request("GET", `/f/${off.slug}/embed`, { headers: { accept: "application/json" } })).status).toBe(404);
});

test("views: each address counted once a day on the page and the embed, whatever User-Agent it sends, in stats/daily with the submissions", async () => {
  f = await publicFixture();
  const { id, slug } = await pageForm();
  const view = (ip: string, agent: string, path = "") =>
    f.t.app.fetch(new Request(`${BASE}/f/${slug}${path}`, { headers: { accept: "text/html", "user-agent": agent } }), { ip });
  // One address under fifty names, the page and the embed: one visitor.
  for (let i = 0; i < 50; i++) expect((await view("198.51.100.9", `Agent/${i}`)).status).toBe(200);
  await view("198.51.100.9", "Firefox", "/embed");
  // One IPv6 subscriber's /64 is one visitor whatever its addresses; another address is another.
  await view("2001:db8:aa:bb::1", "Firefox");
  await view("2001:db8:aa:bb:ffff::2", "Chrome");
  await view("203.0.113.7", "Firefox");
  await f.post(slug, { body: "name=Ada&email=ada%40example.com", headers: urlencoded });
  const stats = (await (await f.t.request("GET", `/api/forms/${id}/stats/daily?since=0d`, { key: f.key })).json()) as { days: unknown[] };
  expect(stats.days).toEqual([{ date: new Date().toISOString().slice(0, 10), submissions: 1, spam: 0, views: 3 }]);
});

test("views: the key changes each UTC day and the day before's visitor hashes go with it; no address is stored", async () => {
  f = await publicFixture();
  const { id } = await pageForm();
  const { pageViews, store } = f.t.services;
  const day = (n: number) => Date.UTC(2026, 10, 20 + n, 12);
  const viewer = { ip: "203.0.113.7" };
  expect([await pageViews.count(id, viewer, day(0)), await pageViews.count(id, viewer, day(0))]).toEqual([true, false]);
  const keyOf = async () => ((await store.db.all(sql`SELECT value FROM settings WHERE key = 'view_key'`)) as { value: string }[])[0]!.value;
  const first = await keyOf();
  // The next day the same visitor counts again, under another key; the first day's hashes are gone.
  expect(await pageViews.count(id, viewer, day(1))).toBe(true);
  expect(await keyOf()).not.toBe(first);
  const kept = (await store.db.all(sql`SELECT day, visitor FROM form_visitors`)) as { day: number; visitor: string }[];
  expect(kept.map((row) => row.day)).toEqual([Math.floor(day(1) / 86_400_000)]);
  const everything = JSON.stringify(await store.db.all(sql`SELECT * FROM form_visitors`)) + JSON.stringify(await store.db.all(sql`SELECT * FROM form_views`));
  expect(everything).not.toContain("203.0.113.7");
  const views = await pageViews.daily(id, Math.floor(day(0) / 86_400_000), Math.floor(day(1) / 86_400_000));
  expect([...views.values()]).toEqual([1, 1]);
});
