// Loaded by every command: the database, the services and the HTTP client are imported (`await import`) only
// when a backend of their kind is opened, so that a command pays only for the mode it runs in.
import { existsSync } from "node:fs";
import { loadServeConfig, settingFromEnv } from "../src/config.ts";
import { isLibsqlUrl } from "../src/db/location.ts";
import { ApiError } from "../src/errors.ts";
import type { DailyStats } from "../src/services/form-stats.ts";
import type { Services } from "../src/services/index.ts";
import type { ActivityPage } from "../src/services/people/activity.ts";
import type { ApiKey, NewApiKey } from "../src/services/keys.ts";
import type { NotificationPage } from "../src/services/outbox/notifications.ts";
import type { DeliveryPage, WebhookDelivery } from "../src/services/outbox/deliveries.ts";
import type { Webhook, WebhookWithSecret } from "../src/services/outbox/webhooks.ts";
import type { Destination, DestinationTestResult } from "../src/services/outbox/destinations.ts";
import type { ExportFormat, Form, Principal, Submission } from "../src/domain/types.ts";
import { inEitherMode, operator } from "../src/services/principal.ts";
import type { Erasure } from "../src/services/retention.ts";
import type { SubmissionPage } from "../src/services/submissions/submissions.ts";
import type { ApiClient } from "./client.ts";
import { CliError, EXIT } from "./errors.ts";

/** List parameters as the API takes them: strings, checked by the same code in both modes. */
export type QueryParams = Record<string, string | undefined>;

/**
 * What every command needs, the same in both modes: local mode calls the services on the database file,
 * remote mode calls the management API. Both return the API's JSON objects, so output cannot differ.
 */
export interface Backend {
  readonly kind: "local" | "remote";
  forms: {
    list(): Promise<Form[]>;
    get(ref: string): Promise<Form>;
    create(body: Record<string, unknown>): Promise<Form>;
    update(ref: string, body: Record<string, unknown>): Promise<Form>;
    remove(ref: string): Promise<void>;
    /** The form's submissions and spam per UTC day (`since`, `until`: ISO 8601 dates; by default the last 30 days). */
    stats(ref: string, query: QueryParams): Promise<DailyStats>;
  };
  submissions: {
    list(ref: string, query: QueryParams): Promise<SubmissionPage>;
    get(ref: string, id: string): Promise<Submission>;
    update(ref: string, id: string, patch: Record<string, boolean>): Promise<Submission>;
    remove(ref: string, id: string): Promise<void>;
    /** The export as it would be downloaded, chunk by chunk. */
    export(ref: string, format: ExportFormat, query: QueryParams): Promise<AsyncIterable<string | Uint8Array>>;
    /** Erases (or with dryRun counts) every submission of the account and mode that holds this email address. */
    erase(body: { email: string; dryRun?: boolean }): Promise<Erasure>;
  };
  files: {
    /** One uploaded file of a submission: its bytes, chunk by chunk. */
    get(ref: string, submissionId: string, fileId: string): Promise<AsyncIterable<Uint8Array>>;
  };
  notifications: {
    /** One page of a form's notification emails, newest first (`limit`, `offset`). */
    list(ref: string, query: QueryParams): Promise<NotificationPage>;
    /** Puts the form's failed notifications back in the queue; with `pending`, makes the pending ones due now too. */
    retry(ref: string, options?: { pending?: boolean }): Promise<{ retried: number }>;
  };
  webhooks: {
    add(ref: string, body: Record<string, unknown>): Promise<WebhookWithSecret>;
    list(ref: string): Promise<Webhook[]>;
    remove(ref: string, webhookId: string): Promise<void>;
    rotate(ref: string, webhookId: string): Promise<WebhookWithSecret>;
    /** One page of a form's deliveries, newest first; `webhook` narrows it to one endpoint. */
    deliveries(ref: string, query: QueryParams): Promise<DeliveryPage>;
    redeliver(ref: string, deliveryId: string): Promise<WebhookDelivery>;
  };
  destinations: {
    add(ref: string, body: Record<string, unknown>): Promise<Destination>;
    list(ref: string): Promise<Destination[]>;
    remove(ref: string, destinationId: string): Promise<void>;
    test(ref: string, destinationId: string): Promise<DestinationTestResult>;
  };
  keys: {
    create(body: Record<string, unknown>): Promise<NewApiKey>;
    list(): Promise<ApiKey[]>;
    revoke(id: string): Promise<void>;
  };
  activity: {
    /** One page of the account's activity log, newest first (`limit`, `after`). */
    list(query: QueryParams): Promise<ActivityPage>;
  };
  /** Local mode only: the services themselves (accounts, backup). */
  services?: Services;
  close(): Promise<void>;
}

