/** @jsxImportSource hono/jsx */
import type { Form } from "../../domain/types.ts";
import { can, ROLE_HELP, ROLES, type Role } from "../../services/people/roles.ts";
import { type Invitation, INVITATION_VALID } from "../../services/people/team.ts";
import type { Session, User } from "../../services/people/users.ts";
import { MailOff } from "./mail.tsx";
import { Check, CopyButton, Csrf, Field, Layout, Notice, Time } from "./layout.tsx";
import { DataTable } from "./table.tsx";

type Errors = Record<string, string | undefined>;

/** An invitation link just made: shown once, after the redirect that followed the POST. */
export interface NewInvitation {
  email: string;
  url: string;
  mailed: boolean;
}

export interface TeamProps {
  session: Session;
  members: User[];
  invitations: Invitation[];
  forms: Form[];
  mailOn: boolean;
  created?: NewInvitation | null;
  input?: { email?: string; role?: string; formIds?: string[] };
  errors?: Errors;
  notice?: string;
  /** Whether the account requires two-step sign-in of every member. */
  requireTwoStep?: boolean;
}

/** The roles this user may give: an admin gives every role but owner. */
const givable = (session: Session): Role[] => ROLES.filter((role) => role !== "owner" || can(session.user.role, "owner"));

/** What a member reaches: every form, or the names of the forms they are limited to. */
function reach(user: { formIds: string[] | null }, forms: Form[]): string {
  if (user.formIds === null) return "every form";
  return user.formIds.map((id) => forms.find((f) => f.id === id)?.name ?? id).join(", ");
}

/** A role select and the forms an editor or viewer may be limited to. */
export function MembershipFields({
  session,
  forms,
  role,
  formIds,
  errors = {},
}: {
  session: Session;
  forms: Form[];
  role?: string;
  formIds?: string[] | null;
  errors?: Errors;
}) {
  return (
    <>
      <div class={`field${errors.role ? " has-error" : ""}`}>
        <label for="f-role">Role</label>
        <select id="f-role" name="role" aria-describedby="f-role-hint">
          {givable(session).map((r) => (
            <option value={r} selected={(role ?? "viewer") === r}>
              {`${r}: ${ROLE_HELP[r]}`}
            </option>
          ))}
        </select>
        <p class="hint" id="f-role-hint">
          A viewer reads; an editor also changes forms, submissions and webhooks; an admin also keys, users and the activity log; an owner also owners.
        </p>
        {errors.role ? <p class="error">{errors.role}</p> : null}
      </div>
      {forms.length > 0 ? (
        <fieldset class={`field${errors.formIds ? " has-error" : ""}`}>
          <legend>Limit to these forms (editors and viewers)</legend>
          <p class="hint">None ticked: every form of the account, including forms made later.</p>
          {forms.map((form) => (
            <label class="check">
              <input type="checkbox" name="formIds" value={form.id} checked={formIds?.includes(form.id) ?? false} /> {`${form.name} (${form.mode})`}
            </label>
          ))}
          {errors.formIds ? <p class="error">{errors.formIds}</p> : null}
        </fieldset>
      ) : null}
    </>
  );
}

