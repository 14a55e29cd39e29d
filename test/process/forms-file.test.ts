import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";

// Forms as code against real servers: an empty instance made what a file says, a plan of nothing, a plan of one
// changed field, a second apply that writes nothing, and a pulled file that another instance already matches.

const SECRET = `whsec_${Buffer.from("a webhook secret of 24+ bytes!").toString("base64")}`;
const dir = mkdtempSync(join(tmpdir(), "formsvc-file-"));

interface Instance {
  server: ServerProcess;
  key: string;
  /** Runs the CLI remotely against this instance, with the environment the file's references read. */
  run(args: string[], env?: Record<string, string>): ReturnType<typeof runCli>;
  api(path: string): Promise<any>;
}

async function instance(): Promise<Instance> {
  const server = await startServerProcess({ args: ["--rate-limit", "0", "--webhooks-allow-private"] });
  const key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
  return {
    server,
    key,
    run: (args, env = {}) => runCli(args, { env: { FORMSVC_URL: server.url, FORMSVC_KEY: key, ...env } }),
    api: async (path) => (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } })).json(),
  };
}

const FILE = {
  forms: {
    contact: {
      name: "Contact",
      notificationEmail: "owner@example.com",
      allowedDomains: ["example.com"],
      fields: [
        { name: "email", type: "email", required: true },
        { name: "message", type: "textarea", maxLength: 2000 },
      ],
      otherFields: "refuse",
      spamRules: { blockedWords: ["casino"], maxLinks: 2 },
      webhooks: [{ url: "https://hooks.example.com/formsvc", description: "CRM", secret: `\${CONTACT_HOOK_SECRET}` }],
    },
    newsletter: {
      name: "Newsletter",
      fields: [{ name: "email", type: "email", required: true }],
      redirectUrl: "https://example.com/thanks",
    },
  },
};

const write = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return path;
};
const env = { CONTACT_HOOK_SECRET: SECRET };

let a: Instance;
let b: Instance;

beforeAll(async () => {
  [a, b] = await Promise.all([instance(), instance()]);
});
afterAll(async () => {
  await Promise.all([a.server.stop(), b.server.stop()]);
});

