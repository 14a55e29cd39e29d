CREATE TABLE `destinations` (
	`id` text PRIMARY KEY NOT NULL,
	`form_id` text NOT NULL,
	`type` text NOT NULL,
	`config` text NOT NULL,
	`fields` text,
	`when` text,
	`enabled` integer DEFAULT 1 NOT NULL,
	`created_at` integer NOT NULL,
	`failure_streak` integer DEFAULT 0 NOT NULL,
	`circuit_open_until` integer,
	FOREIGN KEY (`form_id`) REFERENCES `forms`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `destinations_form` ON `destinations` (`form_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `webhooks` ADD `when` text;--> statement-breakpoint
ALTER TABLE `forms` ADD `notification_routes` text;--> statement-breakpoint
CREATE TABLE `webhook_deliveries_new` (
	`id` text PRIMARY KEY NOT NULL,
	`webhook_id` text,
	`destination_id` text,
	`form_id` text NOT NULL,
	`submission_id` text NOT NULL,
	`message_id` text NOT NULL,
	`event_type` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`claimed_by` text,
	`claimed_until` integer,
	`response_status` integer,
	`duration_ms` integer,
	`response_snippet` text,
	`last_error` text,
	`last_attempt_at` integer,
	`delivered_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`destination_id`) REFERENCES `destinations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`form_id`) REFERENCES `forms`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `webhook_deliveries_new` (`id`, `webhook_id`, `destination_id`, `form_id`, `submission_id`, `message_id`, `event_type`, `payload`, `status`,
	`attempts`, `next_attempt_at`, `claimed_by`, `claimed_until`, `response_status`, `duration_ms`, `response_snippet`, `last_error`, `last_attempt_at`,
	`delivered_at`, `created_at`)
SELECT `id`, `webhook_id`, NULL, `form_id`, `submission_id`, `message_id`, `event_type`, `payload`, `status`, `attempts`, `next_attempt_at`, `claimed_by`,
	`claimed_until`, `response_status`, `duration_ms`, `response_snippet`, `last_error`, `last_attempt_at`, `delivered_at`, `created_at`
FROM `webhook_deliveries`;--> statement-breakpoint
DROP TABLE `webhook_deliveries`;--> statement-breakpoint
ALTER TABLE `webhook_deliveries_new` RENAME TO `webhook_deliveries`;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_webhook` ON `webhook_deliveries` (`webhook_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_destination` ON `webhook_deliveries` (`destination_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_form` ON `webhook_deliveries` (`form_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_submission` ON `webhook_deliveries` (`submission_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`next_attempt_at`) WHERE "webhook_deliveries"."status" = 'pending';
