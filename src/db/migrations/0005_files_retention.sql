CREATE TABLE `files` (
	`id` text PRIMARY KEY NOT NULL,
	`submission_id` text NOT NULL,
	`form_id` text NOT NULL,
	`field` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`size` integer NOT NULL,
	`content` blob NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`form_id`) REFERENCES `forms`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `files_submission` ON `files` (`submission_id`);--> statement-breakpoint
CREATE INDEX `files_form` ON `files` (`form_id`);--> statement-breakpoint
ALTER TABLE `forms` ADD `file_uploads` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `forms` ADD `retention_days` integer;--> statement-breakpoint
ALTER TABLE `forms` ADD `spam_retention_days` integer DEFAULT 30;