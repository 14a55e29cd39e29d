declare module "*.sql" {
  const text: string;
  export default text;
}
// The systemd unit (deploy/formsvc.service), which `formsvc install` writes as it is.
declare module "*.service" {
  const text: string;
  export default text;
}
declare module "*.css" {
  const text: string;
  export default text;
}
// Swagger UI's script is imported as text (with { type: "text" }) and served at /docs, never run on the server.
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const text: string;
  export default text;
}
// The QR code's maker and its SVG writer, without the package's PNG and terminal writers (pngjs, 1.2 MB): the
// package has no exports map, and its types describe only its whole entry.
declare module "qrcode/lib/core/qrcode.js" {
  export function create(text: string, options?: { errorCorrectionLevel?: "L" | "M" | "Q" | "H" }): unknown;
}
declare module "qrcode/lib/renderer/svg-tag.js" {
  export function render(code: unknown, options?: { margin?: number; width?: number }): string;
}
