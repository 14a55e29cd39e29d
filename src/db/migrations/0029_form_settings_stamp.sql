-- A number that every change of a form's settings raises (a form made, changed or deleted), and that the
-- counters and field list a post writes leave alone: the public endpoint keeps the forms it read until it
-- changes, instead of reading every form again after each commit of a batch of posts.
CREATE TABLE `form_settings_stamp` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	`stamp` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `form_settings_stamp` (`id`, `stamp`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `form_settings_made` AFTER INSERT ON `forms` BEGIN
	UPDATE `form_settings_stamp` SET `stamp` = `stamp` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `form_settings_gone` AFTER DELETE ON `forms` BEGIN
	UPDATE `form_settings_stamp` SET `stamp` = `stamp` + 1;
END;
--> statement-breakpoint
-- A settings change sets updated_at; one in the same millisecond as the last is still told from the writes of a
-- post, which change only the counters, the newest submission's time or the field list.
CREATE TRIGGER `form_settings_changed` AFTER UPDATE ON `forms`
WHEN NEW.`updated_at` IS NOT OLD.`updated_at`
	OR (NEW.`submission_count`, NEW.`spam_count`, NEW.`unread_count`, NEW.`starred_count`, NEW.`last_submission_at`, NEW.`fields`)
		IS (OLD.`submission_count`, OLD.`spam_count`, OLD.`unread_count`, OLD.`starred_count`, OLD.`last_submission_at`, OLD.`fields`)
BEGIN
	UPDATE `form_settings_stamp` SET `stamp` = `stamp` + 1;
END;
