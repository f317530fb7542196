/**
 * The app a process serves, replaced when its memory may no longer match the shared database: a change cut during
 * its commit by a PostgreSQL restart (committed or not, nobody knows), or another process's change it could not
 * apply. The state is then read again from the database into a new app, as a restart would, without one: the other
 * processes never stopped, and this one answers 503 with Retry-After on the API only while it reloads.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { App } from "./app.ts";
import { PgJournal } from "./stores/postgres/journal.ts";

/** A new app over a newly opened store (main.ts: the same options as at start-up, fresh fixtures). */
export type Build = () => Promise<App>;

export class ReloadingApp {
  private reloading = false;
  private stopped = false;
  /** How many times the state was read again (logged). */
  reloads = 0;

  constructor(
    public current: App,
    private readonly build: Build,
    private readonly logger: Logger,
    /** Pause between two attempts to open the database again. */
    private readonly retryMs = 1_000,
  ) {
    this.watch(current);
  }

  readonly listener: RequestListener = (req: IncomingMessage, res: ServerResponse) => {
    if (this.reloading && req.url?.startsWith("/api")) {
      const body = { error: { type: "api_error", message: "Service unavailable: this process is reading its state from the database again" } };
      res.writeHead(503, { "Content-Type": "application/json", "Retry-After": "1", "X-Content-Type-Options": "nosniff" }).end(JSON.stringify(body));
      return;
    }
    (this.current.app as unknown as RequestListener)(req, res);
  };

  /** No reload starts (or completes) after this: the process is shutting down. */
  stop(): void {
    this.stopped = true;
  }

  private watch(app: App): void {
    if (app.journal instanceof PgJournal) app.journal.onDiverged((why) => void this.reload(app, why));
  }

  private async reload(from: App, why: string): Promise<void> {
    if (this.reloading || this.stopped || from !== this.current) return;
    this.reloading = true;
    this.logger.warn({ why }, "this process's state may differ from the database: reading it again");
    // At once: the old state may have numbered a stream event the database never got, and would then skip the
    // event another process commits under that number. Listeners reconnect with their Last-Event-ID to the new app.
    from.endStreams();
    while (!this.stopped) {
      try {
        const next = await this.build();
        if (this.stopped) {
          await next.close();
          break;
        }
        this.current = next;
        this.reloads++;
        this.watch(next);
        // Nothing more is written through the old store (it refuses changes since it diverged).
        void from.close().catch(() => {});
        this.logger.warn({ reloads: this.reloads }, "state read again from the database: ready");
        break;
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, "cannot read the state from the database yet; trying again");
        await new Promise((r) => setTimeout(r, this.retryMs));
      }
    }
    this.reloading = false;
  }
}
