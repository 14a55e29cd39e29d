import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import type { ServerProcess } from "../helpers/server.ts";
import { checkBothWidths, type Dashboard, setUp, setupLink, startDashboard, WAIT } from "./dashboard-support.ts";

// Image previews on a submission's page, in a real Chromium against a real `formsvc serve`: a PNG uploaded
// through the form shows as an image under the page's CSP, served by the same owner-only guard as the
// download, as the type its bytes are, with nosniff; an SVG (which may hold script) is never shown inline,
// nor is a text that claims to be a PNG.

// Each step drives several pages and runs axe at two widths, on a machine shared with other work.
setDefaultTimeout(90_000);

let dashboard: Dashboard;
let server: ServerProcess;
let page: Page;
let csp: string[];
let submissionPath = "";

// A 96×64 PNG: four stripes of colour.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAGAAAABACAIAAABqVuVZAAAAgklEQVR42u3QMREAEBQAUH0MFptGTiYddHGCSKDEHwzv7iV46bQW4q4aosweIo8dIgkSJEiQIEGCBAkSJEiQIEGCBAkSJEiQIEGCBAkSJEiQIEGCBAkSJEiQIEGCBAkSJEiQIEGCBAkSJEiQIEGCBAkSJEiQIEGCBAkSJEiQIEH/BT2cMJ//8woaRgAAAABJRU5ErkJggg==",
  "base64",
);
const SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>document.title="pwned"</script><circle r="5"/></svg>';

beforeAll(async () => {
  dashboard = await startDashboard({ csp: true });
  ({ server, page, csp } = dashboard);
});

afterAll(async () => {
  await dashboard?.stop();
});

describe("image previews on a submission's page", () => {
  test("a PNG shows inline; an SVG and a text claiming to be a PNG do not", async () => {
    await setUp(page, await setupLink(server));
    await page.getByLabel("Name", { exact: true }).fill("Photos");
    await page.getByLabel("Slug (optional)").fill("photos");
    await Promise.all([page.waitForURL(/\/settings\?notice=created&at=snippet#snippet$/, WAIT), page.getByRole("button", { name: "Create form" }).click()]);
    const formPath = new URL(page.url()).pathname.replace(/\/settings$/, "");
    await page.locator("section#files").getByLabel("Accept file uploads").check();
    await Promise.all([
      page.waitForURL(/notice=saved&at=files#files$/, WAIT),
      page.locator("section#files").getByRole("button", { name: "Save files" }).click(),
    ]);

    const body = new FormData();
    body.append("email", "ann@example.com");
    body.append("photo", new Blob([PNG], { type: "image/png" }), "stripes.png");
    body.append("logo", new Blob([SVG], { type: "image/svg+xml" }), "logo.svg");
    body.append("fake", new Blob(["not an image"], { type: "image/png" }), "fake.png");
    const posted = await fetch(`${server.url}/f/photos`, { method: "POST", headers: { accept: "application/json" }, body });
    expect(posted.status).toBe(200);
    submissionPath = `${formPath}/submissions/${((await posted.json()) as { id: string }).id}`;

    await page.goto(`${server.url}${submissionPath}`);
    expect(await page.locator("ul.files li a").allTextContents()).toEqual(["stripes.png", "logo.svg", "fake.png"]);
    const photo = page.getByRole("img", { name: "Preview of stripes.png" });
    await photo.waitFor(WAIT);
    expect(await photo.evaluate((img: HTMLImageElement) => img.decode().then(() => [img.naturalWidth, img.naturalHeight]))).toEqual([96, 64]);
    // The SVG is a download only: no <img>, no <object>, nothing of it rendered in the page.
    expect(await page.getByRole("img", { name: "Preview of logo.svg" }).count()).toBe(0);
    expect(await page.locator("main svg, main object, main embed, main iframe").count()).toBe(0);
    expect(await page.title()).not.toBe("pwned");
    // A text that claims to be a PNG is tried, and not shown: its preview is refused.
    const fake = page.locator('img[alt="Preview of fake.png"]');
    expect(
      await fake.evaluate((img: HTMLImageElement) =>
        img.decode().then(
          () => "shown",
          () => "not shown",
        ),
      ),
    ).toBe("not shown");
    // The page's script hides it rather than show a broken image.
    await page.waitForFunction(() => (document.querySelector('img[alt="Preview of fake.png"]') as HTMLImageElement).hidden, null, WAIT);
    await checkBothWidths(page, "submission-image");
    expect(csp).toEqual([]);
  });

  test("the preview is served as the type its bytes are, with nosniff, only to a signed-in user, and never for an SVG", async () => {
    const links = await page.locator("ul.files li a").evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    const [png, svg, fake] = await Promise.all(links.map((href) => page.request.get(`${href}/preview`, { maxRedirects: 0 })));
    expect({ status: png!.status(), type: png!.headers()["content-type"], nosniff: png!.headers()["x-content-type-options"] }).toEqual({
      status: 200,
      type: "image/png",
      nosniff: "nosniff",
    });
    expect(png!.headers()["content-security-policy"]).toBe("default-src 'none'; sandbox");
    expect(Buffer.from(await png!.body()).equals(PNG)).toBe(true);
    expect([svg!.status(), fake!.status()]).toEqual([404, 404]);
    expect(svg!.headers()["content-type"]).toStartWith("text/html");

    const signedOut = await fetch(`${links[0]}/preview`, { redirect: "manual" });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get("location")).toStartWith("/dashboard/signin?next=");
  });
});
