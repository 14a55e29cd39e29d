CREATE TABLE `notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`form_id` text NOT NULL,
	`submission_id` text NOT NULL,
	`to` text NOT NULL,
	`subject` text NOT NULL,
	`reply_to` text,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	`sent_at` integer,
	`next_attempt_at` integer,
	FOREIGN KEY (`form_id`) REFERENCES `forms`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `notifications_form` ON `notifications` (`form_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `notifications_submission` ON `notifications` (`submission_id`);--> statement-breakpoint
CREATE INDEX `notifications_due` ON `notifications` (`next_attempt_at`) WHERE "notifications"."status" = 'pending';