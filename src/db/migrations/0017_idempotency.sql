CREATE TABLE `idempotency_keys` (
	`form_id` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`submission_id` text NOT NULL,
	`location` text NOT NULL,
	`redirected` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`form_id`, `key`),
	FOREIGN KEY (`form_id`) REFERENCES `forms`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_submission` ON `idempotency_keys` (`submission_id`);--> statement-breakpoint
CREATE INDEX `idempotency_keys_created` ON `idempotency_keys` (`created_at`);
