import type { FormRow } from "../db/schema.ts";
import { DAY_MS } from "../domain/types.ts";
import type { RequestContext } from "../http/context.ts";
import { conversion } from "../lib/conversion.ts";
import { dailyStats } from "../services/form-stats.ts";
import type { Principal } from "../domain/types.ts";
import { pageInput, type PageInput, type PageSectionProps } from "./pages/page-section.tsx";

/** What the page section shows after a post of its own: the posted inputs, and a notice or errors. */
export interface PageShown {
  input: PageInput;
  errors?: Record<string, string>;
  notice?: string;
}

/** The days the section's views and conversion are counted over. */
const DAYS = 30;

/** What the page section shows: the inputs (as posted, or as saved), a notice or errors, and the views and conversion of the last 30 days. */
export async function pageShownFor(ctx: RequestContext, principal: Principal, row: FormRow, shown?: PageShown): Promise<PageSectionProps> {
  const stats = await dailyStats(ctx.services, principal, row.id, { since: Date.now() - (DAYS - 1) * DAY_MS, until: null });
  const numbers = {
    days: DAYS,
    views: stats.days.reduce((sum, day) => sum + day.views, 0),
    submissions: stats.days.reduce((sum, day) => sum + day.submissions, 0),
    conversion: conversion(stats.days),
  };
  return { numbers, input: shown?.input ?? pageInput(ctx.services.forms.toForm(row).page), errors: shown?.errors, notice: shown?.notice };
}
