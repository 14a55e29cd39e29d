import { expect, test } from "bun:test";
import type { Handler } from "../../src/http/context.ts";
import { Router } from "../../src/http/router.ts";
import { formRoutes } from "../../src/routes/forms.ts";
import { keyRoutes } from "../../src/routes/keys.ts";
import { submissionRoutes } from "../../src/routes/submissions.ts";
import { runCommonRouteTests, type ProtectedRoute } from "./security.ts";

/** Every management route with the permission contract §3 gives it. */
const ROUTES: ProtectedRoute[] = [
  { method: "GET", path: "/api/forms", permission: "read", okStatus: 200 },
  { method: "POST", path: "/api/forms", permission: "write", body: { name: "New form" }, okStatus: 201 },
  { method: "GET", path: "/api/forms/:id", permission: "read", okStatus: 200 },
  { method: "PATCH", path: "/api/forms/:id", permission: "write", body: { name: "Renamed" }, okStatus: 200 },
  { method: "DELETE", path: "/api/forms/:id", permission: "delete", okStatus: 204 },
  { method: "GET", path: "/api/forms/:id/submissions", permission: "read", okStatus: 200 },
  { method: "GET", path: "/api/forms/:id/submissions/export", permission: "read", okStatus: 200 },
  { method: "GET", path: "/api/forms/:id/submissions/:submissionId", permission: "read", okStatus: 200 },
  { method: "PATCH", path: "/api/forms/:id/submissions/:submissionId", permission: "write", body: { isRead: true }, okStatus: 200 },
  { method: "DELETE", path: "/api/forms/:id/submissions/:submissionId", permission: "delete", okStatus: 204 },
  { method: "GET", path: "/api/keys", permission: "admin", okStatus: 200 },
  { method: "POST", path: "/api/keys", permission: "admin", body: { name: "deploy" }, okStatus: 201 },
  { method: "DELETE", path: "/api/keys/:keyId", permission: "admin", okStatus: 204 },
];

test("every management route the app registers is in the security table", () => {
  const router = new Router<Handler>();
  formRoutes(router);
  submissionRoutes(router);
  keyRoutes(router);
  const registered = router.list().map((r) => `${r.method} ${r.path}`);
  expect(registered.toSorted()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).toSorted());
});

for (const route of ROUTES) runCommonRouteTests(route);
