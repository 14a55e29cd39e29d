import { expect, test } from "bun:test";
import { loadServeConfig } from "../../src/config.ts";

// The single sign-on settings of serve (docs/dashboard.md, "Single sign-on"): read from flags or the environment,
// each needed with the others, an http issuer only on loopback, and no server left without a way to sign in.

const SSO = { FORMSVC_OIDC_ISSUER: "https://id.example.com/realms/staff", FORMSVC_OIDC_CLIENT_ID: "formsvc", FORMSVC_OIDC_CLIENT_SECRET: "s3cret" };

test("the provider is read from the environment; the button's name defaults to 'single sign-on'", () => {
  expect(loadServeConfig({}, SSO)).toMatchObject({
    oidcIssuer: "https://id.example.com/realms/staff",
    oidcClientId: "formsvc",
    oidcClientSecret: "s3cret",
    oidcName: "single sign-on",
    passwordSignin: true,
  });
  expect(loadServeConfig({}, {})).toMatchObject({ oidcIssuer: null, oidcClientId: null, oidcClientSecret: null, passwordSignin: true });
  expect(loadServeConfig({ oidcName: "Okta", passwordSignin: "false" }, SSO)).toMatchObject({ oidcName: "Okta", passwordSignin: false });
});

test("an issuer needs its client id and secret; they are refused without one", () => {
  expect(() => loadServeConfig({}, { ...SSO, FORMSVC_OIDC_CLIENT_SECRET: undefined })).toThrow("oidc-client-secret is needed with --oidc-issuer");
  expect(() => loadServeConfig({}, { FORMSVC_OIDC_CLIENT_ID: "formsvc" })).toThrow("oidc-client-id is only used with --oidc-issuer");
});

test("an http issuer is taken only on loopback", () => {
  expect(() => loadServeConfig({}, { ...SSO, FORMSVC_OIDC_ISSUER: "http://id.example.com" })).toThrow("must be an https:// address (http:// only on loopback)");
  expect(loadServeConfig({}, { ...SSO, FORMSVC_OIDC_ISSUER: "http://127.0.0.1:8080" }).oidcIssuer).toBe("http://127.0.0.1:8080");
  expect(loadServeConfig({}, { ...SSO, FORMSVC_OIDC_ISSUER: "http://localhost:8080" }).oidcIssuer).toBe("http://localhost:8080");
});
