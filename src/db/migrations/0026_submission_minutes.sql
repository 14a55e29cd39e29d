CREATE TABLE `submission_minutes` (
	`form_id` text NOT NULL,
	`minute` integer NOT NULL,
	`submission_count` integer DEFAULT 0 NOT NULL,
	`spam_count` integer DEFAULT 0 NOT NULL,
	`unread_count` integer DEFAULT 0 NOT NULL,
	`starred_count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`form_id`, `minute`),
	FOREIGN KEY (`form_id`) REFERENCES `forms`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `submission_minutes` (`form_id`, `minute`, `submission_count`, `spam_count`, `unread_count`, `starred_count`)
SELECT `form_id`, `created_at` / 60000,
  sum(`is_spam` = 0 AND `unconfirmed` = 0),
  sum(`is_spam` = 1),
  sum(`is_spam` = 0 AND `unconfirmed` = 0 AND `is_read` = 0),
  sum(`is_spam` = 0 AND `unconfirmed` = 0 AND `is_starred` = 1)
FROM `submissions` GROUP BY `form_id`, `created_at` / 60000;
