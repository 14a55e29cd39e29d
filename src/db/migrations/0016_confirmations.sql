ALTER TABLE `forms` ADD `confirmation` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `unconfirmed` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `submissions` ADD `confirmed_at` integer;--> statement-breakpoint
ALTER TABLE `submissions` ADD `confirmed_from` text;--> statement-breakpoint
ALTER TABLE `notifications` ADD `kind` text DEFAULT 'notification' NOT NULL;--> statement-breakpoint
ALTER TABLE `notifications` ADD `reason` text;--> statement-breakpoint
ALTER TABLE `notifications` ADD `body` text;--> statement-breakpoint
ALTER TABLE `notifications` ADD `from_name` text;--> statement-breakpoint
CREATE INDEX `notifications_confirmations` ON `notifications` (`form_id`,`to`,`created_at`) WHERE "notifications"."kind" = 'confirmation';--> statement-breakpoint
CREATE INDEX `submissions_form_unconfirmed` ON `submissions` (`form_id`,`created_at`,`id`) WHERE "submissions"."unconfirmed" = 1;
