import type { Command } from "commander";
import { PAGE_LIMIT } from "../src/domain/limits.ts";
import type { DeliveryPage, WebhookDelivery } from "../src/services/outbox/deliveries.ts";
import type { Webhook, WebhookWithSecret } from "../src/services/outbox/webhooks.ts";
import { withBackend, type ConnectionOptions } from "./backend.ts";
import { withFlagName } from "./errors.ts";
import type { Io } from "./io.ts";
import { printList, type Column } from "./output.ts";

const FLAGS = {
  url: "URL",
  description: "--description",
  format: "--format",
  limit: "--limit",
  offset: "--offset",
  webhook: "--webhook",
  destination: "--destination",
};

type Globals = ConnectionOptions & { json?: boolean };

const WEBHOOK_COLUMNS: Column<Webhook>[] = [
  { header: "id", value: (w) => w.id },
  { header: "url", value: (w) => w.url },
  { header: "format", value: (w) => w.format },
  { header: "secret", value: (w) => w.secretPrefix },
  { header: "description", value: (w) => w.description ?? "" },
  { header: "created", value: (w) => w.createdAt },
];

const DELIVERY_COLUMNS = (io: Io): Column<WebhookDelivery>[] => {
  const colour: Record<WebhookDelivery["status"], (text: string) => string> = { succeeded: io.chalk.green, pending: io.chalk.yellow, failed: io.chalk.red };
  return [
    { header: "id", value: (d) => d.id },
    { header: "created", value: (d) => d.createdAt },
    { header: "to", value: (d) => d.webhookId ?? d.destinationId ?? "" },
    { header: "status", value: (d) => d.status, style: (text, d) => colour[d.status](text) },
    { header: "attempts", value: (d) => d.attempts },
    { header: "code", value: (d) => d.responseStatus ?? "" },
    { header: "ms", value: (d) => d.durationMs ?? "" },
    { header: "submission", value: (d) => d.submissionId },
    { header: "webhook-id", value: (d) => d.messageId },
    { header: "next try", value: (d) => d.nextAttemptAt ?? "" },
    { header: "answer", value: (d) => d.error ?? d.responseSnippet ?? "" },
  ];
};

/** A new or rotated secret: alone on stdout (so that SECRET=$(…) works), the words on stderr; --json the whole object. */
function printSecret(io: Io, webhook: WebhookWithSecret, globals: Globals, what: string): void {
  if (globals.json) {
    io.out(`${JSON.stringify(webhook, null, 2)}\n`);
    return;
  }
  io.err(`${what} ${webhook.id} for ${webhook.url}. Its signing secret is shown only now: keep it safe.\n`);
  io.out(`${webhook.secret}\n`);
}

export interface AddFlags {
  description?: string;
  format?: string;
}

/** Adds a webhook endpoint to a form and prints its secret, this once. */
export async function runWebhooksAdd(ref: string, url: string, flags: AddFlags, globals: Globals, io: Io): Promise<void> {
  const body: Record<string, unknown> = { url };
  if (flags.description !== undefined) body.description = flags.description;
  if (flags.format !== undefined) body.format = flags.format;
  const webhook = await withBackend(globals, io.env, (backend) => backend.call<WebhookWithSecret>("createWebhook", { params: { id: ref }, body })).catch(
    (error) => Promise.reject(withFlagName(error, FLAGS)),
  );
  printSecret(io, webhook, globals, "Made webhook");
}

export interface DeliveryFlags {
  webhook?: string;
  destination?: string;
  limit?: string;
  offset?: string;
}

/** Lists a form's webhook deliveries (of one endpoint with --webhook), newest first. */
export async function runWebhooksDeliveries(ref: string, flags: DeliveryFlags, globals: Globals, io: Io): Promise<void> {
  const page = await withBackend(globals, io.env, (backend) =>
    backend
      .call<DeliveryPage>("listDeliveries", {
        params: { id: ref },
        query: { webhook: flags.webhook, destination: flags.destination, limit: flags.limit, offset: flags.offset },
      })
      .catch((error) => Promise.reject(withFlagName(error, FLAGS))),
  );
  printList(io, page.deliveries, DELIVERY_COLUMNS(io), {
    json: globals.json,
    empty: "No deliveries yet: each kept submission makes one per webhook and destination whose conditions it meets.",
  });
  const { offset, hasMore } = page.pagination;
  if (!globals.json && io.isTTY && hasMore) io.err(`More with --offset ${offset + page.deliveries.length}.\n`);
}

/** Lists a form's webhook endpoints, secrets hidden. */
export async function runWebhooksList(ref: string, globals: Globals, io: Io): Promise<void> {
  const list = await withBackend(globals, io.env, (backend) => backend.call<{ webhooks: Webhook[] }>("listWebhooks", { params: { id: ref } }));
  printList(io, list.webhooks, WEBHOOK_COLUMNS, { json: globals.json, empty: "No webhooks. Add one with: formsvc webhooks add FORM URL" });
}

/** Removes a webhook endpoint; its pending deliveries are not sent. */
export async function runWebhooksRemove(ref: string, webhookId: string, globals: Globals, io: Io): Promise<void> {
  await withBackend(globals, io.env, (backend) => backend.call("deleteWebhook", { params: { id: ref, webhookId } }));
  io.err(`Removed webhook ${webhookId}.\n`);
}

