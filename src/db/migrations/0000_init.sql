CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`type` text NOT NULL,
	`mode` text NOT NULL,
	`form_id` text,
	`permissions` text NOT NULL,
	`name` text,
	`hash` text NOT NULL,
	`prefix` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`form_id`) REFERENCES `forms`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash` ON `api_keys` (`hash`);--> statement-breakpoint
CREATE INDEX `api_keys_account` ON `api_keys` (`account_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `forms` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`mode` text NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`notification_email` text,
	`redirect_url` text,
	`allowed_domains` text DEFAULT '[]' NOT NULL,
	`fields` text DEFAULT '[]' NOT NULL,
	`submission_count` integer DEFAULT 0 NOT NULL,
	`spam_count` integer DEFAULT 0 NOT NULL,
	`unread_count` integer DEFAULT 0 NOT NULL,
	`starred_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `forms_slug` ON `forms` (`slug`);--> statement-breakpoint
CREATE INDEX `forms_account` ON `forms` (`account_id`,`mode`,`created_at`);--> statement-breakpoint
CREATE TABLE `submissions` (
	`id` text PRIMARY KEY NOT NULL,
	`form_id` text NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	`is_read` integer DEFAULT false NOT NULL,
	`is_starred` integer DEFAULT false NOT NULL,
	`is_spam` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`form_id`) REFERENCES `forms`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `submissions_form_spam` ON `submissions` (`form_id`,`is_spam`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `submissions_form_unread` ON `submissions` (`form_id`,`created_at`,`id`) WHERE "submissions"."is_spam" = 0 AND "submissions"."is_read" = 0;--> statement-breakpoint
CREATE INDEX `submissions_form_starred` ON `submissions` (`form_id`,`created_at`,`id`) WHERE "submissions"."is_spam" = 0 AND "submissions"."is_starred" = 1;