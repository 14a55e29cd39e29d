import { asc, eq } from "drizzle-orm";
import type { Store } from "../db/client.ts";
import { accounts, type AccountRow } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import { newId } from "../lib/ids.ts";
import { iso } from "../lib/time.ts";

export interface Account {
  id: string;
  name: string;
  isDefault: boolean;
  createdAt: string;
}

const toAccount = (row: Pick<AccountRow, "id" | "name" | "isDefault" | "createdAt">): Account => ({
  id: row.id,
  name: row.name,
  isDefault: row.isDefault,
  createdAt: iso(row.createdAt),
});

/** Accounts own forms and keys; they are made and listed by the operator (local CLI) only. */
export function accountsService(store: Store) {
  return {
    /** Creates an account; the first one ever made becomes the default. */
    async create(name: string): Promise<Account> {
      const trimmed = name.trim();
      if (trimmed.length < 1 || trimmed.length > 200) {
        throw new ApiError("invalid_parameter", "An account name must be 1 to 200 characters.", { field: "name" });
      }
      return store.write(async (tx) => {
        const existing = await tx.select({ id: accounts.id }).from(accounts).limit(1);
        const row = { id: newId("account"), name: trimmed, isDefault: existing.length === 0, createdAt: Date.now() };
        await tx.insert(accounts).values(row);
        return toAccount(row);
      });
    },

    async list(): Promise<Account[]> {
      const rows = await store.db.select().from(accounts).orderBy(asc(accounts.createdAt), asc(accounts.id));
      return rows.map(toAccount);
    },

    /** The account `id` names, or the default one (made on first use) when no id is given. */
    async resolve(id?: string): Promise<Account> {
      if (id) {
        const [row] = await store.db.select().from(accounts).where(eq(accounts.id, id));
        if (!row) throw new ApiError("not_found", `No account ${id}. See: formsvc accounts list`);
        return toAccount(row);
      }
      const [row] = await store.db.select().from(accounts).where(eq(accounts.isDefault, true));
      if (row) return toAccount(row);
      return store.write(async (tx) => {
        const [again] = await tx.select().from(accounts).where(eq(accounts.isDefault, true));
        if (again) return toAccount(again);
        const fresh = { id: newId("account"), name: "default", isDefault: true, createdAt: Date.now() };
        await tx.insert(accounts).values(fresh);
        return toAccount(fresh);
      });
    },
  };
}
