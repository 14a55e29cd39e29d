import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runInProcess as runCli } from "../helpers/fake-io.ts";
import { startServerInProcess, type InProcessServer } from "./world.ts";

let server: InProcessServer;
const db = () => ["--db", server.db];

beforeAll(async () => {
  server = await startServerInProcess();
});
afterAll(() => server?.stop());

/** Opens a link as a browser would, without following the redirect: where it sends, and whether it signs in. */
async function open(link: string): Promise<{ status: number; location: string | null; signedIn: boolean }> {
  const answer = await fetch(link, { redirect: "manual" });
  return { status: answer.status, location: answer.headers.get("location"), signedIn: (answer.headers.get("set-cookie") ?? "").includes("formsvc_session=") };
}

describe("formsvc dashboard link and formsvc users", () => {
  test("with no user yet, dashboard link prints (piped: alone) a one-time link that makes the first user", async () => {
    const made = await runCli(["dashboard", "link", ...db()]);
    expect({ code: made.code, stderr: made.stderr }).toEqual({ code: 0, stderr: "" });
    expect(made.stdout).toMatch(new RegExp(`^${server.url}/dashboard/setup\\?token=[0-9A-Za-z]{43}\\n$`));
    const page = await fetch(made.stdout.trim());
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Create user and sign in");
  });

  test("users create reads the password from stdin; list shows the user; the password signs in", async () => {
    const created = await runCli(["users", "create", "Ada@Example.com", "--password-stdin", ...db()], { stdin: "a long enough password\n" });
    expect(created).toEqual({ code: 0, stdout: "", stderr: expect.stringMatching(/^Made dashboard user ada@example\.com \(usr_\w+\)\.\n$/) });
    const listed = await runCli(["users", "list", ...db()]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split("\t").slice(1, 2)).toEqual(["ada@example.com"]);
    const json = JSON.parse((await runCli(["users", "list", "--json", ...db()])).stdout);
    expect(json).toEqual([
      {
        id: expect.stringMatching(/^usr_/),
        email: "ada@example.com",
        accountId: expect.stringMatching(/^acc_/),
        role: "owner",
        formIds: null,
        createdAt: expect.any(String),
      },
    ]);
    // The sign-in form, as a browser fills it in: the pre-session cookie and its token, from this origin.
    const form = await fetch(`${server.url}/dashboard/signin`);
    const cookie = form.headers.get("set-cookie")!.split(";")[0]!;
    const presession = /name="_presession" value="(\w+)"/.exec(await form.text())![1]!;
    const signIn = (password: string) =>
      fetch(`${server.url}/dashboard/signin`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie, origin: server.url, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _presession: presession, email: "ADA@example.com", password }),
      });
    const good = await signIn("a long enough password");
    expect({
      status: good.status,
      location: good.headers.get("location"),
      session: (good.headers.get("set-cookie") ?? "").includes("formsvc_session="),
    }).toEqual({ status: 303, location: "/dashboard/forms", session: true });
    expect((await signIn("a wrong password")).status).toBe(401);
  });

  test("a short password, a bad email, or the same email twice are refused with the reason", async () => {
    expect(await runCli(["users", "create", "bob@example.com", "--password-stdin", ...db()], { stdin: "short\n" })).toEqual({
      code: 2,
      stdout: "",
      stderr: "formsvc: The password must be at least 8 characters.\n",
    });
    expect(await runCli(["users", "create", "not-an-email", "--password-stdin", ...db()], { stdin: "a long enough password\n" })).toEqual({
      code: 2,
      stdout: "",
      stderr: "formsvc: Enter an email address such as you@example.com.\n",
    });
    expect(await runCli(["users", "create", "ada@example.com", "--password-stdin", ...db()], { stdin: "a long enough password\n" })).toEqual({
      code: 2,
      stdout: "",
      stderr: "formsvc: There is already a user ada@example.com.\n",
    });
  });

  test("without a terminal and without --password-stdin, users create says how to give the password", async () => {
    expect(await runCli(["users", "create", "carol@example.com", ...db()])).toEqual({
      code: 2,
      stdout: "",
      stderr: "formsvc: no terminal to ask the password on: pipe it in with --password-stdin\n",
    });
  });

  test("dashboard link for a user signs in once, for 15 minutes; on a terminal it also says so", async () => {
    const made = await runCli(["dashboard", "link", ...db()], { env: { FORMSVC_TTY: "1" } });
    expect(made.code).toBe(0);
    expect(made.stderr).toBe(
      "Sign-in link for ada@example.com. It works once, within 15 minutes; set a new password on the page it opens if you lost yours.\n",
    );
    const link = made.stdout.trim();
    expect(link).toMatch(new RegExp(`^${server.url}/dashboard/link\\?token=[0-9A-Za-z]{43}$`));
    expect(await open(link)).toEqual({ status: 303, location: "/dashboard/account", signedIn: true });
    expect(await open(link)).toEqual({ status: 410, location: null, signedIn: false });
  });

  test("with several users, dashboard link needs --email; an unknown one is not found; remote mode is refused", async () => {
    expect((await runCli(["users", "create", "bob@example.com", "--password-stdin", ...db()], { stdin: "another long password" })).code).toBe(0);
    expect(await runCli(["dashboard", "link", ...db()])).toEqual({
      code: 2,
      stdout: "",
      stderr: "formsvc: there are several dashboard users: say which with --email\n",
    });
    expect(await runCli(["dashboard", "link", "--email", "zed@example.com", ...db()])).toEqual({
      code: 5,
      stdout: "",
      stderr: "formsvc: no dashboard user zed@example.com. See: formsvc users list\n",
    });
    const bob = await runCli(["dashboard", "link", "--email", "BOB@example.com", ...db()]);
    expect(bob.code).toBe(0);
    expect((await open(bob.stdout.trim())).signedIn).toBe(true);
    const remote = await runCli(["dashboard", "link"], { env: { FORMSVC_URL: server.url, FORMSVC_KEY: "sk_live_x" } });
    expect(remote).toEqual({
      code: 2,
      stdout: "",
      stderr: "formsvc: dashboard link works on the database file, on the server's machine: run it with --db, without --url or FORMSVC_URL\n",
    });
  });

  test("users delete removes the user and ends their sessions", async () => {
    const link = (await runCli(["dashboard", "link", "--email", "bob@example.com", ...db()])).stdout.trim();
    const answer = await fetch(link, { redirect: "manual" });
    const cookie = answer.headers.get("set-cookie")!.split(";")[0]!;
    expect((await fetch(`${server.url}/dashboard/forms`, { headers: { cookie }, redirect: "manual" })).status).toBe(200);
    expect(await runCli(["users", "delete", "bob@example.com", ...db()])).toEqual({ code: 0, stdout: "", stderr: "Deleted dashboard user bob@example.com.\n" });
    expect((await fetch(`${server.url}/dashboard/forms`, { headers: { cookie }, redirect: "manual" })).status).toBe(303);
    expect(await runCli(["users", "delete", "bob@example.com", ...db()])).toEqual({ code: 5, stdout: "", stderr: "formsvc: No user bob@example.com.\n" });
  });
});

