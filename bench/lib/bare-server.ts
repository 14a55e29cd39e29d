// The baseline of the ingest bench: what Bun itself does for a JSON POST with nothing stored.
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: async (request) => {
    await request.json();
    return Response.json({ success: true, message: "ok", id: "x" });
  },
});
console.log(`http://127.0.0.1:${server.port}/f/bench`);
