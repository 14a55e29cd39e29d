ALTER TABLE `webhooks` ADD `failure_streak` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `circuit_open_until` integer;