export interface ConnectionOptions {
  db?: string;
  url?: string;
  key?: string;
  account?: string;
  test?: boolean;
}

/**
 * The server's address in remote mode, or undefined in local mode. A --db flag means local mode even when
 * FORMSVC_URL is set (an explicit flag beats the environment); --db and --url together are a mistake.
 */
export function remoteUrl(options: ConnectionOptions, env: Record<string, string | undefined>): string | undefined {
  if (options.url && options.db) throw new CliError("--db and --url name two different places: give one of them", EXIT.usage);
  if (options.db) return undefined;
  return options.url || env.FORMSVC_URL || undefined;
}

/** The database file of local mode; `what` names a command that has no remote form, refused with exit 2 in remote mode. */
export function localDatabase(options: ConnectionOptions, env: Record<string, string | undefined>, what: string): string {
  if (remoteUrl(options, env)) {
    throw new CliError(`${what} works on the database file, on the server's machine: run it with --db, without --url or FORMSVC_URL`, EXIT.usage);
  }
  return options.db || settingFromEnv("db", env);
}

/** Remote mode when a URL is given (flag or FORMSVC_URL), else local mode on the database file. */
export async function openBackend(options: ConnectionOptions, env: Record<string, string | undefined>, { create = false } = {}): Promise<Backend> {
  const url = remoteUrl(options, env);
  if (url) {
    // The key decides the account and the mode on a server: a flag that says otherwise would be silently ignored.
    if (options.account) throw new CliError("--account works only in local mode: in remote mode the key decides the account", EXIT.usage);
    if (options.test) throw new CliError("--test works only in local mode: in remote mode use a test key (sk_test_...)", EXIT.usage);
    const key = options.key || env.FORMSVC_KEY;
    if (!key) throw new CliError("remote mode needs an API key: pass --key or set FORMSVC_KEY", EXIT.usage);
    if (!URL.canParse(url)) throw new CliError(`--url must be an address such as https://forms.example.com, not "${url}"`, EXIT.usage);
    const timeout = env.FORMSVC_TIMEOUT === undefined ? 10 : Number(env.FORMSVC_TIMEOUT);
    if (!(timeout > 0)) throw new CliError(`FORMSVC_TIMEOUT must be a number of seconds above 0, not "${env.FORMSVC_TIMEOUT}"`, EXIT.usage);
    const { ApiClient } = await import("./client.ts");
    return await remoteBackend(new ApiClient(url, key, timeout * 1000));
  }
  if (options.key) throw new CliError("--key goes with --url (or FORMSVC_URL): without a server address the command works on the database file", EXIT.usage);
  const location = options.db || settingFromEnv("db", env);
  return localBackend(create ? location : existingDatabase(location), options, env);
}

/** The database file, refused when it is not there: a mistyped --db must not read as an empty database. */
export function existingDatabase(location: string): string {
  if (!isLibsqlUrl(location) && !existsSync(location)) {
    throw new CliError(`no database at ${location}: name it with --db (or FORMSVC_DB), or start one with formsvc serve`);
  }
  return location;
}

/** The services on a database file, with links built as `formsvc serve` would build them (FORMSVC_BASE_URL). */
export async function openLocalServices(location: string, env: Record<string, string | undefined>): Promise<Services> {
  const [{ openStore }, { createServices }, { settingsService }, { systemResolver }] = await Promise.all([
    import("../src/db/client.ts"),
    import("../src/services/index.ts"),
    import("../src/services/settings.ts"),
    import("../src/lib/address.ts"),
  ]);
  const store = await openStore(location, { authToken: env.FORMSVC_DB_AUTH_TOKEN || undefined });
  // The addresses the server recorded when it last started, unless the environment names others.
  const served = await settingsService(store).servedUrls();
  const baseUrl = (env.FORMSVC_BASE_URL ?? served?.baseUrl ?? loadServeConfig({}, {}).baseUrl).replace(/\/+$/, "");
  const submitUrl = (env.FORMSVC_SUBMIT_URL ?? (env.FORMSVC_BASE_URL ? baseUrl : served?.submitUrl) ?? baseUrl).replace(/\/+$/, "");
  // The operator's own check of webhook addresses follows the server's setting, as the environment gives it.
  const allowPrivate = settingFromEnv("webhooksAllowPrivate", env);
  return createServices(store, { baseUrl: () => baseUrl, submitUrl: () => submitUrl }, { webhooks: { allowPrivate, resolve: systemResolver } });
}

