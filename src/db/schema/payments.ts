// What payments keep beside the submissions (docs/api.md, "Payments").
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Each payment provider's event already handled, by its id: a resent event changes nothing. */
export const paymentEvents = sqliteTable(
  "payment_events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    /** The payment a refund names, so that a refund told before its payment still applies once the payment is. */
    paymentIntent: text("payment_intent"),
    receivedAt: integer("received_at").notNull(),
  },
  (t) => [index("payment_events_intent").on(t.paymentIntent).where(sql`${t.paymentIntent} IS NOT NULL`)],
);
