ALTER TABLE `notifications` ADD `claimed_by` text;--> statement-breakpoint
ALTER TABLE `notifications` ADD `claimed_until` integer;