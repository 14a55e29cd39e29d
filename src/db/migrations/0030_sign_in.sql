-- Sign-in that holds (docs/dashboard.md, "Signing in"): a user's TOTP secret (set once a correct code turned it
-- on; pending while being set up) and the last time step a code was accepted in (a code is used once), its
-- recovery codes (SHA-256 only, each used once), passkeys, what each session's list shows, and whether the
-- account requires two-step sign-in of every member.
ALTER TABLE `users` ADD `totp_secret` text;
--> statement-breakpoint
ALTER TABLE `users` ADD `totp_pending` text;
--> statement-breakpoint
ALTER TABLE `users` ADD `totp_last_step` integer;
--> statement-breakpoint
ALTER TABLE `accounts` ADD `require_two_step` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE TABLE `recovery_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `recovery_codes_user` ON `recovery_codes` (`user_id`);
--> statement-breakpoint
CREATE TABLE `passkeys` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`public_key` text NOT NULL,
	`counter` integer NOT NULL,
	`transports` text,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `passkeys_user` ON `passkeys` (`user_id`);
--> statement-breakpoint
ALTER TABLE `sessions` ADD `user_agent` text;
--> statement-breakpoint
ALTER TABLE `sessions` ADD `ip` text;
