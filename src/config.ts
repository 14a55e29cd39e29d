export { redactedSmtpUrl, shownMailUrl } from "./config-values.ts";
import { flagName, SETTINGS, type Setting } from "./config-settings.ts";
import { ApiError } from "./errors.ts";
import type { S3Target } from "./lib/s3.ts";

// What `formsvc serve` is told, read from the settings declared in config-settings.ts: flags win over the
// environment, which wins over the defaults.

type SettingKey = keyof typeof SETTINGS;

/** Everything `formsvc serve` can be told, after flags, environment and defaults are merged and checked. */
export type ServeConfig = { [K in SettingKey]: ReturnType<(typeof SETTINGS)[K]["parse"]> } & {
  /** The token of a libSQL server (Turso), from FORMSVC_DB_AUTH_TOKEN only: never a flag, so never in `ps` or a log line. */
  dbAuthToken?: string;
  /** The bucket of --backup-s3 with its credentials, from the usual AWS environment variables only; or null. */
  backupS3Target: S3Target | null;
  /** Which of baseUrl and submitUrl were derived from host and port (and so follow the port actually bound). */
  derived: { baseUrl: boolean; submitUrl: boolean };
};

/** What was given on the command line, by setting. */
export type ServeFlags = Partial<Record<SettingKey, string | number | boolean | undefined>>;

/** Flags win over the environment, which wins over the defaults; every value is checked once, here. */
export function loadServeConfig(flags: ServeFlags, env: Record<string, string | undefined> = process.env): ServeConfig {
  const given = (key: SettingKey): string | undefined => {
    const flag = flags[key];
    if (flag !== undefined && flag !== "") return String(flag);
    const fromEnv = env[SETTINGS[key].env];
    return fromEnv !== undefined && fromEnv !== "" ? fromEnv : undefined;
  };
  const config: Record<string, unknown> = {};
  for (const [key, declared] of Object.entries(SETTINGS) as [SettingKey, Setting<unknown>][]) {
    config[key] = declared.parse(given(key) ?? declared.default, flagName(declared.flag), config);
  }
  config.dbAuthToken = env.FORMSVC_DB_AUTH_TOKEN || undefined;
  config.backupS3Target = s3Target(config.backupS3 as { bucket: string; key: string } | null, config.backupS3Endpoint as string | null, env);
  // With --domain the public address is the domain's, fixed: it does not follow the port bound.
  const withDomain = (config.domains as string[]).length > 0;
  config.derived = { baseUrl: given("baseUrl") === undefined && !withDomain, submitUrl: given("submitUrl") === undefined };
  return config as ServeConfig;
}

/**
 * A setting as the environment gives it (an empty value is none), else its default, read through its own parser
 * (no earlier values: for settings that need none): the CLI's local mode and the workers read serve's settings so.
 */
export function settingFromEnv<K extends SettingKey>(key: K, env: Record<string, string | undefined> = {}): ServeConfig[K] {
  const declared = SETTINGS[key] as Setting<unknown>;
  const given = env[declared.env];
  return declared.parse(given !== undefined && given !== "" ? given : declared.default, flagName(declared.flag), {}) as ServeConfig[K];
}

/** The --backup-s3 bucket with the credentials of the usual AWS environment variables. */
function s3Target(target: { bucket: string; key: string } | null, endpoint: string | null, env: Record<string, string | undefined>): S3Target | null {
  if (!target) return null;
  if (!env.AWS_ACCESS_KEY_ID || !env.AWS_SECRET_ACCESS_KEY) {
    throw new ApiError("invalid_parameter", "backup-s3 needs the bucket's credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", { field: "backup-s3" });
  }
  return {
    bucket: target.bucket,
    prefix: target.key,
    endpoint: endpoint ?? undefined,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || "us-east-1",
    accessKeyId: env.AWS_ACCESS_KEY_ID,
    secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
    sessionToken: env.AWS_SESSION_TOKEN || undefined,
  };
}