describe("roles, invitations and the activity log from the command line", () => {
  test("users invite prints a one-time link for the role; users role changes it; activity shows both, by cli", async () => {
    const invited = await runCli(["users", "invite", "Vi@example.com", "--role", "viewer", ...db()]);
    expect({ code: invited.code, stderr: invited.stderr }).toEqual({ code: 0, stderr: "" });
    expect(invited.stdout).toMatch(new RegExp(`^${server.url}/dashboard/invite\\?token=[0-9A-Za-z]{43}\\n$`));
    const page = await fetch(invited.stdout.trim());
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("You are invited as <strong>viewer</strong>");
    expect(
      (await runCli(["users", "create", "ed@example.com", "--role", "viewer", "--password-stdin", ...db()], { stdin: "a long enough password\n" })).code,
    ).toBe(0);
    expect(await runCli(["users", "role", "ed@example.com", "editor", ...db()])).toEqual({ code: 0, stdout: "", stderr: "ed@example.com is now editor.\n" });
    expect(await runCli(["users", "role", "ed@example.com", "boss", ...db()])).toEqual({
      code: 2,
      stdout: "",
      stderr: "formsvc: --role must be one of viewer, editor, admin, owner.\n",
    });
    const log = await runCli(["activity", "--limit", "3", ...db()]);
    expect(log.code).toBe(0);
    expect(
      log.stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => line.split("\t").slice(1, 3)),
    ).toEqual([
      ["cli", "user.role"],
      ["cli", "user.create"],
      ["cli", "user.invite"],
    ]);
  });
});

// A setup link that serve prints, refused once a user exists: test/process/users.test.ts, on serve's own output.
