import { eq, inArray, sql } from "drizzle-orm";
import type { Store } from "../db/client.ts";
import { apiKeys, forms, settings, users } from "../db/schema.ts";

/** What serve's start-up lines say of the database. */
export interface StartFacts {
  apiKeys: number;
  /** Whether any dashboard user exists (without one, serve prints a setup link). */
  dashboardUser: boolean;
  /** Forms that take files (serve says when --max-body, not --max-file-size, bounds them). */
  formsTakingFiles: number;
}

/** The public addresses a server serves under, as it last recorded them. */
export interface ServedUrls {
  baseUrl: string;
  submitUrl: string;
}

const KEYS = { baseUrl: "base_url", submitUrl: "submit_url" } as const;
const LEARNT_BASE_URL = "learnt_base_url";
/** Whether the server lets webhooks and destinations reach private addresses (--webhooks-allow-private). */
const SERVED_ALLOW_PRIVATE = "served_webhooks_allow_private";

/**
 * What `formsvc serve` records in the database for the local CLI: the addresses it serves under, so that a
 * form's submitUrl reads the same in local mode as from the server itself.
 */
export function settingsService(store: Store) {
  return {
    /**
     * The start-up lines' facts in one read: one small statement rather than three built queries keeps a
     * start's work (and the query-building code it would warm) down.
     */
    async startFacts(): Promise<StartFacts> {
      // all(), not get(): on bun:sqlite drizzle's get() of raw SQL gives the row's values, on libSQL an object.
      const [row] = (await store.db.all(
        sql`SELECT (SELECT count(*) FROM ${apiKeys}) AS keys, EXISTS (SELECT 1 FROM ${users}) AS users,
          (SELECT count(*) FROM ${forms} WHERE ${forms.fileUploads} = 1) AS files`,
      )) as { keys: number; users: number; files: number }[];
      if (!row) throw new Error("the start-up read gave no row");
      return { apiKeys: Number(row.keys), dashboardUser: Number(row.users) === 1, formsTakingFiles: Number(row.files) };
    },

    /** Records the addresses; a restart under the same ones writes nothing, so it needs no write lock and builds no insert. */
    async recordServedUrls(urls: ServedUrls): Promise<void> {
      const recorded = await this.servedUrls();
      if (recorded?.baseUrl === urls.baseUrl && recorded.submitUrl === urls.submitUrl) return;
      await store.write(async (tx) => {
        for (const [name, key] of Object.entries(KEYS)) {
          const value = urls[name as keyof ServedUrls];
          await tx.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value } });
        }
      });
    },

    /**
     * Records whether the server lets webhooks and destinations reach private addresses, so that the local CLI
     * adds and checks them by the server's rule rather than refuse what the server takes. Unchanged, no write.
     */
    async recordServedAllowPrivate(allowPrivate: boolean): Promise<void> {
      const value = String(allowPrivate);
      if ((await this.servedAllowPrivate()) === allowPrivate) return;
      await store.write(async (tx) => {
        await tx.insert(settings).values({ key: SERVED_ALLOW_PRIVATE, value }).onConflictDoUpdate({ target: settings.key, set: { value } });
      });
    },

    /** Whether the last server let webhooks reach private addresses; null when no server recorded it. */
    async servedAllowPrivate(): Promise<boolean | null> {
      const [row] = await store.db.select().from(settings).where(eq(settings.key, SERVED_ALLOW_PRIVATE));
      return row ? row.value === "true" : null;
    },

    /** The public address learnt behind a trusted proxy (see learnBaseUrl), or null. */
    async learntBaseUrl(): Promise<string | null> {
      const [row] = await store.db.select().from(settings).where(eq(settings.key, LEARNT_BASE_URL));
      return row?.value ?? null;
    },

    /**
     * Records `origin` as the public address unless one was learnt before, and answers the one in force: the
     * first wins, so that every process on the database links to the same address.
     */
    async learnBaseUrl(origin: string): Promise<string> {
      await store.write(async (tx) => {
        await tx.insert(settings).values({ key: LEARNT_BASE_URL, value: origin }).onConflictDoNothing();
      });
      return (await this.learntBaseUrl()) ?? origin;
    },

    /** The addresses the last server recorded, or null when no server has run on this database. */
    async servedUrls(): Promise<ServedUrls | null> {
      const rows = await store.db
        .select()
        .from(settings)
        .where(inArray(settings.key, Object.values(KEYS)));
      const value = (key: string) => rows.find((row) => row.key === key)?.value;
      const baseUrl = value(KEYS.baseUrl);
      const submitUrl = value(KEYS.submitUrl);
      return baseUrl && submitUrl ? { baseUrl, submitUrl } : null;
    },
  };
}
