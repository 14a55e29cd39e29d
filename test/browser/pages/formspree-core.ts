// A site's own script on @formspree/core, pointed at formsvc by the client's `endpoint` option: it shows the
// outcome in #status and each field's error in the element beside that field.
import { createClient, isSubmissionError } from "@formspree/core";

const params = new URLSearchParams(location.search);
const client = createClient();
const form = document.querySelector("form")!;
const outcome = document.getElementById("status")!;

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const result = await client.submitForm(params.get("slug")!, new FormData(form), { endpoint: params.get("endpoint")! });
  for (const beside of document.querySelectorAll("[data-error-for]")) beside.textContent = "";
  if (isSubmissionError(result)) {
    outcome.textContent =
      result
        .getFormErrors()
        .map((error) => error.message)
        .join(" ") || "Please correct the fields below.";
    for (const [field, errors] of result.getAllFieldErrors()) {
      const beside = document.querySelector(`[data-error-for="${field}"]`);
      if (beside) beside.textContent = errors.map((error) => error.message).join(" ");
    }
  } else {
    outcome.textContent = `Thanks! Next: ${result.next}`;
  }
  outcome.dataset.answers = String(Number(outcome.dataset.answers ?? "0") + 1);
});
