import type { Store } from "../../db/client.ts";
import { ApiError } from "../../errors.ts";
import { recordActivity } from "../people/activity.ts";
import type { FormsService } from "../forms.ts";
import type { Principal } from "../../domain/types.ts";
import type { submissionsService } from "./submissions.ts";

/** What a bulk action does to each submission: a change of its flags, or its deletion. */
export const BULK_ACTIONS: Record<string, Record<string, boolean> | "delete"> = {
  star: { isStarred: true },
  unstar: { isStarred: false },
  read: { isRead: true },
  unread: { isRead: false },
  spam: { isSpam: true },
  notspam: { isSpam: false },
  delete: "delete",
};

/** Actions on a selection of a form's submissions: each goes through the one path, and the log gets one entry. */
export function submissionBulkService(store: Store, forms: FormsService, submissions: ReturnType<typeof submissionsService>) {
  return {
    /** Applies `action` to every id; answers how many were changed. */
    async apply(principal: Principal, formRef: string, ids: string[], action: string): Promise<number> {
      const what = BULK_ACTIONS[action];
      if (!what) throw new ApiError("invalid_parameter", `Unknown action "${action}".`, { field: "action" });
      const form = await forms.findRow(principal, formRef);
      for (const id of ids) {
        // Not one entry each: the whole action is one entry, below.
        if (what === "delete") await submissions.remove(principal, form.id, id, { record: false });
        else await submissions.update(principal, form.id, id, what, { record: false });
      }
      if (ids.length > 0) {
        const summary =
          what === "delete"
            ? `Deleted ${ids.length} submissions of "${form.name}".`
            : `Marked ${ids.length} submissions of "${form.name}" ${action === "notspam" ? "not spam" : action}.`;
        await store.write((tx) => recordActivity(tx, principal, `submissions.${action}`, form.id, summary));
      }
      return ids.length;
    },
  };
}
