import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { testApp, type TestApp } from "../helpers/app.ts";
import type { TeamActor } from "../../src/services/people/team.ts";
import type { User } from "../../src/services/people/users.ts";

// Teams (docs/dashboard.md, "Team and roles"): roles, invitations by one-time link, and the rules that keep an account governable.

let t: TestApp;
let accountId: string;
let owner: User;
let formId: string;
const as = (user: User): TeamActor => ({ accountId, role: user.role, userId: user.id, actor: `user:${user.email}` });
const PASSWORD = "correct horse battery";

beforeEach(async () => {
  t = await testApp();
  const account = await t.account("acme");
  accountId = account.id;
  formId = (await account.form({ name: "Contact" })).id;
  owner = await t.services.users.create(accountId, "owner@example.com", PASSWORD);
});
afterEach(() => t.close());

/** Invites and accepts at once: a member with this role. */
async function member(email: string, role: User["role"], formIds: string[] | null = null): Promise<User> {
  const { token } = await t.services.team.invite(as(owner), email, { role, formIds });
  return (await t.services.team.accept(token, PASSWORD))!;
}

describe("invitations", () => {
  test("a link makes the user with the role and forms chosen, once; it then no longer works", async () => {
    const { token, invitation } = await t.services.team.invite(as(owner), " Ed@Example.com ", { role: "editor", formIds: [formId] });
    expect(invitation).toMatchObject({ email: "ed@example.com", role: "editor", formIds: [formId], invitedBy: "user:owner@example.com" });
    expect(Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt)).toBe(7 * 24 * 3600 * 1000);
    expect(await t.services.team.invitations(accountId)).toEqual([invitation]);
    const user = await t.services.team.accept(token, PASSWORD);
    expect(user).toMatchObject({ email: "ed@example.com", role: "editor", formIds: [formId], accountId });
    expect(await t.services.team.accept(token, PASSWORD)).toBeNull();
    expect(await t.services.team.checkInvitation(token)).toBeNull();
    expect(await t.services.team.invitations(accountId)).toEqual([]);
    expect(await t.services.users.verifyPassword("ed@example.com", PASSWORD)).toMatchObject({ role: "editor" });
  });

  test("a withdrawn invitation's link is refused; an email already in use cannot be invited", async () => {
    const { token, invitation } = await t.services.team.invite(as(owner), "vi@example.com", { role: "viewer" });
    await t.services.team.revokeInvitation(as(owner), invitation.id);
    expect(await t.services.team.accept(token, PASSWORD)).toBeNull();
    await expect(t.services.team.invite(as(owner), "owner@example.com", { role: "viewer" })).rejects.toMatchObject({
      code: "invalid_parameter",
      field: "email",
    });
  });

  test("a form limit names forms of the account only, and is dropped for admins", async () => {
    const other = await (await t.account("globex")).form({ name: "Theirs" });
    await expect(t.services.team.invite(as(owner), "x@example.com", { role: "viewer", formIds: [other.id] })).rejects.toMatchObject({ field: "formIds" });
    const { invitation } = await t.services.team.invite(as(owner), "a@example.com", { role: "admin", formIds: [formId] });
    expect(invitation.formIds).toBeNull();
  });
});

describe("who may change whom", () => {
  test("an editor or viewer manages nobody; an admin manages all but owners; an owner manages owners", async () => {
    const editor = await member("ed@example.com", "editor");
    const admin = await member("ad@example.com", "admin");
    await expect(t.services.team.invite(as(editor), "x@example.com", { role: "viewer" })).rejects.toMatchObject({ code: "forbidden" });
    await expect(t.services.team.invite(as(admin), "x@example.com", { role: "owner" })).rejects.toMatchObject({ code: "forbidden" });
    await expect(t.services.team.remove(as(admin), owner.id)).rejects.toMatchObject({ code: "forbidden" });
    expect(await t.services.team.setRole(as(admin), editor.id, { role: "viewer" })).toMatchObject({ role: "viewer" });
    expect(await t.services.team.setRole(as(owner), admin.id, { role: "owner" })).toMatchObject({ role: "owner" });
  });

  test("nobody changes or removes themselves, and the last owner stays", async () => {
    await expect(t.services.team.setRole(as(owner), owner.id, { role: "viewer" })).rejects.toMatchObject({ code: "forbidden" });
    const cli: TeamActor = { accountId, role: "owner", userId: null };
    await expect(t.services.team.remove(cli, owner.id)).rejects.toMatchObject({ code: "invalid_parameter" });
    await expect(t.services.team.setRole(cli, owner.id, { role: "admin" })).rejects.toMatchObject({ code: "invalid_parameter" });
  });

  test("each change is in the activity log under the person who made it", async () => {
    const viewer = await member("vi@example.com", "viewer", [formId]);
    await t.services.team.setRole(as(owner), viewer.id, { role: "editor" });
    await t.services.team.remove(as(owner), viewer.id);
    const log = await t.services.activity.list(accountId, { limit: 4, after: null });
    expect(log.activity.map((e) => [e.actor, e.action, e.summary])).toEqual([
      ["user:owner@example.com", "user.remove", "Removed editor vi@example.com."],
      ["user:owner@example.com", "user.role", "Made vi@example.com editor (was viewer)."],
      ["user:vi@example.com", "user.join", "Joined as viewer, invited by user:owner@example.com."],
      ["user:owner@example.com", "user.invite", "Invited vi@example.com as viewer on 1 forms."],
    ]);
  });
});
