import type { Form } from "../../domain/types.ts";
import type { RenderedConfirmation } from "../../lib/confirmation-text.ts";
import type { Session } from "../../services/people/users.ts";
import type { Webhook } from "../../services/outbox/webhooks.ts";
import type { ConfirmationInput } from "./confirmation.tsx";
import type { DestinationsShown } from "./destinations.tsx";
import type { FieldsInput } from "./fields-section.tsx";
import type { PageSectionProps } from "./page-section.tsx";
import type { SettingsInput } from "./settings.tsx";
import type { SpamInput } from "./spam-settings.tsx";
import type { ShownSecret } from "./webhooks.tsx";

/** What a section of the settings page may show: the form, the reader, the server's limits, what was posted. */
export interface SectionContext {
  session: Session;
  form: Form;
  /** The errors of a refused post, by input name (`form` for the section's own). */
  errors: Record<string, string | undefined>;
  /** The largest file and post the server takes, in bytes (--max-file-size, --max-body). */
  limits: { maxFileSize: number; maxBody: number };
  /** The mail server in use (no password), or null when mail is off. */
  mailServer: string | null;
  /** The general section's inputs (as posted, when refused). */
  general: SettingsInput;
  spam: SpamInput;
  /** The fields editor as posted, when it was refused or grew a row; else as saved. */
  fields?: FieldsInput;
  webhooks: Webhook[];
  /** A webhook secret just made, shown once. */
  secret: ShownSecret | null;
  confirmation: { input: ConfirmationInput; errors?: Record<string, string>; notice?: string; preview: RenderedConfirmation };
  /** The form's own page: its inputs and its views and conversion. */
  page: PageSectionProps;
  /** Where submissions are sent beside the webhooks: the destinations, their circuits and recent deliveries. */
  destinations: DestinationsShown;
}
