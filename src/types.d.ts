declare module "*.sql" {
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
