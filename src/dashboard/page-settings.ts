import type { FormRow } from "../db/schema.ts";
import { DAY_MS } from "../domain/types.ts";
import type { RequestContext } from "../http/context.ts";
import { conversion } from "../lib/conversion.ts";
import { dailyStats } from "../services/form-stats.ts";
import type { Session } from "../services/people/users.ts";
import { ownForm } from "./http.ts";
import { pageInput, pageSection, type PageInput } from "./pages/page-section.tsx";
import type { SettingsSection } from "./pages/settings.tsx";

/** What the page section shows after a post of its own: the posted inputs, and a notice or errors. */
export interface PageShown {
  input: PageInput;
  errors?: Record<string, string>;
  notice?: string;
}

/** The days the section's views and conversion are counted over. */
const DAYS = 30;

/** The page section of a form's settings, with the views and conversion of its last 30 days. */
export async function pageSectionFor(ctx: RequestContext, session: Session, row: FormRow, shown?: PageShown): Promise<SettingsSection> {
  const { principal } = await ownForm(ctx, session, row.id);
  const stats = await dailyStats(ctx.services, principal, row.id, { since: Date.now() - (DAYS - 1) * DAY_MS, until: null });
  const numbers = {
    days: DAYS,
    views: stats.days.reduce((sum, day) => sum + day.views, 0),
    submissions: stats.days.reduce((sum, day) => sum + day.submissions, 0),
    conversion: conversion(stats.days),
  };
  const form = ctx.services.forms.toForm(row);
  return pageSection({ session, form, numbers, input: shown?.input ?? pageInput(form.page), errors: shown?.errors, notice: shown?.notice });
}
