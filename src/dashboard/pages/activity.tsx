/** @jsxImportSource hono/jsx */
import type { Activity } from "../../services/activity.ts";
import type { Session } from "../../services/users.ts";
import { Layout, ScrollTable, Time } from "./layout.tsx";

/** The account's activity log, newest first: who did what to which form, key, webhook, user or setting. */
export function ActivityPage({ session, entries, next, first }: { session: Session; entries: Activity[]; next: string | null; first: boolean }) {
  return (
    <Layout title="Activity" session={session} section="activity">
      <h1>Activity</h1>
      <p class="hint">
        What people, API keys and the command line did in this account, newest first. Entries are kept for a year unless the server says otherwise.
      </p>
      <section class="card">
        {entries.length === 0 ? (
          <p class="empty">Nothing yet.</p>
        ) : (
          <ScrollTable label="Activity">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col" class="wide-only">
                  Who
                </th>
                <th scope="col">What</th>
                <th scope="col" class="wide-only">
                  Action
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr>
                  <td>
                    <Time iso={entry.at} />
                  </td>
                  <td class="wide-only">{entry.actor}</td>
                  <td>
                    <span class="summary">{entry.summary}</span>
                    <span class="narrow-only muted">{entry.actor}</span>
                  </td>
                  <td class="wide-only">
                    <code>{entry.action}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </ScrollTable>
        )}
        <nav class="pages" aria-label="Pages">
          {first ? null : <a href="/dashboard/activity">Newest</a>}
          {next ? <a href={`/dashboard/activity?after=${next}`}>Older</a> : null}
        </nav>
      </section>
    </Layout>
  );
}
