/** @jsxImportSource hono/jsx */
import type { Form } from "../../domain/types.ts";
import type { ApiKey, NewApiKey } from "../../services/keys.ts";
import type { Session } from "../../services/people/users.ts";
import { AssistantSetup } from "./assistant.tsx";
import { CopyButton, Csrf, Field, Layout, Notice, ScrollTable, Time } from "./layout.tsx";

export interface KeyInput {
  name?: string;
  type?: string;
  formId?: string;
  permissions?: string[];
}

export interface KeysProps {
  session: Session;
  keys: ApiKey[];
  forms: Form[];
  /** The server's address, for the assistant's configuration. */
  baseUrl: string;
  created?: NewApiKey | null;
  input?: KeyInput;
  errors?: Record<string, string | undefined>;
  notice?: string;
}

const PERMISSIONS = ["read", "write", "delete", "admin"] as const;

/** API keys: the list (never a secret), a new key shown once, revoke. */
export function KeysPage({ session, keys, forms, baseUrl, created, input = {}, errors = {}, notice }: KeysProps) {
  const formName = (id: string | null) => (id ? (forms.find((f) => f.id === id)?.name ?? id) : "");
  const chosen = input.permissions ?? [];
  return (
    <Layout title="API keys" session={session} section="keys">
      <h1>API keys</h1>
      <p class="hint">
        What a key can do is described in the <a href="/docs">API reference</a>, from the OpenAPI document at <a href="/api/openapi.json">/api/openapi.json</a>{" "}
        (import it into an HTTP tool or generate a client from it).
      </p>
      <Notice text={notice} />
      {created ? (
        <section class="card new-key" aria-labelledby="new-key-title">
          <h2 id="new-key-title">Your new key</h2>
          <p>
            Copy it now: <strong>it is shown only this once</strong>. Only its hash is kept.
          </p>
          <p class="key-line">
            <code id="new-key">{created.key}</code> <CopyButton target="new-key" />
          </p>
        </section>
      ) : null}
      <section class="card">
        {keys.length === 0 ? (
          <p class="empty">No keys yet. Keys let scripts and the CLI read and manage your forms over the API.</p>
        ) : (
          <ScrollTable label="API keys">
            <thead>
              <tr>
                <th scope="col">Prefix</th>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Permissions</th>
                <th scope="col">Form</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="sr-only">Status</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr class={key.revokedAt ? "revoked" : undefined}>
                  <td>
                    <code>{key.prefix}</code>
                  </td>
                  <td>{key.name ?? ""}</td>
                  <td>{key.type}</td>
                  <td>{key.permissions.join(", ")}</td>
                  <td>{formName(key.formId)}</td>
                  <td>
                    <Time iso={key.createdAt} />
                  </td>
                  <td>
                    <Time iso={key.lastUsedAt} />
                  </td>
                  <td>
                    {key.revokedAt ? (
                      <span class="badge off">revoked</span>
                    ) : (
                      <form method="post" action={`/dashboard/keys/${key.id}/revoke`}>
                        <Csrf session={session} />
                        <button
                          type="submit"
                          class="danger small"
                          data-confirm="Revoke this key? Anything using it stops working at once."
                          aria-label={`Revoke key ${key.prefix}`}
                        >
                          Revoke
                        </button>
                      </form>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </ScrollTable>
        )}
      </section>
      <section class="card" id="create">
        <h2>Create a key</h2>
        <Notice text={errors.form} kind="error" />
        <form method="post" action="/dashboard/keys" class="grid">
          <Csrf session={session} />
          <Field label="Name" name="name" value={input.name} hint="To tell keys apart, such as laptop or cron." error={errors.name} />
          <div class={`field${errors.type ? " has-error" : ""}`}>
            <label for="f-type">Type</label>
            <select id="f-type" name="type">
              <option value="live" selected={(input.type ?? "live") === "live"}>
                live: reaches live forms
              </option>
              <option value="test" selected={input.type === "test"}>
                test: reaches test forms
              </option>
              <option value="form" selected={input.type === "form"}>
                form: one form's submissions
              </option>
            </select>
            {errors.type ? <p class="error">{errors.type}</p> : null}
          </div>
          <div class={`field${errors.formId ? " has-error" : ""}`} data-when-type="form">
            <label for="f-formId">Form (for a form key)</label>
            <select id="f-formId" name="formId" aria-describedby={errors.formId ? "f-formId-error" : undefined}>
              <option value="">(none)</option>
              {forms.map((form) => (
                <option value={form.id} selected={input.formId === form.id}>
                  {`${form.name} (${form.mode})`}
                </option>
              ))}
            </select>
            {errors.formId ? (
              <p class="error" id="f-formId-error">
                {errors.formId}
              </p>
            ) : null}
          </div>
          <fieldset class={`field${errors.permissions ? " has-error" : ""}`}>
            <legend>Permissions</legend>
            <p class="hint">Tick at least one. admin includes the other three and lets the key manage keys.</p>
            {PERMISSIONS.map((p) => (
              <label class="check">
                <input type="checkbox" name="permissions" value={p} checked={chosen.includes(p)} /> {p}
              </label>
            ))}
            {errors.permissions ? (
              <p class="error" role="alert">
                {errors.permissions}
              </p>
            ) : null}
          </fieldset>
          <div class="actions">
            <button type="submit">Create key</button>
          </div>
        </form>
      </section>
      <AssistantSetup baseUrl={baseUrl} apiKey={created?.key ?? null} />
    </Layout>
  );
}
