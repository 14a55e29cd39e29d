/** @jsxImportSource hono/jsx */
import type { FieldRule, Form } from "../../domain/types.ts";
import { CopyButton } from "./layout.tsx";

/** The ALTCHA widget's lines of the snippet, when the form has that captcha. */
const altchaOf = (form: Form) => {
  if (form.captcha?.provider !== "altcha") return null;
  const origin = new URL(form.submitUrl).origin;
  return {
    script: `<script async defer src="${origin}/altcha.js" type="module"></script>\n`,
    widget: `\n  <altcha-widget challenge="${form.submitUrl}/altcha"></altcha-widget>`,
  };
};

const attr = (text: string) => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** One declared field as the input a browser checks before it posts: its type, required, lengths, range, pattern. */
function inputFor(rule: FieldRule): string {
  const name = attr(rule.name);
  const label = attr(rule.label || rule.name);
  const checks = [
    rule.required ? " required" : "",
    rule.minLength !== undefined ? ` minlength="${rule.minLength}"` : "",
    rule.maxLength !== undefined ? ` maxlength="${rule.maxLength}"` : "",
    rule.min !== undefined ? ` min="${rule.min}"` : "",
    rule.max !== undefined ? ` max="${rule.max}"` : "",
    rule.pattern !== undefined ? ` pattern="${attr(rule.pattern)}"` : "",
  ].join("");
  if (rule.type === "textarea") return `<label>${label} <textarea name="${name}"${checks}></textarea></label>`;
  if (rule.type === "select") {
    const options = (rule.options ?? []).map((option) => `<option>${attr(option)}</option>`).join("");
    return `<label>${label} <select name="${name}"${checks}>${rule.required ? "" : "<option></option>"}${options}</select></label>`;
  }
  return `<label>${label} <input name="${name}" type="${rule.type}"${checks}></label>`;
}

/**
 * The HTML to paste into a page: a plain form posting to this form's address, with the honeypot; its inputs are
 * the form's declared fields when it has some (so the browser checks what formsvc will), else an email and a message;
 * with the ALTCHA widget when the form has that captcha.
 */
export function snippetHtml(form: Form): string {
  const altcha = altchaOf(form);
  const inputs =
    form.fields.length > 0
      ? form.fields.map(inputFor)
      : ['<label>Email <input name="email" type="email" required></label>', '<label>Message <textarea name="message"></textarea></label>'];
  const multipart = form.fields.some((rule) => rule.type === "file") ? ' enctype="multipart/form-data"' : "";
  return `${altcha?.script ?? ""}<form action="${form.submitUrl}" method="post"${multipart}>
${inputs.map((input) => `  ${input}`).join("\n")}
  <input name="_gotcha" style="display:none" tabindex="-1" autocomplete="off">${altcha?.widget ?? ""}
  <button>Send</button>
</form>`;
}

/** A value that passes a declared field's checks, as an example of what a script sends. */
function sampleOf(rule: FieldRule): string | number | boolean {
  switch (rule.type) {
    case "email":
      return "ada@example.com";
    case "number":
      return rule.min ?? (rule.max !== undefined ? Math.min(rule.max, 1) : 1);
    case "url":
      return "https://example.com";
    case "tel":
      return "+44 20 7946 0958";
    case "date":
      return "2026-11-01";
    case "checkbox":
      return true;
    case "select":
      return rule.options?.[0] ?? "";
    default: {
      // Long enough for a minimum length, short enough for a maximum.
      const text = rule.name === "name" ? "Ada Lovelace" : "Hello";
      const padded = text.padEnd(rule.minLength ?? 0, ".");
      return rule.maxLength !== undefined ? padded.slice(0, rule.maxLength) : padded;
    }
  }
}

const FETCH_TAIL = `const answer = await send().catch(send); // tried once more if the network failed
const result = await answer.json(); // {success: true, message, id, next} or {error: {code, message}, errors: [{field, code, message}]}`;

/**
 * The same from a script, asking for JSON back: every declared field with a sample value (the required ones
 * and the files included), as JSON, or as multipart form data when the form takes a file.
 */
export function snippetFetch(form: Form): string {
  const rules: FieldRule[] =
    form.fields.length > 0
      ? form.fields
      : [
          { name: "email", type: "email" },
          { name: "message", type: "textarea" },
        ];
  const altcha = altchaOf(form)
    ? { comment: "the ALTCHA widget's solution, from the hidden field it adds to the form", value: 'document.querySelector("input[name=altcha]").value' }
    : null;
  const head = `// One Idempotency-Key per submission: a retry after a network error sends the same one and is stored once.
const key = crypto.randomUUID();`;
  if (rules.some((rule) => rule.type === "file")) {
    const lines = rules.map((rule) =>
      rule.type === "file"
        ? `body.append(${JSON.stringify(rule.name)}, document.querySelector(${JSON.stringify(`input[name="${rule.name}"]`)}).files[0]); // the file chosen`
        : `body.append(${JSON.stringify(rule.name)}, ${JSON.stringify(String(sampleOf(rule)))});`,
    );
    if (altcha) lines.push(`body.append("altcha", ${altcha.value}); // ${altcha.comment}`);
    return `${head}
const body = new FormData(); // multipart: the form takes files
${lines.join("\n")}
const send = () => fetch("${form.submitUrl}", {
  method: "POST",
  headers: { Accept: "application/json", "Idempotency-Key": key },
  body,
});
${FETCH_TAIL}`;
  }
  const entries = rules.map((rule) => `    ${JSON.stringify(rule.name)}: ${JSON.stringify(sampleOf(rule))},`);
  if (altcha) entries.push(`    // ${altcha.comment}\n    altcha: ${altcha.value},`);
  return `${head}
const send = () => fetch("${form.submitUrl}", {
  method: "POST",
  headers: { "Content-Type": "application/json", Accept: "application/json", "Idempotency-Key": key },
  body: JSON.stringify({
${entries.join("\n")}
  }),
});
${FETCH_TAIL}`;
}

/** The form's address, the HTML form and the fetch() example, each with a copy button. */
export function Snippet({ form }: { form: Form }) {
  return (
    <div>
      <p>
        Submissions go to <code id="submit-url">{form.submitUrl}</code> <CopyButton target="submit-url" />
      </p>
      <h3 id="html-label">HTML form</h3>
      <pre aria-labelledby="html-label" tabindex={0}>
        <code id="snippet-html">{snippetHtml(form)}</code>
      </pre>
      <CopyButton target="snippet-html" label="Copy HTML" />
      <h3 id="fetch-label">From a script with fetch()</h3>
      <pre aria-labelledby="fetch-label" tabindex={0}>
        <code id="snippet-fetch">{snippetFetch(form)}</code>
      </pre>
      <CopyButton target="snippet-fetch" label="Copy script" />
    </div>
  );
}
