/** @jsxImportSource hono/jsx */
import type { Form } from "../../domain/types.ts";
import { can } from "../../services/people/roles.ts";
import type { Session } from "../../services/people/users.ts";
import { Csrf, Field, Layout, ModeBadge, Notice, ScrollTable, Time } from "./layout.tsx";

export interface FormSummary {
  form: Form;
  unread: number;
  lastSubmissionAt: string | null;
}

export interface NewFormInput {
  name?: string;
  slug?: string;
  mode?: string;
  notificationEmail?: string;
}

/** Every form of the account, live and test, and the form to make a new one. */
export function FormsPage({
  session,
  forms,
  input = {},
  errors = {},
  notice,
  mailOn = true,
}: {
  session: Session;
  forms: FormSummary[];
  input?: NewFormInput;
  errors?: Record<string, string | undefined>;
  notice?: string;
  /** False when the server has no mail server: the notification email field says nothing will be sent. */
  mailOn?: boolean;
}) {
  return (
    <Layout title="Forms" session={session} section="forms">
      <h1>Forms</h1>
      <Notice text={notice} />
      <section class="card">
        {forms.length === 0 ? (
          <p class="empty">No forms yet. Create the first one below, then paste its snippet into a page.</p>
        ) : (
          <ScrollTable label="Your forms">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" class="wide-only">
                  Slug
                </th>
                <th scope="col" class="wide-only">
                  Mode
                </th>
                <th scope="col" class="wide-only">
                  Active
                </th>
                <th scope="col" class="num wide-only">
                  Submissions
                </th>
                <th scope="col" class="num">
                  Unread
                </th>
                <th scope="col">Last submission</th>
              </tr>
            </thead>
            <tbody>
              {forms.map(({ form, unread, lastSubmissionAt }) => (
                <tr>
                  <td>
                    <a href={`/dashboard/forms/${form.id}/submissions`}>{form.name}</a>
                  </td>
                  <td class="wide-only">
                    <code>{form.slug}</code>
                  </td>
                  <td class="wide-only">
                    <ModeBadge mode={form.mode} />
                  </td>
                  <td class="wide-only">{form.isActive ? "yes" : <span class="badge off">inactive</span>}</td>
                  <td class="num wide-only">{form.submissionCount}</td>
                  <td class="num">{unread > 0 ? <strong class="count">{unread}</strong> : "0"}</td>
                  <td>
                    <Time iso={lastSubmissionAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </ScrollTable>
        )}
      </section>
      {can(session.user.role, "edit") && session.user.formIds === null ? (
        <section class="card" id="create">
          <h2>Create a form</h2>
          <Notice text={errors.form} kind="error" />
          <form method="post" action="/dashboard/forms" class="grid">
            <Csrf session={session} />
            <Field label="Name" name="name" value={input.name} required error={errors.name} />
            <Field
              label="Slug (optional)"
              name="slug"
              value={input.slug}
              hint="Public address part; left empty, an unguessable one is chosen."
              error={errors.slug}
            />
            <Field
              label="Notification email (optional)"
              name="notificationEmail"
              type="email"
              value={input.notificationEmail}
              hint={mailOn ? undefined : "Mail is off on this server: notifications wait, unsent, until it runs with --smtp-url (see docs/deploy.md)."}
              error={errors.notificationEmail}
            />
            <div class="field">
              <label for="f-mode">Mode</label>
              <select id="f-mode" name="mode">
                <option value="live" selected={input.mode !== "test"}>
                  live
                </option>
                <option value="test" selected={input.mode === "test"}>
                  test (never sends email)
                </option>
              </select>
            </div>
            <div class="actions">
              <button type="submit">Create form</button>
            </div>
          </form>
        </section>
      ) : null}
    </Layout>
  );
}
