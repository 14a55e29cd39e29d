// The script of formsvc's own pages and of the embed, served as /form-page.js and /embed.js (one file: which
// one runs is read from its own address). Everything here is a comfort: the page works without it.
// - On formsvc's pages: "Go back" goes back in the browser's history, which keeps what was typed; a form page
//   posts with fetch and shows errors beside their fields, or the thank-you text, without a reload.
// - As /embed.js on any site: each <div data-formsvc="SLUG"> gets the form's page in an open shadow root.
(() => {
  const script = document.currentScript;
  const origin = script ? new URL(script.src, location.href).origin : location.origin;
  const isEmbed = script ? /\/embed\.js(?:[?#]|$)/.test(script.src) : false;

  /** Clears what the last answer showed beside the fields and above the form. */
  function clearErrors(form, summary) {
    for (const line of form.querySelectorAll(".formsvc-error")) {
      line.hidden = true;
      line.textContent = "";
    }
    for (const input of form.querySelectorAll("[aria-invalid]")) {
      input.removeAttribute("aria-invalid");
      const hint = form.querySelector(`[id="${input.id}-hint"]`);
      if (hint) input.setAttribute("aria-describedby", hint.id);
      else input.removeAttribute("aria-describedby");
    }
    summary.hidden = true;
    summary.querySelector("ul").replaceChildren();
  }

  /** Puts each error beside its field (the others above the form) and moves the focus to the first. */
  function showErrors(form, summary, body) {
    clearErrors(form, summary);
    const general = [];
    let first = null;
    for (const item of body.errors ?? []) {
      const field = item.field ? [...form.querySelectorAll(".formsvc-field")].find((el) => el.dataset.field === item.field) : null;
      if (!field) {
        general.push(item.message);
        continue;
      }
      const input = field.querySelector("input, select, textarea");
      const line = field.querySelector(".formsvc-error");
      line.textContent = item.message;
      line.hidden = false;
      input.setAttribute("aria-invalid", "true");
      const hint = form.querySelector(`[id="${input.id}-hint"]`);
      input.setAttribute("aria-describedby", hint ? `${hint.id} ${line.id}` : line.id);
      first ??= input;
    }
    if (!first && general.length === 0) general.push(body.error?.message ?? form.dataset.networkError);
    for (const message of general) {
      const li = document.createElement("li");
      li.textContent = message;
      summary.querySelector("ul").append(li);
    }
    summary.hidden = general.length === 0;
    (first ?? summary).focus();
    // A captcha's solution is good once: a refused one is solved again.
    if (body.error?.code === "captcha_failed") {
      const widget = form.querySelector("altcha-widget");
      widget?.reset?.();
      widget?.verify?.();
    }
  }

  /** Makes a form of formsvc's post with fetch; `root` holds it (the document, or an embed's shadow root). */
  function enhance(form, root) {
    const summary = root.querySelector(".formsvc-summary");
    const thanks = root.querySelector(".formsvc-thanks");
    const button = form.querySelector("button[type=submit]");
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (button.disabled) return;
      const label = button.textContent;
      button.disabled = true;
      button.textContent = form.dataset.sending;
      try {
        const fields = new FormData(form);
        const body = form.enctype === "multipart/form-data" ? fields : new URLSearchParams(fields);
        const answer = await fetch(form.action, { method: "POST", body, headers: { Accept: "application/json" } });
        const result = await answer.json();
        if (result.success) {
          if (form.hasAttribute("data-redirects") && result.next) {
            location.assign(result.next);
            return;
          }
          clearErrors(form, summary);
          thanks.textContent = thanks.dataset.thanks;
          thanks.hidden = false;
          form.hidden = true;
          thanks.focus();
          return;
        }
        showErrors(form, summary, result);
      } catch {
        showErrors(form, summary, { errors: [{ message: form.dataset.networkError }] });
      } finally {
        button.disabled = false;
        button.textContent = label;
      }
    });
  }

  /** Loads a script into the site's page once (a custom element, once defined, serves every shadow root). */
  function load(src, module) {
    if ([...document.scripts].some((s) => s.src === src)) return;
    const tag = document.createElement("script");
    tag.src = src;
    if (module) tag.type = "module";
    tag.async = true;
    document.head.append(tag);
  }

  /** Puts the form named by `host`'s data-formsvc into its shadow root; a form without a page is left out, with a warning. */
  async function mount(host) {
    const slug = host.dataset.formsvc;
    const language = host.dataset.language;
    const address = `${origin}/f/${encodeURIComponent(slug)}/embed${language ? `?_language=${encodeURIComponent(language)}` : ""}`;
    let embed;
    try {
      const answer = await fetch(address, { headers: { Accept: "application/json" } });
      embed = await answer.json();
      if (!answer.ok) throw new Error(embed.error?.message ?? `HTTP ${answer.status}`);
    } catch (error) {
      console.warn(`formsvc: the form "${slug}" is not shown: ${error.message}`);
      return;
    }
    const root = host.shadowRoot ?? host.attachShadow({ mode: "open" });
    root.innerHTML = `<style>${embed.css}</style><div class="formsvc" lang="${embed.language}">${embed.html}</div>`;
    for (const s of embed.scripts) load(s.src, s.module);
    // The ALTCHA widget puts its styles in the site's head, where they do not reach a shadow root: copied in.
    if (root.querySelector("altcha-widget")) {
      customElements.whenDefined("altcha-widget").then(() => {
        const css = document.getElementById("altcha-css");
        if (css) root.prepend(css.cloneNode(true));
      });
    }
    enhance(root.querySelector("form"), root);
  }

  if (isEmbed) {
    const start = () => {
      for (const host of document.querySelectorAll("[data-formsvc]")) if (!host.shadowRoot) mount(host);
    };
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
    else start();
    return;
  }
  for (const link of document.querySelectorAll(".formsvc-back a")) {
    link.addEventListener("click", (event) => {
      if (history.length > 1) {
        event.preventDefault();
        history.back();
      }
    });
  }
  for (const form of document.querySelectorAll("form[data-formsvc]")) enhance(form, document);
})();
