// Loaded by every command: the database, the services and the HTTP client are imported (`await import`) only
// when a backend of their kind is opened, so that a command pays only for the mode it runs in.
import { existsSync } from "node:fs";
import { loadServeConfig, settingFromEnv } from "../src/config.ts";
import { isLibsqlUrl } from "../src/db/location.ts";
import { ApiError } from "../src/errors.ts";
import type { Operation } from "../src/api/operation.ts";
import type { AppOptions } from "../src/http/context.ts";
import type { Services } from "../src/services/index.ts";
import type { Principal } from "../src/domain/types.ts";
import { inEitherMode, operator } from "../src/services/principal.ts";
import type { ApiClient } from "./client.ts";
import { CliError, EXIT } from "./errors.ts";

/** List parameters as the API takes them: strings, checked by the same code in both modes. */
export type QueryParams = Record<string, string | undefined>;

/** What a command sends with an operation: its path parameters by name, its query and its JSON body. */
export interface OperationRequest {
  params?: Record<string, string>;
  query?: QueryParams;
  body?: unknown;
}

/**
 * What every command needs, the same in both modes: an operation of the API, named by its operationId (the
 * declarations of src/api/). Local mode runs the declared handler on the database file as the operator;
 * remote mode sends the declared request to the server. Both answer with the API's JSON, so output cannot
 * differ, and an operation added to the API can be called by a command with no other edit here.
 */
export interface Backend {
  readonly kind: "local" | "remote";
  /** Runs the operation and returns its JSON answer (undefined for 204 No Content). */
  call<T>(operationId: string, request?: OperationRequest): Promise<T>;
  /** Runs an operation that answers with a download (an export, a file): its bytes, chunk by chunk. */
  download(operationId: string, request?: OperationRequest): Promise<AsyncIterable<Uint8Array>>;
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
  // A form's payment is checked against the server's Stripe account, as the environment gives it.
  const payments = {
    secretKey: settingFromEnv("stripeSecretKey", env),
    webhookSecret: settingFromEnv("stripeWebhookSecret", env),
    apiBase: settingFromEnv("stripeApiBase", env),
  };
  return createServices(store, { baseUrl: () => baseUrl, submitUrl: () => submitUrl }, { webhooks: { allowPrivate, resolve: systemResolver }, payments });
}

/** Local mode: the trusted operator of one account (the default unless --account), in live mode unless --test. */
export async function localBackend(
  location: string,
  options: ConnectionOptions,
  env: Record<string, string | undefined>,
  operations?: readonly Operation[],
): Promise<Backend> {
  const services = await openLocalServices(location, env);
  // The same declarations the server reads its query strings with: a flag's value is checked as a query parameter is.
  const [{ operationById, requestFor }, { parseQuery }] = await Promise.all([import("../src/api/index.ts"), import("../src/api/query.ts")]);
  const account = await services.accounts.resolve(options.account);
  const principal = operator(account.id, options.test ? "test" : "live");
  const baseUrl = services.urls.baseUrl();
  // The CLI's own request has no socket and no limits of the server's: the management API's handlers read
  // only the services and the store's addresses from these.
  const appOptions = { services, maxBody: Number.MAX_SAFE_INTEGER, trustProxy: false, log: { request() {}, error() {} } } as unknown as AppOptions;

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

  /** The operator owns every key of the account: a key is made in the mode it names (or its form's), and revoked in whichever mode it is. */
  async function asOperator(operationId: string, body: unknown, act: (acting: Principal) => Promise<Response>): Promise<Response> {
    if (operationId === "revokeKey") return inEitherMode(account.id, "not_found", act);
    if (operationId !== "createKey" || typeof body !== "object" || body === null) return act(principal);
    const { type, formId } = body as { type?: unknown; formId?: unknown };
    if (type === "form" && typeof formId === "string") return act(await principalForForm(formId));
    if (type === "test" || type === "live") return act(operator(account.id, type));
    return act(principal);
  }

  /** The declared handler's answer, as the router would run it after the key check: the query read by the declared schemas. */
  async function run(operationId: string, { params = {}, query = {}, body }: OperationRequest = {}): Promise<Response> {
    const declared = operationById(operationId, operations);
    // The public endpoint reads its own request (a visitor's post): it is the server's, not the operator's.
    if (declared.scope === "public") throw new Error(`${operationId} is public: local mode runs the management API's operations`);
    const request = requestFor(operationId, params, query, operations);
    const url = new URL(`${baseUrl}${request.path}`);
    for (const [name, value] of Object.entries(request.query)) if (value !== undefined) url.searchParams.set(name, value);
    const values = await parseQuery(declared.query ?? [], query);
    const httpRequest = new Request(url, { method: request.method, body: body === undefined ? undefined : JSON.stringify(body) });
    const context = { request: httpRequest, url, params, ip: "127.0.0.1", services, options: appOptions, query: values, body };
    return asOperator(operationId, body, (acting) => declared.handler({ ...context, principal: acting }));
  }

  return {
    kind: "local",
    services,
    async call<T>(operationId: string, request?: OperationRequest) {
      const response = await run(operationId, request);
      return (response.status === 204 ? undefined : await response.json()) as T;
    },
    async download(operationId, request) {
      const response = await run(operationId, request);
      return (response.body ?? emptyBody()) as AsyncIterable<Uint8Array>;
    },
    close: async () => services.store.close(),
  };
}

/** A download without a byte. */
async function* emptyBody(): AsyncGenerator<Uint8Array> {}

/** Remote mode: the same operations over the management API, each request's method, path and query read from its declaration. */
export async function remoteBackend(client: ApiClient, operations?: readonly Operation[]): Promise<Backend> {
  const { requestFor } = await import("../src/api/index.ts");
  const declared = (operationId: string, { params, query }: OperationRequest) => requestFor(operationId, params, query, operations);
  return {
    kind: "remote",
    call<T>(operationId: string, request: OperationRequest = {}) {
      const { method, path, query } = declared(operationId, request);
      return client.json<T>(method, path, { query, body: request.body });
    },
    async download(operationId, request = {}) {
      const { method, path, query } = declared(operationId, request);
      return client.download(method, path, { query });
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
