// The data of a form's Destinations section (pages/destinations.tsx), read for the settings page.
import type { FormRow } from "../db/schema.ts";
import type { Principal } from "../domain/types.ts";
import type { RequestContext } from "../http/context.ts";
import type { DestinationsShown } from "./pages/destinations.tsx";

/** The flash a test leaves for the page it redirects to. */
export const TEST_FLASH = "destination-test:";
/** How many recent deliveries to destinations the section lists. */
const RECENT = 10;

/** What the Destinations section of a form's settings shows: its destinations, circuits, recent deliveries, and a test's outcome from `flash`. */
export async function destinationsShownFor(ctx: RequestContext, principal: Principal, row: FormRow, flash: string | null): Promise<DestinationsShown> {
  const [destinations, circuits, page] = await Promise.all([
    ctx.services.destinations.list(principal, row.id),
    ctx.services.destinations.circuits(row.id, Date.now()),
    ctx.services.webhooks.deliveries(principal, row.id, null, { limit: 50, offset: 0 }),
  ]);
  const tested = flash?.startsWith(TEST_FLASH) ? JSON.parse(flash.slice(TEST_FLASH.length)) : null;
  const deliveries = page.deliveries.filter((d) => d.destinationId !== null).slice(0, RECENT);
  return { destinations, circuits, deliveries, tested };
}
