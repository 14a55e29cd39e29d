ALTER TABLE `forms` ADD `last_submission_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `forms` SET `last_submission_at` = (SELECT coalesce(max(`created_at`), 0) FROM `submissions` WHERE `submissions`.`form_id` = `forms`.`id`);
