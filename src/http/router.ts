import { ApiError } from "../errors.ts";

interface Route<H> {
  method: string;
  path: string;
  pattern: RegExp;
  names: string[];
  handler: H;
}

/** The handler, the path's parameters, and the route's pattern (`/api/forms/:id`), which metrics count by. */
export type RouteMatch<H> = { handler: H; params: Record<string, string>; route: string };

/** A small router: `/api/forms/:id` patterns, exact methods, and 405 with `Allow` for a known path. */
export class Router<H> {
  private readonly routes: Route<H>[] = [];

  /**
   * Adds a route; `:name` matches one path segment. A trailing `/` is taken too unless `exact`: a client's `..`
   * reaches the server already resolved (`/api/forms/F/submissions/..` arrives as `/api/forms/F/`), so a
   * change must name its whole path.
   */
  on(method: string, path: string, handler: H, { exact = false }: { exact?: boolean } = {}): this {
    const names: string[] = [];
    const source = path.replace(/:(\w+)/g, (_, name: string) => {
      names.push(name);
      return "([^/]+)";
    });
    this.routes.push({ method, path, pattern: new RegExp(exact ? `^${source}$` : `^${source}/?$`), names, handler });
    return this;
  }

  /** Every route as registered (`GET /api/forms/:id`), so that a test can check each one is covered. */
  list(): { method: string; path: string }[] {
    return this.routes.map(({ method, path }) => ({ method, path }));
  }

  /** The route for this method and path; 405 when only other methods match, 404 when none does. */
  match(method: string, path: string): RouteMatch<H> {
    const allowed = new Set<string>();
    for (const route of this.routes) {
      const found = route.pattern.exec(path);
      if (!found) continue;
      if (route.method === method || (method === "HEAD" && route.method === "GET")) {
        const params: Record<string, string> = {};
        route.names.forEach((name, i) => {
          params[name] = safeDecode(found[i + 1]!);
        });
        return { handler: route.handler, params, route: route.path };
      }
      allowed.add(route.method);
    }
    // A trailing `/` only reads: another method there is no endpoint rather than the wrong method.
    if (allowed.size > 0 && !(path.length > 1 && path.endsWith("/"))) {
      if (allowed.has("GET")) allowed.add("HEAD");
      const allow = [...allowed].join(", ");
      throw new ApiError("method_not_allowed", `${method} is not allowed here; use ${allow}.`, { headers: { Allow: allow } });
    }
    throw new ApiError("not_found", `No such endpoint: ${method} ${path}.`);
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ApiError("not_found", "No such resource: the path is not valid percent-encoding.");
  }
}
