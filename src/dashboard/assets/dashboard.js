// Comforts only: every page works without this file. Copy buttons, select-all, confirmations,
// local times, and keyboard shortcuts in the inbox (j/k to move, Enter to open, / to search).
"use strict";

for (const button of document.querySelectorAll("[data-copy]")) {
  button.hidden = false;
  button.addEventListener("click", async () => {
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    const label = button.textContent;
    try {
      await navigator.clipboard.writeText(source.textContent);
      button.textContent = "Copied";
    } catch {
      const range = document.createRange();
      range.selectNodeContents(source);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      button.textContent = "Selected: press Ctrl+C";
    }
    setTimeout(() => (button.textContent = label), 2000);
  });
}

for (const all of document.querySelectorAll("[data-select-all]")) {
  const boxes = () => all.form.querySelectorAll(`input[type=checkbox][name="${all.dataset.selectAll}"]`);
  all.hidden = false;
  all.addEventListener("change", () =>
    boxes().forEach((box) => {
      box.checked = all.checked;
    }),
  );
}

for (const button of document.querySelectorAll("[data-confirm]")) {
  button.addEventListener("click", (event) => {
    if (!confirm(button.dataset.confirm)) event.preventDefault();
  });
}

for (const time of document.querySelectorAll("time[datetime]")) {
  const date = new Date(time.getAttribute("datetime"));
  if (!Number.isNaN(date.getTime())) {
    time.title = time.getAttribute("datetime");
    time.textContent = date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  }
}

const rows = [...document.querySelectorAll("ul.inbox > li")];
let current = -1;
function focusRow(index) {
  if (rows.length === 0) return;
  current = Math.max(0, Math.min(rows.length - 1, index));
  rows[current].querySelector("a").focus();
}
document.addEventListener("keydown", (event) => {
  const typing = event.target.closest("input, textarea, select");
  if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "j") focusRow(current + 1);
  else if (event.key === "k") focusRow(current - 1);
  else if (event.key === "x" && current >= 0) rows[current].querySelector("input[type=checkbox]")?.click();
  else if (event.key === "/") {
    const search = document.getElementById("f-q");
    if (search) {
      event.preventDefault();
      search.focus();
    }
  }
});

// The form select of the key form matters only for a form key: shown only then (without the script it always is).
const keyType = document.getElementById("f-type");
const formOnly = document.querySelector("[data-when-type]");
if (keyType && formOnly) {
  const sync = () => {
    formOnly.hidden = keyType.value !== formOnly.dataset.whenType;
  };
  keyType.addEventListener("change", sync);
  sync();
}

// A preview the server refused (a file that only claims to be an image) is hidden rather than shown broken.
for (const preview of document.querySelectorAll("img.preview-image")) {
  const hide = () => {
    preview.hidden = true;
  };
  if (preview.complete && preview.naturalWidth === 0) hide();
  else preview.addEventListener("error", hide);
}

// Passkeys: the browser's own prompt, fed by the options the server made for this one answer; the answer is then
// posted with its form. Shown only where the browser has WebAuthn.
const fromB64url = (text) =>
  Uint8Array.from(
    atob(
      text
        .replace(/-/g, "+")
        .replace(/_/g, "/")
        .padEnd(Math.ceil(text.length / 4) * 4, "="),
    ),
    (c) => c.charCodeAt(0),
  );
const toB64url = (buffer) =>
  btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const withIds = (list) => (list ?? []).map((c) => ({ ...c, id: fromB64url(c.id) }));

/** The credential as the server reads it: every binary part in base64url. */
function credentialJson(credential) {
  const r = credential.response;
  const response = { clientDataJSON: toB64url(r.clientDataJSON) };
  if (r.attestationObject) Object.assign(response, { attestationObject: toB64url(r.attestationObject), transports: r.getTransports?.() ?? [] });
  else
    Object.assign(response, {
      authenticatorData: toB64url(r.authenticatorData),
      signature: toB64url(r.signature),
      userHandle: r.userHandle ? toB64url(r.userHandle) : undefined,
    });
  return {
    id: credential.id,
    rawId: toB64url(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
  };
}

for (const form of document.querySelectorAll("form[data-passkey]")) {
  if (!window.PublicKeyCredential) continue;
  form.hidden = false;
  const status = form.querySelector("[data-passkey-status]");
  form.addEventListener("submit", async (event) => {
    if (form.elements.response.value) return;
    event.preventDefault();
    status.textContent = "";
    try {
      const answer = await fetch(form.dataset.options, { method: "POST", body: new URLSearchParams(new FormData(form)) });
      const options = await answer.json().catch(() => ({}));
      if (!answer.ok) throw new Error(options.error?.message ?? "the server refused to start.");
      const credential =
        form.dataset.passkey === "add"
          ? await navigator.credentials.create({
              publicKey: {
                ...options,
                challenge: fromB64url(options.challenge),
                user: { ...options.user, id: fromB64url(options.user.id) },
                excludeCredentials: withIds(options.excludeCredentials),
              },
            })
          : await navigator.credentials.get({
              publicKey: { ...options, challenge: fromB64url(options.challenge), allowCredentials: withIds(options.allowCredentials) },
            });
      form.elements.response.value = JSON.stringify(credentialJson(credential));
      form.requestSubmit();
    } catch (error) {
      status.textContent = `No passkey was used: ${error.message}`;
    }
  });
}
