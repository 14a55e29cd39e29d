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
