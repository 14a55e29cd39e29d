import css from "swagger-ui-dist/swagger-ui.css" with { type: "text" };
import bundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "text" };
import { ApiError } from "../errors.ts";

// Swagger UI, embedded in the binary as text (no CDN: the page works offline and on a closed network), and
// started by a script file of our own, since the page's policy allows no inline script.
const INIT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({ url: "/api/openapi.json", dom_id: "#reference", deepLinking: true, tryItOutEnabled: false });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>formsvc API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<noscript><p>This page needs JavaScript. The reference itself is <a href="/api/openapi.json">/api/openapi.json</a>, an OpenAPI 3.1 document.</p></noscript>
<div id="reference"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const FILES: Record<string, { body: string; type: string }> = {
  "": { body: PAGE, type: "text/html; charset=utf-8" },
  "swagger-ui.css": { body: css, type: "text/css; charset=utf-8" },
  "swagger-ui-bundle.js": { body: bundle, type: "text/javascript; charset=utf-8" },
  "init.js": { body: INIT, type: "text/javascript; charset=utf-8" },
};

// Swagger UI sets style attributes and draws icons as data: images; scripts stay our own files only.
const HEADERS = {
  "content-security-policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
};

const etags = new Map<string, string>();

/** The reference page (asset null) or one of its files, with an ETag so that a browser keeps the 1.7 MB script. */
export function docsResponse(asset: string | null, request: Request): Response {
  const file = FILES[asset ?? ""];
  if (!file) throw new ApiError("not_found", `No such file: /docs/${asset}.`);
  let etag = etags.get(asset ?? "");
  if (!etag) {
    etag = `"${new Bun.CryptoHasher("sha256").update(file.body).digest("hex").slice(0, 16)}"`;
    etags.set(asset ?? "", etag);
  }
  const headers = { "content-type": file.type, etag, "cache-control": "no-cache", ...HEADERS };
  if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
  return new Response(file.body, { headers });
}
