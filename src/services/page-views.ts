// Views of a form's page and embed, without a cookie and without keeping an address (docs/api.md, "Views"): a
// visitor is a keyed hash of (client network, form, UTC day), its key made at random for each day and replaced
// the next, when the day's hashes are deleted too. Each network counts once per form and day: not the
// User-Agent, which a client picks at will, so that one host cannot count a view per name it makes up.
import { and, between, eq, lt, sql } from "drizzle-orm";
import type { Store } from "../db/client.ts";
import { formViews, formVisitors, settings } from "../db/schema.ts";
import { DAY_MS } from "../domain/types.ts";
import { clientNetwork } from "../lib/address.ts";

/** The setting that holds today's key: `<day>.<key in base64>`, replaced on the first view of each day. */
const KEY_SETTING = "view_key";

const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

/** Who is viewing: the client's address, whose network the visitor's hash is made of, beside the form and the day. */
export interface Viewer {
  ip: string;
}

/** The views of a form's page and embed: counted per visitor and day, read per day. */
export function pageViewsService(store: Store) {
  let today: { day: number; key: Uint8Array } | null = null;

  const readKey = async (): Promise<{ day: number; key: Uint8Array } | null> => {
    const [row] = await store.db.select().from(settings).where(eq(settings.key, KEY_SETTING));
    const [day, key] = row?.value.split(".") ?? [];
    return day && key ? { day: Number(day), key: Buffer.from(key, "base64") } : null;
  };

  /** The key of `day`: read, or made when the stored one is an earlier day's (which goes, with that day's hashes). */
  async function keyOf(day: number): Promise<Uint8Array> {
    if (today?.day === day) return today.key;
    let stored = await readKey();
    if (stored?.day !== day) {
      const fresh = `${day}.${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;
      // Several servers on one database: the first to write the day's key wins, and the others read it.
      await store.write(async (tx) => {
        await tx
          .insert(settings)
          .values({ key: KEY_SETTING, value: fresh })
          .onConflictDoUpdate({ target: settings.key, set: { value: fresh }, setWhere: sql`CAST(${settings.value} AS INTEGER) < ${day}` });
        await tx.delete(formVisitors).where(lt(formVisitors.day, day));
      });
      stored = await readKey();
    }
    // A clock behind another server's: its day's key serves, and its hashes go with it tomorrow.
    today = { day, key: stored!.key };
    return today.key;
  }

  return {
    /** Counts a view of the form's page or embed by `viewer`, once a day; true when it was the visitor's first today. */
    async count(formId: string, viewer: Viewer, now = Date.now()): Promise<boolean> {
      const day = dayOf(now);
      const key = await keyOf(day);
      const visitor = new Bun.CryptoHasher("sha256", key)
        .update(`${clientNetwork(viewer.ip)}\n${formId}\n${day}`)
        .digest("base64url")
        .slice(0, 22);
      return store.write(
        async (tx) => {
          const added = await tx.insert(formVisitors).values({ formId, day, visitor }).onConflictDoNothing().returning({ day: formVisitors.day });
          if (added.length === 0) return false;
          await tx
            .insert(formViews)
            .values({ formId, day, views: 1 })
            .onConflictDoUpdate({ target: [formViews.formId, formViews.day], set: { views: sql`${formViews.views} + 1` } });
          return true;
        },
        { small: true },
      );
    },

    /** The form's views on each day from `first` to `last` (days since the epoch), by day; days without any are absent. */
    async daily(formId: string, first: number, last: number): Promise<Map<number, number>> {
      const rows = await store.db
        .select({ day: formViews.day, views: formViews.views })
        .from(formViews)
        .where(and(eq(formViews.formId, formId), between(formViews.day, first, last)));
      return new Map(rows.map((row) => [row.day, row.views]));
    },
  };
}