describe("plan and apply against an empty instance", () => {
  test("plan lists every setting, field and webhook to add, secret as (sensitive), and exits 2", async () => {
    const planned = await a.run(["plan", "-f", write("formsvc.json", FILE)], env);
    expect(planned.code).toBe(2);
    const lines = planned.stdout.trim().split("\n");
    expect(lines).toEqual(
      expect.arrayContaining([
        "+ contact",
        '+ contact.name: "Contact"',
        '+ contact.fields.email: {"type":"email","required":true}',
        '+ contact.fields.message: {"type":"textarea","maxLength":2000}',
        '+ contact.spamRules: {"blockedWords":["casino"],"maxLinks":2}',
        '+ contact.webhooks[https://hooks.example.com/formsvc]: {"url":"https://hooks.example.com/formsvc","description":"CRM","secret":(sensitive)}',
        "+ newsletter",
      ]),
    );
    expect(planned.stdout).not.toContain(SECRET);
    expect((await a.api("/api/forms")).forms).toEqual([]);
  });

  test("a reference to an unset variable: exit 1 naming it, and nothing changed", async () => {
    const applied = await a.run(["apply", "--yes", "-f", write("formsvc.json", FILE)]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain("CONTACT_HOOK_SECRET");
    expect((await a.api("/api/forms")).forms).toEqual([]);
  });

  test("apply makes the forms, their fields, rules and the webhook with the secret from the environment; plan then exits 0", async () => {
    const applied = await a.run(["apply", "--yes", "-f", write("formsvc.json", FILE)], env);
    expect(applied.stderr).toContain("Applied");
    expect(applied.code).toBe(0);
    const contact = await a.api("/api/forms/contact");
    expect(contact).toMatchObject({ name: "Contact", otherFields: "refuse", spamRules: { blockedWords: ["casino"], maxLinks: 2 } });
    expect(contact.fields.map((f: { name: string }) => f.name)).toEqual(["email", "message"]);
    const { webhooks } = await a.api(`/api/forms/${contact.id}/webhooks`);
    expect(webhooks).toEqual([
      expect.objectContaining({ url: "https://hooks.example.com/formsvc", description: "CRM", secretPrefix: `${SECRET.slice(0, 10)}…` }),
    ]);
    expect((await a.api("/api/forms/newsletter")).redirectUrl).toBe("https://example.com/thanks");

    const planned = await a.run(["plan", "-f", write("formsvc.json", FILE)], env);
    expect(planned).toEqual({ code: 0, stdout: "", stderr: "No changes: the forms are as the file says.\n" });
  });

  test("a second apply writes nothing: ids, updatedAt and the activity log stay as they were", async () => {
    const before = { forms: await a.api("/api/forms"), activity: await a.api("/api/activity") };
    const applied = await a.run(["apply", "--yes", "-f", write("formsvc.json", FILE)], env);
    expect(applied.code).toBe(0);
    expect({ forms: await a.api("/api/forms"), activity: await a.api("/api/activity") }).toEqual(before);
  });

  test("a changed field shows as ~ with its old and new rule, and apply makes just that change", async () => {
    const changed = structuredClone(FILE);
    changed.forms.contact.fields[1] = { name: "message", type: "textarea", maxLength: 500 };
    const path = write("changed.json", changed);
    const planned = await a.run(["plan", "-f", path], env);
    expect(planned.code).toBe(2);
    expect(planned.stdout).toBe('~ contact.fields.message: {"type":"textarea","maxLength":2000} → {"type":"textarea","maxLength":500}\n');
    expect((await a.run(["apply", "--yes", "-f", path], env)).code).toBe(0);
    expect((await a.api("/api/forms/contact")).fields[1]).toEqual({ name: "message", type: "textarea", maxLength: 500 });
    expect((await a.run(["apply", "--yes", "-f", write("formsvc.json", FILE)], env)).code).toBe(0);
  });

  test("a setting left out returns to its default; a webhook left out is removed", async () => {
    const trimmed = structuredClone(FILE) as { forms: Record<string, Record<string, unknown>> };
    delete trimmed.forms.newsletter!.redirectUrl;
    delete trimmed.forms.contact!.webhooks;
    const path = write("trimmed.json", trimmed);
    const planned = await a.run(["plan", "-f", path], env);
    expect(planned.stdout.trim().split("\n").toSorted()).toEqual([
      "- contact.webhooks[https://hooks.example.com/formsvc]",
      '- newsletter.redirectUrl: "https://example.com/thanks"',
    ]);
    expect((await a.run(["apply", "--yes", "-f", path], env)).code).toBe(0);
    expect((await a.api("/api/forms/newsletter")).redirectUrl).toBeNull();
    expect((await a.run(["apply", "--yes", "-f", write("formsvc.json", FILE)], env)).code).toBe(0);
  });

  test("usage errors exit 1 (2 means changes pending): no -f, a file that is not JSON, a setting the API does not have", async () => {
    expect((await a.run(["plan"])).code).toBe(1);
    expect((await a.run(["plan", "--bogus"])).code).toBe(1);
    const notJson = await a.run(["plan", "-f", write("bad.json", "{")]);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toContain("not JSON");
    const unknown = await a.run(["plan", "-f", write("unknown.json", { forms: { contact: { name: "Contact", colour: "red" } } })]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown setting "colour"');
    const literal = structuredClone(FILE);
    literal.forms.contact.webhooks[0]!.secret = SECRET;
    const leaked = await a.run(["plan", "-f", write("literal.json", literal)]);
    expect(leaked.code).toBe(1);
    expect(leaked.stderr).toContain("forms.contact.webhooks.0.secret is a secret");
  });
});

describe("pull", () => {
  test("writes a file with $schema and references instead of secrets, that another instance in the same state already matches", async () => {
    expect((await b.run(["apply", "--yes", "-f", write("formsvc.json", FILE)], env)).code).toBe(0);
    const pulled = await a.run(["pull"]);
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).not.toContain("whsec_");
    const file = JSON.parse(pulled.stdout);
    expect(file.$schema).toBe(`${a.server.url}/api/formsvc.schema.json`);
    expect(file.forms.contact.webhooks).toEqual([
      { url: "https://hooks.example.com/formsvc", description: "CRM", secret: `\${FORMSVC_CONTACT_WEBHOOKS_1_SECRET}` },
    ]);
    expect(Object.keys(file.forms)).toEqual(["contact", "newsletter"]);
    const path = write("pulled.json", pulled.stdout);
    const onB = await b.run(["plan", "-f", path], { FORMSVC_CONTACT_WEBHOOKS_1_SECRET: SECRET });
    expect(onB).toEqual({ code: 0, stdout: "", stderr: "No changes: the forms are as the file says.\n" });
    const schema = await (await fetch(file.$schema)).json();
    expect(schema.$id).toBe(file.$schema);
  });

  test("--prune plans and applies the deletion of a form the file does not name; without it that form is left alone", async () => {
    await b.run(["forms", "create", "--name", "Stray", "--slug", "stray-form"]);
    const path = write("formsvc.json", FILE);
    expect((await b.run(["plan", "-f", path], env)).code).toBe(0);
    const pruning = await b.run(["plan", "--prune", "-f", path], env);
    expect(pruning).toMatchObject({ code: 2, stdout: '- stray-form: "Stray"\n' });
    expect((await b.run(["apply", "--prune", "--yes", "-f", path], env)).code).toBe(0);
    expect((await b.api("/api/forms")).forms.map((f: { slug: string }) => f.slug).toSorted()).toEqual(["contact", "newsletter"]);
  });

  test("a write the API refuses at apply names the form and the webhook, and exits 1", async () => {
    const db = join(dir, "refusing.db");
    await runCli(["keys", "create", "--db", db]);
    const file = { forms: { hooks: { name: "Hooks", webhooks: [{ url: "http://127.0.0.1:9/hook" }] } } };
    const applied = await runCli(["apply", "--yes", "--db", db, "-f", write("refused.json", file)]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain("\nformsvc: hooks.webhooks[http://127.0.0.1:9/hook]: url must be a public address");
  });

  test("local mode, on the database file, plans as remote mode does", async () => {
    const local = await runCli(["plan", "--db", a.server.db, "-f", write("formsvc.json", FILE)], { env });
    expect(local).toEqual({ code: 0, stdout: "", stderr: "No changes: the forms are as the file says.\n" });
  });
});

describe("references", () => {
  test("a name and a page title written as references to FORMSVC_URL and FORMSVC_KEY stay as written through plan and apply", async () => {
    const title = `\${FORMSVC_KEY}`;
    const file = { forms: { literal: { name: `\${FORMSVC_URL}`, fields: [{ name: "email", type: "email" }], page: { enabled: true, title } } } };
    const path = write("literal-title.json", file);
    const planned = await a.run(["plan", "-f", path]);
    expect({ code: planned.code, stdout: planned.stdout }).toEqual({
      code: 2,
      stdout: `+ literal\n+ literal.name: "\${FORMSVC_URL}"\n+ literal.fields.email: {"type":"email"}\n+ literal.page: {"enabled":true,"title":"\${FORMSVC_KEY}"}\n`,
    });
    expect((await a.run(["apply", "--yes", "-f", path])).code).toBe(0);
    expect((await a.api("/api/forms/literal")).name).toBe(`\${FORMSVC_URL}`);
    const page = await (await fetch(`${a.server.url}/f/literal`)).text();
    expect(page).toContain(`<h1>\${FORMSVC_KEY}</h1>`);
    expect(page).not.toContain(a.key);
    expect(await a.run(["plan", "-f", path])).toEqual({ code: 0, stdout: "", stderr: "No changes: the forms are as the file says.\n" });
  });
});
