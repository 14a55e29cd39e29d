import { and, desc, eq, inArray, lt } from "drizzle-orm";
import type { Db, Store } from "../../db/client.ts";
import { activity, type ActivityRow } from "../../db/schema.ts";
import { PAGE_LIMIT } from "../../domain/limits.ts";
import { ApiError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";
import { iso } from "../../lib/time.ts";

/** One entry of an account's activity log, as the API, the CLI and the dashboard show it. */
export interface Activity {
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string;
  summary: string;
}

export interface ActivityPage {
  activity: Activity[];
  pagination: { limit: number; hasMore: boolean; nextCursor: string | null };
}

/** Who acts, in the log's words: the principal's actor, else the local CLI. */
export const actorOf = (principal: { actor?: string }): string => principal.actor ?? "cli";

/** The host of an address, for summaries: a webhook's path and query may hold a token (Slack's do). */
export const hostOf = (url: string): string => (URL.canParse(url) ? new URL(url).host : "an address");

const MAX_SUMMARY = 300;

const toActivity = (row: ActivityRow): Activity => ({
  id: row.id,
  at: iso(row.at),
  actor: row.actor,
  action: row.action,
  target: row.target,
  summary: row.summary,
});

/**
 * Records one entry of the acting principal's account's log, in the caller's transaction so that the entry
 * and the change it tells of are written together. `action` is `resource.verb` (form.update), `target` the
 * id acted on, `summary` a short sentence that never holds a secret.
 */
export async function recordActivity(db: Db, principal: { accountId: string; actor?: string }, action: string, target: string, summary: string): Promise<void> {
  const now = Date.now();
  await db.insert(activity).values({
    id: newId("activity", now),
    accountId: principal.accountId,
    at: now,
    actor: actorOf(principal),
    action,
    target,
    summary: summary.length > MAX_SUMMARY ? `${summary.slice(0, MAX_SUMMARY - 1)}…` : summary,
  });
}

/** Reads `limit` (PAGE_LIMIT) and `after` (an activity id) from a query; anything else is refused. */
export function parseActivityQuery(params: Record<string, string | undefined>): { limit: number; after: string | null } {
  const { limit = String(PAGE_LIMIT.default), after } = params;
  if (!/^\d+$/.test(limit) || Number(limit) < PAGE_LIMIT.min || Number(limit) > PAGE_LIMIT.max) {
    throw new ApiError("invalid_parameter", `limit must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}, not "${limit}".`, { field: "limit" });
  }
  if (after !== undefined && !/^act_[0-9a-z]{22}$/.test(after)) {
    throw new ApiError("invalid_parameter", `after must be an activity id (the nextCursor of a page), not "${after}".`, { field: "after" });
  }
  return { limit: Number(limit), after: after ?? null };
}

/** The activity log: pages of an account's entries, newest first, and the purge of old ones. */
export function activityService(store: Store) {
  return {
    /** The account's entries, newest first; `after` is the last id of the previous page. */
    async list(accountId: string, query: { limit: number; after: string | null }): Promise<ActivityPage> {
      const rows = await store.db
        .select()
        .from(activity)
        .where(and(eq(activity.accountId, accountId), query.after ? lt(activity.id, query.after) : undefined))
        .orderBy(desc(activity.id))
        .limit(query.limit + 1);
      const hasMore = rows.length > query.limit;
      const page = rows.slice(0, query.limit).map(toActivity);
      return { activity: page, pagination: { limit: query.limit, hasMore, nextCursor: hasMore ? page[page.length - 1]!.id : null } };
    },

    /** Deletes entries older than `before` (ms), in small batches; answers how many went. */
    async purge(before: number): Promise<number> {
      let total = 0;
      for (;;) {
        const gone = await store.write(async (tx) => {
          const ids = await tx.select({ id: activity.id }).from(activity).where(lt(activity.at, before)).limit(500);
          if (ids.length > 0)
            await tx.delete(activity).where(
              inArray(
                activity.id,
                ids.map((row) => row.id),
              ),
            );
          return ids.length;
        });
        total += gone;
        if (gone < 500) return total;
      }
    },
  };
}

export type ActivityService = ReturnType<typeof activityService>;
