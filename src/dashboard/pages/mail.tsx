/** @jsxImportSource hono/jsx */
/** Said on every page that speaks of mail while the server has none: what does not happen, and how to turn it on. */
export function MailOff({ what }: { what: string }) {
  return (
    <p class="callout mail-off" role="note">
      {`Mail is off: ${what}. To turn it on, start the server with --smtp-url (or FORMSVC_SMTP_URL), such as smtps://user:password@mail.example.com; see docs/deploy.md.`}
    </p>
  );
}
