ALTER TABLE `forms` ADD `page` text;--> statement-breakpoint
ALTER TABLE `forms` ADD `captcha_site_key` text;--> statement-breakpoint
CREATE TABLE `form_views` (
	`form_id` text NOT NULL,
	`day` integer NOT NULL,
	`views` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`form_id`, `day`),
	FOREIGN KEY (`form_id`) REFERENCES `forms`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `form_visitors` (
	`form_id` text NOT NULL,
	`day` integer NOT NULL,
	`visitor` text NOT NULL,
	PRIMARY KEY(`form_id`, `day`, `visitor`),
	FOREIGN KEY (`form_id`) REFERENCES `forms`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `form_visitors_day` ON `form_visitors` (`day`);