/** Gives an endpoint a new signing secret and prints it, this once. */
export async function runWebhooksRotate(ref: string, webhookId: string, globals: Globals, io: Io): Promise<void> {
  const rotated = await withBackend(globals, io.env, (backend) => backend.call<WebhookWithSecret>("rotateWebhookSecret", { params: { id: ref, webhookId } }));
  printSecret(io, rotated, globals, "Rotated the secret of webhook");
}

/** Queues a delivery to be sent again now, with the same webhook-id and body. */
export async function runWebhooksRedeliver(ref: string, deliveryId: string, globals: Globals, io: Io): Promise<void> {
  const delivery = await withBackend(globals, io.env, (backend) => backend.call<WebhookDelivery>("retryDelivery", { params: { id: ref, deliveryId } }));
  if (globals.json) io.out(`${JSON.stringify(delivery, null, 2)}\n`);
  io.err(`Queued delivery ${delivery.id} (${delivery.messageId}) to be sent again now.\n`);
}

export function webhooksCommand(program: Command, io: Io): void {
  const webhooks = program
    .command("webhooks")
    .description("send each submission of a form to your own systems, signed (Standard Webhooks), or to Slack or Discord")
    .addHelpText(
      "after",
      "\nExamples:\n  SECRET=$(formsvc webhooks add contact https://example.com/hooks/formsvc)\n  formsvc webhooks list contact\n  formsvc webhooks deliveries contact\n  formsvc webhooks redeliver contact dlv_01jd3k4m5n6p7q8r9s0t1v2w3x\n",
    );

  webhooks
    .command("add <form> <url>")
    .description("add a webhook endpoint to a form; its signing secret (whsec_…) is printed once")
    .option("--description <text>", "a note to tell endpoints apart")
    .option("--format <format>", "standard (signed JSON event, the default), slack or discord (a short message to an incoming-webhook address)")
    .addHelpText(
      "after",
      "\nExamples:\n  SECRET=$(formsvc webhooks add contact https://example.com/hooks/formsvc --description CRM)\n" +
        "  formsvc webhooks add contact https://hooks.slack.com/services/T000/B000/XXXX --format slack\n" +
        "  formsvc webhooks add contact https://example.com/hooks/formsvc --json | jq -r .id\n",
    )
    .action((ref: string, url: string, flags: AddFlags, command: Command) => runWebhooksAdd(ref, url, flags, command.optsWithGlobals(), io));

  webhooks
    .command("list <form>")
    .description("list a form's webhook endpoints (secrets hidden, their first characters shown)")
    .addHelpText("after", "\nExample:\n  formsvc webhooks list contact --json | jq -r '.[].url'\n")
    .action((ref: string, _flags, command: Command) => runWebhooksList(ref, command.optsWithGlobals(), io));

  webhooks
    .command("remove <form> <webhook>")
    .description("remove a webhook endpoint; its pending deliveries are not sent")
    .addHelpText("after", "\nExample:\n  formsvc webhooks remove contact whk_01jd3k4m5n6p7q8r9s0t1v2w3x\n")
    .action((ref: string, webhookId: string, _flags, command: Command) => runWebhooksRemove(ref, webhookId, command.optsWithGlobals(), io));

  webhooks
    .command("rotate <form> <webhook>")
    .description("give an endpoint a new signing secret, in force at once; the new secret is printed once")
    .addHelpText("after", "\nExample:\n  SECRET=$(formsvc webhooks rotate contact whk_01jd3k4m5n6p7q8r9s0t1v2w3x)\n")
    .action((ref: string, webhookId: string, _flags, command: Command) => runWebhooksRotate(ref, webhookId, command.optsWithGlobals(), io));

  webhooks
    .command("deliveries <form>")
    .description("list a form's deliveries to its webhooks and destinations, newest first: status, response code, time and the answer")
    .option("--webhook <webhook>", "only this endpoint's deliveries")
    .option("--destination <destination>", "only this destination's deliveries")
    .option("--limit <n>", `how many, ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max} (default ${PAGE_LIMIT.default})`)
    .option("--offset <n>", "how many to skip (default 0)")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc webhooks deliveries contact\n  formsvc webhooks deliveries contact --json | jq -r '.[] | select(.status == \"failed\") | .id'\n",
    )
    .action((ref: string, flags: DeliveryFlags, command: Command) => runWebhooksDeliveries(ref, flags, command.optsWithGlobals(), io));

  webhooks
    .command("redeliver <form> <delivery>")
    .description("send a delivery (a webhook's or a destination's) again now, with the same webhook-id and body")
    .addHelpText(
      "after",
      "\nExample:\n  formsvc webhooks redeliver contact dlv_01jd3k4m5n6p7q8r9s0t1v2w3x\n\nThe server sends it at once when asked remotely; after a local redeliver, within a few seconds.\n",
    )
    .action((ref: string, deliveryId: string, _flags, command: Command) => runWebhooksRedeliver(ref, deliveryId, command.optsWithGlobals(), io));
}
