import type { Command } from "commander";
import { PAGE_LIMIT } from "../src/domain/limits.ts";
import type { Notification, NotificationPage } from "../src/services/outbox/notifications.ts";
import { withBackend, type ConnectionOptions } from "./backend.ts";
import { withFlagName } from "./errors.ts";
import type { Io } from "./io.ts";
import { printList, type Column } from "./output.ts";

const FLAGS = { limit: "--limit", offset: "--offset" };

export interface NotificationListFlags {
  limit?: string;
  offset?: string;
}

const COLUMNS = (io: Io): Column<Notification>[] => {
  const colour: Record<Notification["status"], (text: string) => string> = {
    sent: io.chalk.green,
    pending: io.chalk.yellow,
    failed: io.chalk.red,
    recorded: io.chalk.dim,
    refused: io.chalk.dim,
  };
  return [
    { header: "id", value: (n) => n.id },
    { header: "created", value: (n) => n.createdAt },
    { header: "kind", value: (n) => n.kind },
    { header: "status", value: (n) => n.status, style: (text, n) => colour[n.status](text) },
    { header: "attempts", value: (n) => n.attempts },
    { header: "to", value: (n) => n.to },
    { header: "subject", value: (n) => n.subject },
    { header: "submission", value: (n) => n.submissionId },
    { header: "sent", value: (n) => n.sentAt ?? "" },
    { header: "next try", value: (n) => n.nextAttemptAt ?? "" },
    { header: "error", value: (n) => n.lastError ?? n.reason ?? "" },
  ];
};

/** Lists a form's notification emails, newest first: a table on a terminal, tab-separated rows piped, or --json. */
export async function runNotificationsList(ref: string, flags: NotificationListFlags, globals: ConnectionOptions & { json?: boolean }, io: Io): Promise<void> {
  const page = await withBackend(globals, io.env, (backend) =>
    backend
      .call<NotificationPage>("listNotifications", { params: { id: ref }, query: { limit: flags.limit, offset: flags.offset } })
      .catch((error) => Promise.reject(withFlagName(error, FLAGS))),
  );
  printList(io, page.notifications, COLUMNS(io), {
    json: globals.json,
    empty: "No notifications: the form has no notificationEmail, or nothing was submitted since it got one.",
  });
  const { offset, hasMore } = page.pagination;
  if (!globals.json && io.isTTY && hasMore) io.err(`More with --offset ${offset + page.notifications.length}.\n`);
}

/** Puts a form's failed notifications (with --pending, the pending ones too) back in the queue, and says how many. */
export async function runNotificationsRetry(ref: string, flags: { pending?: boolean }, globals: ConnectionOptions & { json?: boolean }, io: Io): Promise<void> {
  const pending = Boolean(flags.pending);
  const result = await withBackend(globals, io.env, (backend) =>
    backend.call<{ retried: number }>("retryNotifications", { params: { id: ref }, query: { pending: pending ? "true" : undefined } }),
  );
  if (globals.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
  const plural = result.retried === 1 ? "" : "s";
  if (pending)
    io.err(
      result.retried === 0
        ? "No pending or failed notifications to send.\n"
        : `Queued ${result.retried} pending or failed notification${plural} to be sent now.\n`,
    );
  else io.err(result.retried === 0 ? "No failed notifications to retry.\n" : `Queued ${result.retried} failed notification${plural} to be sent again.\n`);
}

export function notificationsCommand(program: Command, io: Io): void {
  const notifications = program
    .command("notifications")
    .description("see the notification emails of a form's submissions: sent, pending, failed, or recorded (test forms)")
    .addHelpText("after", "\nExamples:\n  formsvc notifications list contact\n  formsvc notifications retry contact\n");

  notifications
    .command("list <form>")
    .description("list a form's notification emails, newest first (one page of 50 unless --limit)")
    .option("--limit <n>", `how many, ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max} (default ${PAGE_LIMIT.default})`)
    .option("--offset <n>", "how many to skip (default 0)")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc notifications list contact\n  formsvc notifications list contact --json | jq -r '.[] | select(.status == \"failed\") | .lastError'\n",
    )
    .action((ref: string, flags: NotificationListFlags, command: Command) => runNotificationsList(ref, flags, command.optsWithGlobals(), io));

  notifications
    .command("retry <form>")
    .description("send a form's failed notification emails again (after mending the mail settings, say)")
    .option("--pending", "also send the pending ones now, rather than at their next retry time")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc notifications retry contact\n  formsvc notifications retry contact --pending\n\nThe server sends them at once when asked remotely; after a local retry, within a minute.\n",
    )
    .action((ref: string, flags: { pending?: boolean }, command: Command) => runNotificationsRetry(ref, flags, command.optsWithGlobals(), io));
}
