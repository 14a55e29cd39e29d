import { ApiError } from "../errors.ts";
import type { BackupStatus } from "../workers/backups.ts";
import { json } from "./respond.ts";

// The server's figures in Prometheus's text format (version 0.0.4): what /metrics shows. Counted in memory
// since the process started, as Prometheus counters are; the outbox depth is read from the database at each scrape.

/** Upper bounds of the latency histogram, in seconds. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A label value as the text format wants it: backslash, quote and line feed escaped. */
const labelValue = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

interface Histogram {
  buckets: number[];
  sum: number;
  count: number;
}

/** What the scrape reads from the database at the moment it is asked. */
export interface MetricsSource {
  /** Notifications by outbox status (pending, failed, ...). */
  outbox(): Promise<Record<string, number>>;
  /** Webhook deliveries by outbox status. */
  webhookOutbox(): Promise<Record<string, number>>;
  /** Webhook endpoints whose circuit is open (failed too often in a row: none of their deliveries is tried for now). */
  openCircuits(): Promise<number>;
  /** The backup schedule's last result, or null without one. */
  backup?(): BackupStatus | null;
  /** Confirmation emails in the delivery log, by status, and the refused ones by reason (`refused:<reason>`). */
  confirmations?(): Promise<Record<string, number>>;
}

/** Counters of requests and submissions, and the text a scrape gets. */
export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly latency = new Map<string, Histogram>();
  private readonly submissions = { stored: 0, spam: 0 };

  constructor(private readonly source?: MetricsSource) {}

  /** Counts one answered request, by method, route pattern (never the raw path) and status. */
  request(method: string, route: string, status: number, seconds: number): void {
    const key = `${method}\u0000${route}\u0000${status}`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    const latencyKey = `${method}\u0000${route}`;
    let histogram = this.latency.get(latencyKey);
    if (!histogram) {
      histogram = { buckets: BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.latency.set(latencyKey, histogram);
    }
    BUCKETS.forEach((bound, i) => {
      if (seconds <= bound) histogram.buckets[i]!++;
    });
    histogram.sum += seconds;
    histogram.count++;
  }

  /** Counts one stored submission, spam or not. */
  submission(isSpam: boolean): void {
    if (isSpam) this.submissions.spam++;
    else this.submissions.stored++;
  }

  /** The exposition text. */
  async render(): Promise<string> {
    const lines: string[] = [];
    lines.push("# HELP formsvc_http_requests_total HTTP requests answered, by method, route pattern and status (499: the client closed the connection).");
    lines.push("# TYPE formsvc_http_requests_total counter");
    for (const [key, value] of this.requests) {
      const [method, route, status] = key.split("\u0000") as [string, string, string];
      lines.push(`formsvc_http_requests_total{method="${labelValue(method)}",route="${labelValue(route)}",status="${status}"} ${value}`);
    }
    lines.push("# HELP formsvc_http_request_duration_seconds Time to answer a request, by method and route pattern.");
    lines.push("# TYPE formsvc_http_request_duration_seconds histogram");
    for (const [key, histogram] of this.latency) {
      const [method, route] = key.split("\u0000") as [string, string];
      const labels = `method="${labelValue(method)}",route="${labelValue(route)}"`;
      BUCKETS.forEach((bound, i) => {
        lines.push(`formsvc_http_request_duration_seconds_bucket{${labels},le="${bound}"} ${histogram.buckets[i]}`);
      });
      lines.push(`formsvc_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${histogram.count}`);
      lines.push(`formsvc_http_request_duration_seconds_sum{${labels}} ${histogram.sum}`);
      lines.push(`formsvc_http_request_duration_seconds_count{${labels}} ${histogram.count}`);
    }
    lines.push("# HELP formsvc_submissions_total Submissions stored since the server started, by whether they were caught as spam.");
    lines.push("# TYPE formsvc_submissions_total counter");
    lines.push(`formsvc_submissions_total{spam="false"} ${this.submissions.stored}`);
    lines.push(`formsvc_submissions_total{spam="true"} ${this.submissions.spam}`);
    if (this.source) {
      const outbox = await this.source.outbox();
      lines.push("# HELP formsvc_notification_outbox Notification emails in the outbox, by status (pending: waiting to be sent).");
      lines.push("# TYPE formsvc_notification_outbox gauge");
      for (const status of ["pending", "failed"]) lines.push(`formsvc_notification_outbox{status="${status}"} ${outbox[status] ?? 0}`);
      const webhooks = await this.source.webhookOutbox();
      lines.push(
        "# HELP formsvc_webhook_outbox Deliveries to webhooks and destinations in the outbox, by status (pending: waiting for an attempt or a retry).",
      );
      lines.push("# TYPE formsvc_webhook_outbox gauge");
      for (const status of ["pending", "failed"]) lines.push(`formsvc_webhook_outbox{status="${status}"} ${webhooks[status] ?? 0}`);
      lines.push(
        "# HELP formsvc_webhook_circuits_open Webhook endpoints and destinations paused after failing too often in a row (tried again later, one delivery first).",
      );
      lines.push("# TYPE formsvc_webhook_circuits_open gauge");
      lines.push(`formsvc_webhook_circuits_open ${await this.source.openCircuits()}`);
      const backup = this.source.backup?.();
      if (backup) {
        lines.push("# HELP formsvc_backup_last_success_time When the last scheduled backup was made and checked (Unix seconds; 0: none yet).");
        lines.push("# TYPE formsvc_backup_last_success_time gauge");
        lines.push(`formsvc_backup_last_success_time ${backup.lastSuccessAt === null ? 0 : backup.lastSuccessAt / 1000}`);
        lines.push("# HELP formsvc_backup_last_failed 1 when the last scheduled backup failed (the log says why), else 0.");
        lines.push("# TYPE formsvc_backup_last_failed gauge");
        lines.push(`formsvc_backup_last_failed ${backup.lastError === null ? 0 : 1}`);
      }
      if (this.source.confirmations) lines.push(...confirmationLines(await this.source.confirmations()));
    }
    return `${lines.join("\n")}\n`;
  }
}

