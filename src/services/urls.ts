// The public addresses a server links to, and which of them a request may set (docs/deploy.md, "The public address").

/** Where the public addresses of forms point; read when a form is shown, so that a server on port 0 can fill it in. */
export interface PublicUrls {
  /** The public address of links that leave a request (mail, webhooks): never taken from a request's headers. */
  baseUrl: () => string;
  submitUrl: () => string;
  /** The address the request being answered came to (a trusted proxy's forwarded headers), for its own answer. */
  requestBaseUrl?: () => string;
  /** False when baseUrl was only derived from the host and port (no --base-url): emails then carry no dashboard link. */
  known?: () => boolean;
  /** Called once a request is known to come from the owner (a key or a session): may learn the public address. */
  learn?: () => Promise<void>;
}

/** The address for the answer to the request being handled: where it came to, else the public address. */
export const answerBaseUrl = (urls: PublicUrls): string => (urls.requestBaseUrl ?? urls.baseUrl)();
