ALTER TABLE `forms` ADD `captcha_complexity` integer;--> statement-breakpoint
ALTER TABLE `forms` ADD `spam_rules` text;--> statement-breakpoint
ALTER TABLE `forms` ADD `spam_filter_enabled` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `forms` ADD `spam_filter_threshold` real;--> statement-breakpoint
ALTER TABLE `submissions` ADD `spam_score` real;--> statement-breakpoint
ALTER TABLE `submissions` ADD `spam_tokens` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `data_hash` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `held` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `trained` text;--> statement-breakpoint
UPDATE `submissions` SET `held` = '{}' WHERE `is_spam` = 1 AND coalesce(`spam_reason`, 'honeypot') <> 'owner';--> statement-breakpoint
CREATE INDEX `submissions_form_hash` ON `submissions` (`form_id`,`data_hash`,`created_at`) WHERE "submissions"."data_hash" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `spam_marks` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `ham_marks` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE TABLE `spam_tokens` (
	`account_id` text NOT NULL,
	`token` text NOT NULL,
	`spam` integer DEFAULT 0 NOT NULL,
	`ham` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`account_id`, `token`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `altcha_used` (
	`signature` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `altcha_used_expires` ON `altcha_used` (`expires_at`);
