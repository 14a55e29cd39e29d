import { and, desc, eq } from "drizzle-orm";
import type { Store } from "../db/client.ts";
import { apiKeys, type ApiKeyRow } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import { newId } from "../lib/ids.ts";
import { displayPrefix, generateKey, hashKey, parseKey, type KeyType } from "../lib/keys.ts";
import { iso } from "../lib/time.ts";
import { lazySchema, parseBody } from "../lib/validate.ts";
import { recordActivity } from "./people/activity.ts";
import type { FormsService } from "./forms.ts";
import { PERMISSIONS, type Mode, type Permission, type Principal } from "../domain/types.ts";
import { hasPermission, parsePermissions } from "./principal.ts";

/** A key as lists show it: never the secret, only its first characters. */
export interface ApiKey {
  id: string;
  type: KeyType;
  name: string | null;
  prefix: string;
  permissions: Permission[];
  formId: string | null;
  mode: Mode;
  createdAt: string;
  revokedAt: string | null;
  /** When the key last authenticated a request (to the minute), or null when never. */
  lastUsedAt: string | null;
}

/** A key just made: the only time the secret is shown. */
export interface NewApiKey {
  id: string;
  key: string;
  type: KeyType;
  permissions: Permission[];
  formId: string | null;
  name: string | null;
  createdAt: string;
}

/** The body of POST /api/keys (the OpenAPI document is generated from it too). */
export const createSchema = lazySchema((z) =>
  z.strictObject({
    type: z.enum(["live", "test", "form"], { error: "type must be live, test or form." }).optional(),
    formId: z.string({ error: "formId must be a form's id or slug." }).optional(),
    permissions: z.union([z.array(z.string()), z.string()], { error: 'permissions must be an array such as ["read"].' }).optional(),
    name: z.string({ error: "name must be a string." }).trim().max(200, "name must be at most 200 characters.").nullish(),
  }),
);

const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  type: row.type as KeyType,
  name: row.name,
  prefix: row.prefix,
  permissions: row.permissions.split(",") as Permission[],
  formId: row.formId,
  mode: row.mode as Mode,
  createdAt: iso(row.createdAt),
  revokedAt: row.revokedAt === null ? null : iso(row.revokedAt),
  lastUsedAt: row.lastUsedAt === null ? null : iso(row.lastUsedAt),
});

/** How stale lastUsedAt may get before a request refreshes it: at most one write a minute per key. */
const LAST_USED_STEP_MS = 60_000;

const unauthorized = (message: string) => new ApiError("unauthorized", message, { headers: { "WWW-Authenticate": 'Bearer realm="formsvc"' } });

/** API keys: minted, listed and revoked within the acting account and mode; and the check of every request's key. */
export function keysService(store: Store, formsService: FormsService) {
  return {
    async create(principal: Principal, body: unknown): Promise<NewApiKey> {
      const input = parseBody(await createSchema(), body);
      const type: KeyType = input.type ?? principal.mode;
      if (type !== "form" && type !== principal.mode) {
        throw new ApiError("forbidden", `A ${principal.mode} key can only make ${principal.mode} keys.`, { field: "type" });
      }
      if (principal.formId) throw new ApiError("forbidden", "A form-level key cannot make keys.");
      let formId: string | null = null;
      if (type === "form") {
        if (!input.formId) throw new ApiError("invalid_body", "formId is required for a form-level key.", { field: "formId" });
        formId = (await formsService.findRow(principal, input.formId)).id;
      } else if (input.formId) {
        throw new ApiError("invalid_body", "formId goes only with type form.", { field: "formId" });
      }
      const permissions =
        input.permissions === undefined ? (type === "form" ? (["read"] as Permission[]) : [...PERMISSIONS]) : parsePermissions(input.permissions);
      const beyond = permissions.find((p) => !hasPermission(principal, p));
      if (beyond) throw new ApiError("forbidden", `This key cannot grant the ${beyond} permission, which it lacks itself.`, { field: "permissions" });

      const key = generateKey(type);
      const row: ApiKeyRow = {
        id: newId("key"),
        accountId: principal.accountId,
        type,
        mode: principal.mode,
        formId,
        permissions: permissions.join(","),
        name: input.name || null,
        hash: hashKey(key),
        prefix: displayPrefix(key),
        createdAt: Date.now(),
        revokedAt: null,
        lastUsedAt: null,
      };
      await store.write(async (tx) => {
        await tx.insert(apiKeys).values(row);
        await recordActivity(
          tx,
          principal,
          "key.create",
          row.id,
          `Created ${type} key ${row.prefix} (${permissions.join(", ")})${row.name ? ` named "${row.name}"` : ""}.`,
        );
      });
      return { id: row.id, key, type, permissions, formId, name: row.name, createdAt: iso(row.createdAt) };
    },

    async list(principal: Principal): Promise<ApiKey[]> {
      const rows = await store.db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.accountId, principal.accountId), eq(apiKeys.mode, principal.mode)))
        .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
      return rows.map(toApiKey);
    },

    /** Revokes a key at once; revoking a revoked key changes nothing. */
    async revoke(principal: Principal, id: string): Promise<ApiKey> {
      return store.write(async (tx) => {
        const [row] = await tx
          .select()
          .from(apiKeys)
          .where(and(eq(apiKeys.id, id), eq(apiKeys.accountId, principal.accountId), eq(apiKeys.mode, principal.mode)));
        if (!row) throw new ApiError("not_found", `No key ${id}.`);
        if (row.revokedAt !== null) return toApiKey(row);
        const [revoked] = await tx.update(apiKeys).set({ revokedAt: Date.now() }).where(eq(apiKeys.id, id)).returning();
        await recordActivity(tx, principal, "key.revoke", id, `Revoked ${row.type} key ${row.prefix}.`);
        return toApiKey(revoked!);
      });
    },

    /** The principal behind an `Authorization` header, or 401 for a missing, malformed, unknown or revoked key. */
    async authenticate(header: string | null): Promise<Principal> {
      if (!header) throw unauthorized("This call needs an API key: send Authorization: Bearer <key>.");
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) throw unauthorized("The Authorization header must be Bearer <key>.");
      const key = match[1]!;
      // A malformed key or a bad checksum is refused without a database look-up.
      if (!parseKey(key)) throw unauthorized("That API key is not valid.");
      const [row] = await store.db
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.hash, hashKey(key)));
      if (!row || row.revokedAt !== null) throw unauthorized("That API key is not valid or has been revoked.");
      const now = Date.now();
      if (row.lastUsedAt === null || now - row.lastUsedAt >= LAST_USED_STEP_MS) {
        await store.write((tx) => tx.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, row.id)));
      }
      return {
        accountId: row.accountId,
        mode: row.mode as Mode,
        permissions: new Set(row.permissions.split(",") as Permission[]),
        formId: row.formId,
        keyId: row.id,
        actor: `key:${row.prefix.replace(/…$/, "")}`,
      };
    },
  };
}
