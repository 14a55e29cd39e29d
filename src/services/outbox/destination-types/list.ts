// The destination types, one module each (docs/api.md, "Destinations"): adding a type is its module and one line
// here. Everything that lists, checks, shows or sends a destination reads this array through index.ts.
import { airtable } from "./airtable.ts";
import { googleSheets } from "./google-sheets.ts";
import { mailchimp } from "./mailchimp.ts";
import { notion } from "./notion.ts";
import { ntfy } from "./ntfy.ts";
import { teams } from "./teams.ts";
import { telegram } from "./telegram.ts";

/** Every destination type, in the order the API, the dashboard and the documents list them. */
export const DESTINATION_KINDS = [googleSheets, airtable, notion, mailchimp, telegram, teams, ntfy] as const;
