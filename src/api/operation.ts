import { authorize } from "../http/auth.ts";
import { readJson } from "../http/body.ts";
import type { ZodType } from "zod";
import type { Handler, RequestContext } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import type { ResponseSchemaName } from "../openapi/schemas.ts";
import type { Zod } from "../lib/validate.ts";
import type { Permission, Principal } from "../domain/types.ts";
import { parseQuery, type QueryName, type QueryValues } from "./query.ts";

/**
 * The JSON body an operation takes, declared with it: the zod schema its service validates it with (made on
 * first use), the name the document lists that schema under, an example the operation accepts (the document
 * shows it, and the security suite sends it), and what its fields mean beyond their types.
 */
export interface RequestBody {
  /** The schema's name under components.schemas; operations that take the same body share it. */
  name: string;
  schema: () => Promise<ZodType>;
  example: Record<string, unknown>;
  /** Sentences a type cannot say (defaults, what null does, rules the service checks), by field name. */
  notes?: Record<string, string>;
}

/**
 * Which keys an operation takes: `account` keys only; `form`: account keys or a form-level key of the form
 * in the path; `public`: none. (The dashboard's pages, behind a session, are not operations of the API.)
 */
export type Scope = "account" | "form" | "public";

/** What a handler receives: the request, its key's principal, its query read by the declared schemas, its JSON body. */
export interface OperationContext<Q extends QueryName = never> extends RequestContext {
  principal: Principal;
  query: QueryValues<Q>;
  /** The JSON body, read (size and syntax checked) when the operation declares one; its service validates it. */
  body: unknown;
}

/**
 * One operation of the API, declared once: the router, the key check, the OpenAPI document, the security
 * tests and the remote CLI all read it.
 */
export interface Operation<Q extends QueryName = QueryName> {
  method: "GET" | "POST" | "PATCH" | "DELETE" | "OPTIONS";
  /** OpenAPI's form: `/api/forms/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  scope: Scope;
  /** Needed by every scope but public. */
  permission?: Permission;
  query?: readonly Q[];
  /** What a query parameter means here, where that differs from its meaning elsewhere in the API. */
  queryNotes?: Partial<Record<Q, string>>;
  body?: RequestBody;
  /** The success: its status, and the schema of its JSON body, or another media type, or none (204). */
  ok: {
    status: number;
    description: string;
    /** A schema of src/openapi/schemas.ts, or one this operation defines (with `define`) under that name. */
    schema?: ResponseSchemaName | (string & {});
    /** The JSON body's schema, for an answer only this operation gives: the document lists it under `schema`. */
    define?: (z: Zod) => ZodType;
    media?: Record<string, string | { description: string; arrayOf: ResponseSchemaName }>;
    headers?: Record<string, string>;
    /** An answer as the document shows it, for a schema this operation defines; shared schemas have theirs in src/openapi/examples.ts. */
    example?: unknown;
  };
  /** Error statuses beyond those every operation of its scope has. */
  errors?: number[];
  // A method, so that an operation of any query fits a list of operations.
  handler(ctx: OperationContext<Q>): Promise<Response>;
}

/** Declares an operation; its query names give the handler's `ctx.query` its types. */
export const operation = <const Q extends QueryName = never>(declared: Operation<Q>): Operation<Q> => declared;

/** Where every form's own routes start. */
export const FORM = "/api/forms/{id}";
/** The answer header of a create that says where the new resource is. */
export const LOCATION = { Location: "The new resource's address." };

/** The router's form of a declared path: `/api/forms/:id`. */
export const routerPath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1");

/** The handler the router runs: the key check the declaration names, its query read, its body read, then the operation. */
function guarded(declared: Operation): Handler {
  // A public operation takes the request as it is: it has no key, and reads its own query and body.
  if (declared.scope === "public") return (ctx) => declared.handler(ctx as OperationContext<QueryName>);
  const permission = declared.permission;
  if (!permission) throw new Error(`${declared.operationId} takes a key but declares no permission`);
  const formScoped = declared.scope === "form";
  return async (ctx) => {
    const principal = await authorize(ctx, permission, { formScoped });
    const query = await parseQuery(declared.query ?? [], Object.fromEntries(ctx.url.searchParams));
    const body = declared.body ? await readJson(ctx.request, ctx.options.maxBody) : undefined;
    return declared.handler({ ...ctx, principal, query, body });
  };
}

/** Adds every operation to the router, in the order given (a literal segment before a parameter of the same place). */
export function routeOperations(router: Router<Handler>, operations: readonly Operation[]): void {
  // A write of the management API names its whole path: `/api/forms/F/` may be a client's `/api/forms/F/webhooks/..`.
  // A read takes a trailing slash, and so does a public post (a site's form may post to `/f/contact/`).
  for (const declared of operations) {
    router.on(declared.method, routerPath(declared.path), guarded(declared), { exact: declared.method !== "GET" && declared.scope !== "public" });
  }
}
