/** @jsxImportSource hono/jsx */
import type { Activity } from "../../services/people/activity.ts";
import type { Session } from "../../services/people/users.ts";
import { Layout, Time } from "./layout.tsx";
import { DataTable } from "./table.tsx";

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
          <DataTable
            label="Activity"
            rows={entries}
            columns={[
              { title: "When", cell: (entry) => <Time iso={entry.at} /> },
              { title: "Who", wide: true, cell: (entry) => entry.actor },
              {
                title: "What",
                cell: (entry) => (
                  <>
                    <span class="summary">{entry.summary}</span>
                    <span class="narrow-only muted">{entry.actor}</span>
                  </>
                ),
              },
              { title: "Action", wide: true, cell: (entry) => <code>{entry.action}</code> },
            ]}
          />
        )}
        <nav class="pages" aria-label="Pages">
          {first ? null : <a href="/dashboard/activity">Newest</a>}
          {next ? <a href={`/dashboard/activity?after=${next}`}>Older</a> : null}
        </nav>
      </section>
    </Layout>
  );
}
