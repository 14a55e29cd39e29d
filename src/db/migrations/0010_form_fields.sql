ALTER TABLE `forms` ADD `field_rules` text;--> statement-breakpoint
ALTER TABLE `forms` ADD `other_fields` text DEFAULT 'keep' NOT NULL;--> statement-breakpoint
ALTER TABLE `notifications` ADD `cc` text;
