import { inArray } from "drizzle-orm";
import type { Store } from "../db/client.ts";
import { settings } from "../db/schema.ts";

/** The public addresses a server serves under, as it last recorded them. */
export interface ServedUrls {
  baseUrl: string;
  submitUrl: string;
}

const KEYS = { baseUrl: "base_url", submitUrl: "submit_url" } as const;

/**
 * What `formsvc serve` records in the database for the local CLI: the addresses it serves under, so that a
 * form's submitUrl reads the same in local mode as from the server itself.
 */
export function settingsService(store: Store) {
  return {
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
