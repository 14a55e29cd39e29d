/** @jsxImportSource hono/jsx */
import type { Session } from "../../services/people/users.ts";
import { Csrf, Field, Layout, Notice, ScrollTable } from "./layout.tsx";

/** What an erasure found or did: per form, how many submissions of the person. */
export interface ErasureResult {
  email: string;
  dryRun: boolean;
  total: number;
  forms: { name: string; mode: string; count: number }[];
}

/** Erasure of a person's data (a GDPR request): a dry run shows what would go, then the erasure itself. */
export function ErasePage({
  session,
  result,
  email,
  errors = {},
}: {
  session: Session;
  result?: ErasureResult | null;
  email?: string;
  errors?: Record<string, string | undefined>;
}) {
  return (
    <Layout title="Erase a person's data" session={session} section="erase">
      <h1>Erase a person's data</h1>
      <p class="hint">
        Every submission of this account, live and test, in which any field's value is this email address (ignoring case and spaces) is deleted with its files.
        Look first: a dry run shows what would go and deletes nothing.
      </p>
      {result ? (
        <section class={`card${result.dryRun ? "" : " new-key"}`} aria-labelledby="result-title">
          <h2 id="result-title">
            {result.dryRun ? `${result.total} submissions of ${result.email} would be erased` : `${result.total} submissions of ${result.email} erased`}
          </h2>
          {result.forms.length > 0 ? (
            <ScrollTable label="Submissions by form">
              <thead>
                <tr>
                  <th scope="col">Form</th>
                  <th scope="col" class="num">
                    Submissions
                  </th>
                </tr>
              </thead>
              <tbody>
                {result.forms.map((form) => (
                  <tr>
                    <td>{`${form.name} (${form.mode})`}</td>
                    <td class="num">{form.count}</td>
                  </tr>
                ))}
              </tbody>
            </ScrollTable>
          ) : null}
          {result.dryRun && result.total > 0 ? (
            <form method="post" action="/dashboard/erase">
              <Csrf session={session} />
              <input type="hidden" name="email" value={result.email} />
              <button type="submit" name="mode" value="erase" class="danger" data-confirm={`Erase ${result.total} submissions for good?`}>
                Erase these {result.total} submissions
              </button>
            </form>
          ) : null}
        </section>
      ) : null}
      <section class="card" aria-labelledby="erase-title">
        <h2 id="erase-title">Whose data</h2>
        <Notice text={errors.form} kind="error" />
        <form method="post" action="/dashboard/erase" class="grid">
          <Csrf session={session} />
          <Field label="Email address" name="email" type="email" value={email} required error={errors.email} />
          <div class="actions">
            <button type="submit" name="mode" value="dry-run">
              Show what would be erased
            </button>
          </div>
        </form>
      </section>
    </Layout>
  );
}
