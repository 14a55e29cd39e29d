import { expect, test } from "bun:test";
import { startServerProcess } from "../helpers/server.ts";

// docs/dashboard.md, "Single sign-on": with password sign-in off, only single sign-on and passkeys are left, so a
// server without a provider would let nobody in. It says so and does not start.

test("serve refuses to start with password sign-in off and no single sign-on", async () => {
  await expect(startServerProcess({ args: ["--password-signin", "false"] })).rejects.toThrow(
    "password-signin false leaves no way to sign in without --oidc-issuer",
  );
});
