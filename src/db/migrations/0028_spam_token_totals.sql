ALTER TABLE `accounts` ADD `spam_token_total` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `ham_token_total` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `accounts` SET
  `spam_token_total` = coalesce((SELECT sum(`spam`) FROM `spam_tokens` WHERE `spam_tokens`.`account_id` = `accounts`.`id`), 0),
  `ham_token_total` = coalesce((SELECT sum(`ham`) FROM `spam_tokens` WHERE `spam_tokens`.`account_id` = `accounts`.`id`), 0);