/** The confirmation emails' gauges: every status, and the refusals by reason. */
function confirmationLines(counts: Record<string, number>): string[] {
  const lines = ["# HELP formsvc_confirmation_emails Confirmation emails in the delivery log, by status.", "# TYPE formsvc_confirmation_emails gauge"];
  for (const status of ["pending", "sent", "failed", "recorded", "refused"])
    lines.push(`formsvc_confirmation_emails{status="${status}"} ${counts[status] ?? 0}`);
  lines.push("# HELP formsvc_confirmation_refusals Confirmation emails refused, by reason (spam, invalid_address, limits).");
  lines.push("# TYPE formsvc_confirmation_refusals gauge");
  for (const reason of ["spam", "invalid_address", "per_address_limit", "per_form_daily_limit"]) {
    lines.push(`formsvc_confirmation_refusals{reason="${reason}"} ${counts[`refused:${reason}`] ?? 0}`);
  }
  return lines;
}

/** The answer to GET /metrics. */
export async function metricsResponse(metrics: Metrics): Promise<Response> {
  return new Response(await metrics.render(), { status: 200, headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } });
}

/** A server of its own for /metrics (`--metrics-listen 127.0.0.1:9090`), so that the main port never shows it. */
export function serveMetricsAlone(listen: { host: string; port: number }, metrics: Metrics): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    hostname: listen.host,
    port: listen.port,
    fetch: (request) => {
      // An HTTP/1.0 request without Host has no host in its URL: its path is read as it came.
      const path = URL.canParse(request.url) ? new URL(request.url).pathname : request.url.split("?")[0];
      if (path === "/metrics" && (request.method === "GET" || request.method === "HEAD")) return metricsResponse(metrics);
      return json(404, new ApiError("not_found", "Only /metrics is served here.").toBody());
    },
  });
}
