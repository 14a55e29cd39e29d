-- Payments with a submission (docs/api.md, "Payments"): a form's payment, a submission's payment state, and the
-- provider's events already handled, so that each is handled once however often it is sent.
ALTER TABLE `forms` ADD `payment` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `unpaid` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `submissions` ADD `payment_status` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `payment_amount` integer;--> statement-breakpoint
ALTER TABLE `submissions` ADD `payment_currency` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `payment_session` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `payment_intent` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `payment_url` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `payment_checked_at` integer;--> statement-breakpoint
CREATE INDEX `submissions_form_payment` ON `submissions` (`form_id`,`payment_status`,`created_at`,`id`) WHERE "submissions"."payment_status" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `submissions_awaiting_payment` ON `submissions` (`created_at`) WHERE "submissions"."payment_status" = 'awaiting';--> statement-breakpoint
CREATE INDEX `submissions_payment_intent` ON `submissions` (`payment_intent`) WHERE "submissions"."payment_intent" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `payment_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`payment_intent` text,
	`received_at` integer NOT NULL
);--> statement-breakpoint
CREATE INDEX `payment_events_intent` ON `payment_events` (`payment_intent`) WHERE "payment_events"."payment_intent" IS NOT NULL;
