import { and, desc, eq } from "drizzle-orm";
import type { Store } from "../../db/client.ts";
import { sessions } from "../../db/schema.ts";
import { ApiError } from "../../errors.ts";
import { browserName } from "../../lib/user-agent.ts";
import { iso } from "../../lib/time.ts";
import { SESSION_IDLE_MS, sessionId } from "./users.ts";

/** A signed-in session as Account → Sessions lists it: never its token. */
export interface SessionEntry {
  id: string;
  browser: string;
  ip: string | null;
  startedAt: string;
  lastUsedAt: string;
  /** The session of the browser looking at the list. */
  current: boolean;
}

/** A user's signed-in sessions: listed, and ended one by one or all but the current one. */
export function sessionsService(store: Store) {
  async function rowsOf(userId: string) {
    const rows = await store.db.select().from(sessions).where(eq(sessions.userId, userId)).orderBy(desc(sessions.lastSeenAt));
    // A session idle past its time is over, whether or not its row has been swept yet.
    return rows.filter((row) => row.lastSeenAt > Date.now() - SESSION_IDLE_MS);
  }

  return {
    /** The user's live sessions, the most recently used first. */
    async list(userId: string, currentId: string): Promise<SessionEntry[]> {
      return (await rowsOf(userId)).map((row) => ({
        id: sessionId(row.tokenHash),
        browser: browserName(row.userAgent),
        ip: row.ip,
        startedAt: iso(row.createdAt),
        lastUsedAt: iso(row.lastSeenAt),
        current: sessionId(row.tokenHash) === currentId,
      }));
    },

    /** Signs one of the user's sessions out (another user's is not found). */
    async end(userId: string, id: string): Promise<void> {
      const row = (await rowsOf(userId)).find((r) => sessionId(r.tokenHash) === id);
      if (!row) throw new ApiError("not_found", "That session has already ended.");
      await store.write((tx) => tx.delete(sessions).where(eq(sessions.tokenHash, row.tokenHash)));
    },

    /** Signs out every session of the user but the current one; how many ended. */
    async endOthers(userId: string, currentId: string): Promise<number> {
      const others = (await rowsOf(userId)).filter((r) => sessionId(r.tokenHash) !== currentId);
      await store.write(async (tx) => {
        for (const row of others) await tx.delete(sessions).where(and(eq(sessions.userId, userId), eq(sessions.tokenHash, row.tokenHash)));
      });
      return others.length;
    },
  };
}