/** Local mode: the trusted operator of one account (the default unless --account), in live mode unless --test. */
export async function localBackend(location: string, options: ConnectionOptions, env: Record<string, string | undefined>): Promise<Backend> {
  const services = await openLocalServices(location, env);
  // The same declarations the server reads its query strings with: a flag's value is checked as a query parameter is.
  const [{ operationById }, { parseQuery }, { listQuery }, { dailyStats }, { dailyRange }] = await Promise.all([
    import("../src/api/index.ts"),
    import("../src/api/query.ts"),
    import("../src/api/submissions.ts"),
    import("../src/services/form-stats.ts"),
    import("../src/api/stats.ts"),
  ]);
  const queryOf = (operationId: string, input: QueryParams) => parseQuery(operationById(operationId).query ?? [], input);
  const store = services.store;
  const account = await services.accounts.resolve(options.account);
  const principal = operator(account.id, options.test ? "test" : "live");

  /** The operator in the mode of a form's own, for keys bound to a form of either mode. */
  async function principalForForm(ref: string): Promise<Principal> {
    try {
      const found = async (candidate: Principal) => {
        await services.forms.findRow(candidate, ref);
        return candidate;
      };
      return await inEitherMode(account.id, "form_not_found", found, principal.mode);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === "form_not_found")) throw error;
      return principal;
    }
  }

  return {
    kind: "local",
    services,
    forms: {
      list: () => services.forms.list(principal),
      get: (ref) => services.forms.get(principal, ref),
      create: (body) => services.forms.create(principal, body),
      update: (ref, body) => services.forms.update(principal, ref, body),
      remove: (ref) => services.forms.remove(principal, ref),
      stats: async (ref, query) => dailyStats(services, principal, ref, dailyRange(await queryOf("dailyStats", query))),
    },
    submissions: {
      list: async (ref, query) => services.submissions.list(principal, ref, listQuery(await queryOf("listSubmissions", query))),
      get: (ref, id) => services.submissions.get(principal, ref, id),
      update: (ref, id, patch) => services.submissions.update(principal, ref, id, patch),
      remove: (ref, id) => services.submissions.remove(principal, ref, id),
      async export(ref, format, query) {
        const { format: _, ...select } = await queryOf("exportSubmissions", { ...query, format });
        const exported = await services.submissions.export(principal, ref, listQuery(select));
        return exported.chunks(format);
      },
      erase: (body) => services.retention.erase(principal, body),
    },
    files: {
      async get(ref, submissionId, fileId) {
        const file = await services.files.get(principal, ref, submissionId, fileId);
        return (async function* () {
          yield file.content;
        })();
      },
    },
    activity: {
      list: async (query) => services.activity.list(principal.accountId, (await import("../src/services/people/activity.ts")).parseActivityQuery(query)),
    },
    notifications: {
      list: async (ref, query) => services.notifications.list(principal, ref, await queryOf("listNotifications", query)),
      retry: async (ref, options = {}) => ({ retried: await services.notifications.retryFailed(principal, ref, Date.now(), options) }),
    },
    webhooks: {
      add: (ref, body) => services.webhooks.create(principal, ref, body),
      list: (ref) => services.webhooks.list(principal, ref),
      remove: (ref, id) => services.webhooks.remove(principal, ref, id),
      rotate: (ref, id) => services.webhooks.rotate(principal, ref, id),
      async deliveries(ref, query) {
        const { webhook, destination, limit, offset } = await queryOf("listDeliveries", query);
        return services.webhooks.deliveries(principal, ref, webhook || null, { limit, offset }, destination || null);
      },
      redeliver: (ref, id) => services.webhooks.retry(principal, ref, id),
    },
    destinations: {
      add: (ref, body) => services.destinations.create(principal, ref, body),
      list: (ref) => services.destinations.list(principal, ref),
      remove: (ref, id) => services.destinations.remove(principal, ref, id),
      test: (ref, id) => services.destinations.test(principal, ref, id),
    },
    keys: {
      async create(body) {
        const type = body.type;
        const acting =
          type === "form" && typeof body.formId === "string"
            ? await principalForForm(body.formId)
            : type === "test"
              ? operator(account.id, "test")
              : type === "live"
                ? operator(account.id, "live")
                : principal;
        return services.keys.create(acting, body);
      },
      list: () => services.keys.list(principal),
      async revoke(id) {
        // The operator may revoke any key of the account, whichever mode it is in.
        await inEitherMode(account.id, "not_found", (owner) => services.keys.revoke(owner, id));
      },
    },
    close: async () => store.close(),
  };
}

