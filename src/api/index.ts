import { activityOperations } from "./activity.ts";
import { destinationOperations } from "./destinations.ts";
import { formPageOperations } from "./form-page.ts";
import { formOperations } from "./forms.ts";
import { keyOperations } from "./keys.ts";
import { notificationOperations } from "./notifications.ts";
import { paymentOperations } from "./payments.ts";
import type { Operation } from "./operation.ts";
import { altchaWidgetOperation, publicOperations } from "./public.ts";
import { statsOperations } from "./stats.ts";
import { submissionOperations } from "./submissions.ts";
import { webhookOperations } from "./webhooks.ts";

/**
 * Every operation of the API, in the order a reader meets them (forms and their data, what forms send out,
 * keys, then the public endpoint): the router, the OpenAPI document, the security tests and the remote CLI
 * all read this list. A new resource's file adds its line here.
 */
export const OPERATIONS: readonly Operation[] = [
  ...formOperations,
  ...submissionOperations,
  ...notificationOperations,
  ...webhookOperations,
  ...destinationOperations,
  ...keyOperations,
  ...publicOperations,
  altchaWidgetOperation,
  ...paymentOperations,
  ...formPageOperations,
  ...statsOperations,
  ...activityOperations,
];

/** The operation of this id (among `operations`, all of them but in tests); a name no declaration has is a mistake in the caller. */
export function operationById(operationId: string, operations: readonly Operation[] = OPERATIONS): Operation {
  const found = operations.find((declared) => declared.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  return found;
}

/** What a client sends for an operation: its method, its path with the parameters filled in, and the declared query parameters given. */
export function requestFor(
  operationId: string,
  params: Record<string, string> = {},
  query: Record<string, string | undefined> = {},
  operations: readonly Operation[] = OPERATIONS,
): { method: string; path: string; query: Record<string, string | undefined> } {
  const declared = operationById(operationId, operations);
  const path = declared.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${operationId} needs the path parameter ${name}`);
    return encodeURIComponent(value);
  });
  const names: readonly string[] = declared.query ?? [];
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && !names.includes(name)) throw new Error(`${operationId} declares no query parameter ${name}`);
  }
  return { method: declared.method, path, query };
}