/** The account's team: members and their roles, pending invitations, and a form to invite someone. */
export function TeamPage({ session, members, invitations, forms, mailOn, created, input = {}, errors = {}, notice, requireTwoStep = false }: TeamProps) {
  return (
    <Layout title="Team" session={session} section="team">
      <h1>Team</h1>
      <Notice text={notice} />
      {created ? (
        <section class="card new-key" aria-labelledby="new-invite-title">
          <h2 id="new-invite-title">Invitation for {created.email}</h2>
          <p>
            {created.mailed ? `It was mailed to ${created.email}. ` : "Send this link to them yourself. "}
            <strong>It is shown here only this once</strong>, works once, and expires in {INVITATION_VALID}.
          </p>
          <p class="key-line">
            <code id="invite-url">{created.url}</code> <CopyButton target="invite-url" />
          </p>
        </section>
      ) : null}
      <section class="card" aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        <DataTable
          label="Members"
          rows={members}
          columns={[
            { title: "Email", cell: (user) => user.email },
            { title: "Role", cell: (user) => <span class={`badge role-${user.role}`}>{user.role}</span> },
            { title: "Forms", cell: (user) => reach(user, forms) },
            { title: "Since", cell: (user) => <Time iso={user.createdAt} /> },
            {
              title: "Actions",
              hideTitle: true,
              cell: (user) =>
                user.id === session.user.id ? (
                  <span class="muted">you</span>
                ) : user.role === "owner" && !can(session.user.role, "owner") ? null : (
                  <a href={`/dashboard/team/${user.id}`} aria-label={`Change ${user.email}`}>
                    Change
                  </a>
                ),
            },
          ]}
        />
      </section>
      {invitations.length > 0 ? (
        <section class="card" aria-labelledby="pending-title">
          <h2 id="pending-title">Pending invitations</h2>
          <DataTable
            label="Pending invitations"
            rows={invitations}
            columns={[
              { title: "Email", cell: (invitation) => invitation.email },
              { title: "Role", cell: (invitation) => invitation.role },
              { title: "Invited by", cell: (invitation) => invitation.invitedBy },
              { title: "Expires", cell: (invitation) => <Time iso={invitation.expiresAt} /> },
              {
                title: "Actions",
                hideTitle: true,
                cell: (invitation) => (
                  <form method="post" action={`/dashboard/team/invitations/${invitation.id}/withdraw`}>
                    <Csrf session={session} />
                    <button type="submit" class="danger small" aria-label={`Withdraw the invitation of ${invitation.email}`}>
                      Withdraw
                    </button>
                  </form>
                ),
              },
            ]}
          />
        </section>
      ) : null}
      <section class="card" id="two-step" aria-labelledby="two-step-title">
        <h2 id="two-step-title">Two-step sign-in</h2>
        <form method="post" action="/dashboard/team/two-step">
          <Csrf session={session} />
          <Check name="required" label="Require two-step sign-in of every member" checked={requireTwoStep} />
          <p class="hint">A member without it is sent to set it up right after their password, before any other page.</p>
          <button type="submit" class="secondary">
            Save
          </button>
        </form>
      </section>
      <section class="card" id="invite" aria-labelledby="invite-title">
        <h2 id="invite-title">Invite someone</h2>
        {mailOn ? <p class="hint">The invitation link is mailed to them, and shown here once.</p> : <MailOff what="Invitations are not mailed" />}
        <Notice text={errors.form} kind="error" />
        <form method="post" action="/dashboard/team/invite" class="grid">
          <Csrf session={session} />
          <Field label="Email" name="email" type="email" value={input.email} required autocomplete="off" error={errors.email} />
          <MembershipFields session={session} forms={forms} role={input.role} formIds={input.formIds} errors={errors} />
          <div class="actions">
            <button type="submit">Invite</button>
          </div>
        </form>
      </section>
    </Layout>
  );
}

/** One member: change their role and form limit, or remove them. */
export function MemberPage({ session, member, forms, errors = {} }: { session: Session; member: User; forms: Form[]; errors?: Errors }) {
  return (
    <Layout title={`Team: ${member.email}`} session={session} section="team">
      <p class="crumbs">
        <a href="/dashboard/team">Team</a> /
      </p>
      <h1>{member.email}</h1>
      <section class="card" aria-labelledby="role-title">
        <h2 id="role-title">Role and forms</h2>
        <Notice text={errors.form} kind="error" />
        <form method="post" action={`/dashboard/team/${member.id}`} class="grid">
          <Csrf session={session} />
          <MembershipFields session={session} forms={forms} role={member.role} formIds={member.formIds} errors={errors} />
          <div class="actions">
            <button type="submit">Save role</button>
          </div>
        </form>
      </section>
      <section class="card danger-zone" aria-labelledby="remove-title">
        <h2 id="remove-title">Remove from the account</h2>
        <form method="post" action={`/dashboard/team/${member.id}/remove`}>
          <Csrf session={session} />
          <p>{member.email} can no longer sign in; their sessions end at once. What they did stays in the activity log.</p>
          <button type="submit" class="danger" data-confirm={`Remove ${member.email}?`}>
            Remove {member.email}
          </button>
        </form>
      </section>
    </Layout>
  );
}

/** The page an invitation link opens: choose a password, and join. */
export function InvitationPage({ presession, token, invitation, errors = {} }: { presession: string; token: string; invitation: Invitation; errors?: Errors }) {
  return (
    <Layout title="Join the team">
      <section class="card narrow">
        <h1>Join formsvc</h1>
        <p>
          You are invited as <strong>{invitation.role}</strong> ({ROLE_HELP[invitation.role]}). You will sign in as <strong>{invitation.email}</strong>.
        </p>
        <Notice text={errors.form ?? errors.email} kind="error" />
        <form method="post" action="/dashboard/invite">
          <input type="hidden" name="_presession" value={presession} />
          <input type="hidden" name="token" value={token} />
          <input type="hidden" name="email" value={invitation.email} autocomplete="username" />
          <Field label="Password" name="password" type="password" required autocomplete="new-password" hint="At least 8 characters." error={errors.password} />
          <Field label="Password again" name="confirm" type="password" required autocomplete="new-password" error={errors.confirm} />
          <button type="submit">Join and sign in</button>
        </form>
      </section>
    </Layout>
  );
}