/** Remote mode: the same operations over the management API, each request's method, path and query read from its declaration. */
export async function remoteBackend(client: ApiClient): Promise<Backend> {
  const { requestFor } = await import("../src/api/index.ts");
  type Options = { params?: Record<string, string>; query?: QueryParams; body?: unknown };
  const send = (operationId: string, { params, query, body }: Options = {}) => {
    const request = requestFor(operationId, params, query);
    return client.send(request.method, request.path, { query: request.query, body });
  };
  const call = <T>(operationId: string, { params, query, body }: Options = {}) => {
    const request = requestFor(operationId, params, query);
    return client.json<T>(request.method, request.path, { query: request.query, body });
  };
  const form = (id: string) => ({ id });
  const submission = (id: string, submissionId: string) => ({ id, submissionId });
  return {
    kind: "remote",
    forms: {
      list: async () => (await call<{ forms: Form[] }>("listForms")).forms,
      get: (ref) => call("getForm", { params: form(ref) }),
      create: (body) => call("createForm", { body }),
      update: (ref, body) => call("updateForm", { params: form(ref), body }),
      remove: (ref) => call("deleteForm", { params: form(ref) }),
      stats: (ref, query) => call("dailyStats", { params: form(ref), query }),
    },
    submissions: {
      list: (ref, query) => call("listSubmissions", { params: form(ref), query }),
      get: (ref, id) => call("getSubmission", { params: submission(ref, id) }),
      update: (ref, id, patch) => call("updateSubmission", { params: submission(ref, id), body: patch }),
      remove: (ref, id) => call("deleteSubmission", { params: submission(ref, id) }),
      async export(ref, format, query) {
        const response = await send("exportSubmissions", { params: form(ref), query: { ...query, format } });
        return response.body as AsyncIterable<Uint8Array>;
      },
      erase: (body) => call("eraseSubmissions", { body }),
    },
    files: {
      async get(ref, submissionId, fileId) {
        const response = await send("downloadFile", { params: { ...submission(ref, submissionId), fileId } });
        return response.body as AsyncIterable<Uint8Array>;
      },
    },
    activity: {
      list: (query) => call("listActivity", { query }),
    },
    notifications: {
      list: (ref, query) => call("listNotifications", { params: form(ref), query }),
      retry: (ref, options = {}) => call("retryNotifications", { params: form(ref), query: { pending: options.pending ? "true" : undefined } }),
    },
    webhooks: {
      add: (ref, body) => call("createWebhook", { params: form(ref), body }),
      list: async (ref) => (await call<{ webhooks: Webhook[] }>("listWebhooks", { params: form(ref) })).webhooks,
      remove: (ref, webhookId) => call("deleteWebhook", { params: { id: ref, webhookId } }),
      rotate: (ref, webhookId) => call("rotateWebhookSecret", { params: { id: ref, webhookId } }),
      deliveries: (ref, query) => call("listDeliveries", { params: form(ref), query }),
      redeliver: (ref, deliveryId) => call("retryDelivery", { params: { id: ref, deliveryId } }),
    },
    destinations: {
      add: (ref, body) => call("createDestination", { params: form(ref), body }),
      list: async (ref) => (await call<{ destinations: Destination[] }>("listDestinations", { params: form(ref) })).destinations,
      remove: (ref, destinationId) => call("deleteDestination", { params: { id: ref, destinationId } }),
      test: (ref, destinationId) => call("testDestination", { params: { id: ref, destinationId } }),
    },
    keys: {
      create: (body) => call("createKey", { body }),
      list: async () => (await call<{ keys: ApiKey[] }>("listKeys")).keys,
      revoke: (keyId) => call("revokeKey", { params: { keyId } }),
    },
    close: () => client.close(),
  };
}

/** Opens the backend the command's global flags name, runs `work`, and closes it whatever happens. */
export async function withBackend<T>(
  globals: ConnectionOptions,
  env: Record<string, string | undefined>,
  work: (backend: Backend) => Promise<T>,
  options: { create?: boolean } = {},
): Promise<T> {
  const backend = await openBackend(globals, env, options);
  try {
    return await work(backend);
  } finally {
    await backend.close();
  }
}
