-- The schema on PostgreSQL: the same tables and columns under the same names as the SQLite migrations leave
-- (src/db/migrations/), checked by test/unit/postgres-schema.test.ts. Integers are int8 (times in milliseconds),
-- flags 0/1 integers as on SQLite, text in byte order (COLLATE "C") so that lists order alike whatever the
-- database's locale.
CREATE TABLE "accounts" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"is_default" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"spam_marks" bigint DEFAULT 0 NOT NULL,
	"ham_marks" bigint DEFAULT 0 NOT NULL,
	"spam_token_total" bigint DEFAULT 0 NOT NULL,
	"ham_token_total" bigint DEFAULT 0 NOT NULL);
--> statement-breakpoint
CREATE TABLE "activity" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"account_id" text COLLATE "C" NOT NULL,
	"at" bigint NOT NULL,
	"actor" text COLLATE "C" NOT NULL,
	"action" text COLLATE "C" NOT NULL,
	"target" text COLLATE "C" NOT NULL,
	"summary" text COLLATE "C" NOT NULL,
	FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "altcha_used" (
	"signature" text COLLATE "C" PRIMARY KEY NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "form_settings_stamp" (
	"id" bigint PRIMARY KEY NOT NULL CHECK ("id" = 1),
	"stamp" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "forms" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"account_id" text COLLATE "C" NOT NULL,
	"mode" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"slug" text COLLATE "C" NOT NULL,
	"is_active" bigint DEFAULT 1 NOT NULL,
	"notification_email" text COLLATE "C",
	"redirect_url" text COLLATE "C",
	"allowed_domains" text COLLATE "C" DEFAULT '[]' NOT NULL,
	"fields" text COLLATE "C" DEFAULT '[]' NOT NULL,
	"submission_count" bigint DEFAULT 0 NOT NULL,
	"spam_count" bigint DEFAULT 0 NOT NULL,
	"unread_count" bigint DEFAULT 0 NOT NULL,
	"starred_count" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"last_submission_at" bigint DEFAULT 0 NOT NULL,
	"file_uploads" bigint DEFAULT 0 NOT NULL,
	"retention_days" bigint,
	"spam_retention_days" bigint DEFAULT 30,
	"captcha_provider" text COLLATE "C",
	"captcha_secret" text COLLATE "C",
	"field_rules" text COLLATE "C",
	"other_fields" text COLLATE "C" DEFAULT 'keep' NOT NULL,
	"captcha_complexity" bigint,
	"spam_rules" text COLLATE "C",
	"spam_filter_enabled" bigint DEFAULT 1 NOT NULL,
	"spam_filter_threshold" double precision,
	"confirmation" text COLLATE "C",
	"page" text COLLATE "C",
	"captcha_site_key" text COLLATE "C",
	"notification_routes" text COLLATE "C",
	FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"account_id" text COLLATE "C" NOT NULL,
	"type" text COLLATE "C" NOT NULL,
	"mode" text COLLATE "C" NOT NULL,
	"form_id" text COLLATE "C",
	"permissions" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C",
	"hash" text COLLATE "C" NOT NULL,
	"prefix" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint,
	"last_used_at" bigint,
	FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade,
	FOREIGN KEY ("form_id") REFERENCES "forms"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "destinations" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"form_id" text COLLATE "C" NOT NULL,
	"type" text COLLATE "C" NOT NULL,
	"config" text COLLATE "C" NOT NULL,
	"fields" text COLLATE "C",
	"when" text COLLATE "C",
	"enabled" bigint DEFAULT 1 NOT NULL,
	"created_at" bigint NOT NULL,
	"failure_streak" bigint DEFAULT 0 NOT NULL,
	"circuit_open_until" bigint,
	FOREIGN KEY ("form_id") REFERENCES "forms"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "form_views" (
	"form_id" text COLLATE "C" NOT NULL,
	"day" bigint NOT NULL,
	"views" bigint DEFAULT 0 NOT NULL,
	PRIMARY KEY("form_id",
	"day"),
	FOREIGN KEY ("form_id") REFERENCES "forms"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "form_visitors" (
	"form_id" text COLLATE "C" NOT NULL,
	"day" bigint NOT NULL,
	"visitor" text COLLATE "C" NOT NULL,
	PRIMARY KEY("form_id",
	"day",
	"visitor"),
	FOREIGN KEY ("form_id") REFERENCES "forms"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "invitations" (
	"token_hash" text COLLATE "C" PRIMARY KEY NOT NULL,
	"account_id" text COLLATE "C" NOT NULL,
	"email" text COLLATE "C" NOT NULL,
	"role" text COLLATE "C" NOT NULL,
	"form_ids" text COLLATE "C",
	"invited_by" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text COLLATE "C" PRIMARY KEY NOT NULL,
	"value" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "spam_tokens" (
	"account_id" text COLLATE "C" NOT NULL,
	"token" text COLLATE "C" NOT NULL,
	"spam" bigint DEFAULT 0 NOT NULL,
	"ham" bigint DEFAULT 0 NOT NULL,
	PRIMARY KEY("account_id",
	"token"),
	FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "submission_days" (
	"form_id" text COLLATE "C" NOT NULL,
	"day" bigint NOT NULL,
	"submission_count" bigint DEFAULT 0 NOT NULL,
	"spam_count" bigint DEFAULT 0 NOT NULL,
	"unread_count" bigint DEFAULT 0 NOT NULL,
	"starred_count" bigint DEFAULT 0 NOT NULL,
	PRIMARY KEY("form_id",
	"day"),
	FOREIGN KEY ("form_id") REFERENCES "forms"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "submission_minutes" (
	"form_id" text COLLATE "C" NOT NULL,
	"minute" bigint NOT NULL,
	"submission_count" bigint DEFAULT 0 NOT NULL,
	"spam_count" bigint DEFAULT 0 NOT NULL,
	"unread_count" bigint DEFAULT 0 NOT NULL,
	"starred_count" bigint DEFAULT 0 NOT NULL,
	PRIMARY KEY("form_id",
	"minute"),
	FOREIGN KEY ("form_id") REFERENCES "forms"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "submissions" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"form_id" text COLLATE "C" NOT NULL,
	"data" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	"is_read" bigint DEFAULT 0 NOT NULL,
	"is_starred" bigint DEFAULT 0 NOT NULL,
	"is_spam" bigint DEFAULT 0 NOT NULL,
	"spam_reason" text COLLATE "C",
	"spam_score" double precision,
	"spam_tokens" text COLLATE "C",
	"data_hash" text COLLATE "C",
	"held" text COLLATE "C",
	"trained" text COLLATE "C",
	"unconfirmed" bigint DEFAULT 0 NOT NULL,
	"confirmed_at" bigint,
	"confirmed_from" text COLLATE "C",
	FOREIGN KEY ("form_id") REFERENCES "forms"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "files" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"submission_id" text COLLATE "C" NOT NULL,
	"form_id" text COLLATE "C" NOT NULL,
	"field" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"type" text COLLATE "C" NOT NULL,
	"size" bigint NOT NULL,
	"content" bytea NOT NULL,
	"created_at" bigint NOT NULL,
	FOREIGN KEY ("submission_id") REFERENCES "submissions"("id") ON DELETE cascade,
	FOREIGN KEY ("form_id") REFERENCES "forms"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"form_id" text COLLATE "C" NOT NULL,
	"key" text COLLATE "C" NOT NULL,
	"fingerprint" text COLLATE "C" NOT NULL,
	"submission_id" text COLLATE "C" NOT NULL,
	"location" text COLLATE "C" NOT NULL,
	"redirected" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	PRIMARY KEY("form_id",
	"key"),
	FOREIGN KEY ("form_id") REFERENCES "forms"("id") ON DELETE cascade,
	FOREIGN KEY ("submission_id") REFERENCES "submissions"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"form_id" text COLLATE "C" NOT NULL,
	"submission_id" text COLLATE "C" NOT NULL,
	"to" text COLLATE "C" NOT NULL,
	"subject" text COLLATE "C" NOT NULL,
	"reply_to" text COLLATE "C",
	"status" text COLLATE "C" NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"last_error" text COLLATE "C",
	"created_at" bigint NOT NULL,
	"sent_at" bigint,
	"next_attempt_at" bigint,
	"claimed_by" text COLLATE "C",
	"claimed_until" bigint,
	"cc" text COLLATE "C",
	"kind" text COLLATE "C" DEFAULT 'notification' NOT NULL,
	"reason" text COLLATE "C",
	"body" text COLLATE "C",
	"from_name" text COLLATE "C",
	FOREIGN KEY ("form_id") REFERENCES "forms"("id") ON DELETE cascade,
	FOREIGN KEY ("submission_id") REFERENCES "submissions"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"account_id" text COLLATE "C" NOT NULL,
	"email" text COLLATE "C" NOT NULL,
	"password_hash" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	"password_changed_at" bigint NOT NULL,
	"role" text COLLATE "C" DEFAULT 'owner' NOT NULL,
	"form_ids" text COLLATE "C",
	FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"token_hash" text COLLATE "C" PRIMARY KEY NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	"csrf_token" text COLLATE "C" NOT NULL,
	"via_link" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"last_seen_at" bigint NOT NULL,
	FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "signin_links" (
	"token_hash" text COLLATE "C" PRIMARY KEY NOT NULL,
	"kind" text COLLATE "C" NOT NULL,
	"user_id" text COLLATE "C",
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"form_id" text COLLATE "C" NOT NULL,
	"url" text COLLATE "C" NOT NULL,
	"description" text COLLATE "C",
	"format" text COLLATE "C" DEFAULT 'standard' NOT NULL,
	"secret" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	"failure_streak" bigint DEFAULT 0 NOT NULL,
	"circuit_open_until" bigint,
	"previous_secret" text COLLATE "C",
	"secret_rotated_at" bigint,
	"when" text COLLATE "C",
	FOREIGN KEY ("form_id") REFERENCES "forms"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"webhook_id" text COLLATE "C",
	"destination_id" text COLLATE "C",
	"form_id" text COLLATE "C" NOT NULL,
	"submission_id" text COLLATE "C" NOT NULL,
	"message_id" text COLLATE "C" NOT NULL,
	"event_type" text COLLATE "C" NOT NULL,
	"payload" text COLLATE "C" NOT NULL,
	"status" text COLLATE "C" NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint,
	"claimed_by" text COLLATE "C",
	"claimed_until" bigint,
	"response_status" bigint,
	"duration_ms" bigint,
	"response_snippet" text COLLATE "C",
	"last_error" text COLLATE "C",
	"last_attempt_at" bigint,
	"delivered_at" bigint,
	"created_at" bigint NOT NULL,
	FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE cascade,
	FOREIGN KEY ("destination_id") REFERENCES "destinations"("id") ON DELETE cascade,
	FOREIGN KEY ("form_id") REFERENCES "forms"("id") ON DELETE cascade,
	FOREIGN KEY ("submission_id") REFERENCES "submissions"("id") ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO "form_settings_stamp" ("id", "stamp") VALUES (1, 0);
--> statement-breakpoint
-- The number every change of a form's settings raises (src/db/migrations/0029_form_settings_stamp.sql on SQLite).
CREATE FUNCTION "form_settings_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "form_settings_stamp" SET "stamp" = "stamp" + 1;
	RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "form_settings_made" AFTER INSERT ON "forms" FOR EACH ROW EXECUTE FUNCTION "form_settings_bump"();
--> statement-breakpoint
CREATE TRIGGER "form_settings_gone" AFTER DELETE ON "forms" FOR EACH ROW EXECUTE FUNCTION "form_settings_bump"();
--> statement-breakpoint
-- A settings change sets updated_at; the writes of a post change only the counters, the newest submission's
-- time or the field list.
CREATE TRIGGER "form_settings_changed" AFTER UPDATE ON "forms" FOR EACH ROW
WHEN (NEW."updated_at" IS DISTINCT FROM OLD."updated_at"
	OR (NEW."submission_count", NEW."spam_count", NEW."unread_count", NEW."starred_count", NEW."last_submission_at", NEW."fields")
		IS NOT DISTINCT FROM (OLD."submission_count", OLD."spam_count", OLD."unread_count", OLD."starred_count", OLD."last_submission_at", OLD."fields"))
EXECUTE FUNCTION "form_settings_bump"();
--> statement-breakpoint
CREATE INDEX "activity_account" ON "activity" ("account_id", "id");
--> statement-breakpoint
CREATE INDEX "activity_at" ON "activity" ("at");
--> statement-breakpoint
CREATE INDEX "altcha_used_expires" ON "altcha_used" ("expires_at");
--> statement-breakpoint
CREATE INDEX "api_keys_account" ON "api_keys" ("account_id","created_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash" ON "api_keys" ("hash");
--> statement-breakpoint
CREATE INDEX "destinations_form" ON "destinations" ("form_id","created_at");
--> statement-breakpoint
CREATE INDEX "files_form" ON "files" ("form_id");
--> statement-breakpoint
CREATE INDEX "files_submission" ON "files" ("submission_id");
--> statement-breakpoint
END;
--> statement-breakpoint
END;
--> statement-breakpoint
END;
--> statement-breakpoint
CREATE INDEX "form_visitors_day" ON "form_visitors" ("day");
--> statement-breakpoint
CREATE INDEX "forms_account" ON "forms" ("account_id","mode","created_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "forms_slug" ON "forms" ("slug");
--> statement-breakpoint
CREATE INDEX "idempotency_keys_created" ON "idempotency_keys" ("created_at");
--> statement-breakpoint
CREATE INDEX "idempotency_keys_submission" ON "idempotency_keys" ("submission_id");
--> statement-breakpoint
CREATE INDEX "invitations_account" ON "invitations" ("account_id", "created_at");
--> statement-breakpoint
CREATE INDEX "notifications_confirmations" ON "notifications" ("form_id","to","created_at") WHERE "notifications"."kind" = 'confirmation';
--> statement-breakpoint
CREATE INDEX "notifications_due" ON "notifications" ("next_attempt_at") WHERE "notifications"."status" = 'pending';
--> statement-breakpoint
CREATE INDEX "notifications_form" ON "notifications" ("form_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "notifications_submission" ON "notifications" ("submission_id");
--> statement-breakpoint
CREATE INDEX "sessions_user" ON "sessions" ("user_id");
--> statement-breakpoint
CREATE INDEX "submissions_form_hash" ON "submissions" ("form_id","data_hash","created_at") WHERE "submissions"."data_hash" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "submissions_form_spam" ON "submissions" ("form_id","is_spam","created_at","id");
--> statement-breakpoint
CREATE INDEX "submissions_form_starred" ON "submissions" ("form_id","created_at","id") WHERE "submissions"."is_spam" = 0 AND "submissions"."is_starred" = 1;
--> statement-breakpoint
CREATE INDEX "submissions_form_unconfirmed" ON "submissions" ("form_id","created_at","id") WHERE "submissions"."unconfirmed" = 1;
--> statement-breakpoint
CREATE INDEX "submissions_form_unread" ON "submissions" ("form_id","created_at","id") WHERE "submissions"."is_spam" = 0 AND "submissions"."is_read" = 0;
--> statement-breakpoint
CREATE UNIQUE INDEX "users_email" ON "users" ("email");
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_destination" ON "webhook_deliveries" ("destination_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due" ON "webhook_deliveries" ("next_attempt_at") WHERE "webhook_deliveries"."status" = 'pending';
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_form" ON "webhook_deliveries" ("form_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_submission" ON "webhook_deliveries" ("submission_id");
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_webhook" ON "webhook_deliveries" ("webhook_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "webhooks_form" ON "webhooks" ("form_id","created_at");
