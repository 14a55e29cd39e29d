/** @jsxImportSource react */
// A React page as Formspree's documentation writes it (useForm, ValidationError), pointed at formsvc by useForm's
// `endpoint` option.
import { useForm, ValidationError } from "@formspree/react";
import { createRoot } from "react-dom/client";

const params = new URLSearchParams(location.search);

function Contact() {
  const [state, handleSubmit] = useForm(params.get("slug")!, { endpoint: params.get("endpoint")! });
  if (state.succeeded) return <p id="status">Thanks for joining!</p>;
  return (
    <form onSubmit={handleSubmit}>
      <label htmlFor="email">Email Address</label>
      <input id="email" type="text" name="email" />
      <ValidationError id="email-error" prefix="Email" field="email" errors={state.errors} />
      <label htmlFor="message">Message</label>
      <textarea id="message" name="message" />
      <ValidationError id="message-error" prefix="Message" field="message" errors={state.errors} />
      <ValidationError id="form-error" errors={state.errors} />
      <button type="submit" disabled={state.submitting}>
        Submit
      </button>
    </form>
  );
}

createRoot(document.getElementById("root")!).render(<Contact />);
