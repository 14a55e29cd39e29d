ALTER TABLE `webhooks` ADD `previous_secret` text;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `secret_rotated_at` integer;
