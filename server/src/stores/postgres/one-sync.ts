/**
 * Several statements, each with its values bound, in one write to the connection and one transaction: PostgreSQL's
 * extended protocol runs the statements sent before a Sync as one implicit transaction (committed at the Sync, or
 * rolled back whole at the first error, the rest skipped), so no BEGIN and COMMIT of their own and one answer for all
 * of them. A `pg` query (`client.query(new OneSync(...))`, a custom query as pg-cursor is one) whose answer is the
 * outcome, not rows: what a change sends with its COMMIT (backend.ts) needs none.
 * - Its statements are unnamed: parsed each time, as a text sent once.
 * - Inside a transaction BEGIN opened, it ends with that transaction's COMMIT when asked for; on an error the
 *   transaction is left aborted for the caller's ROLLBACK.
 */
import type pg from "pg";
// pg's own mapping of a value to its wire form (dates, arrays, JSON), as its queries bind them; pg ships no types for it.
// @ts-expect-error: untyped module of pg's
import utils from "pg/lib/utils.js";

export interface Statement {
  text: string;
  values: unknown[];
}

/** The parts of pg's connection a custom query writes to, as pg calls them (its published types differ). */
interface Connection {
  stream: { cork?: () => void; uncork?: () => void };
  parse(m: { text: string; name?: string }): void;
  bind(m: { values: unknown[]; valueMapper: (v: unknown) => unknown }): void;
  execute(m: { rows?: number }): void;
  sync(): void;
}

export class OneSync implements pg.Submittable {
  private failed: Error | null = null;

  constructor(
    private readonly statements: Statement[],
    private readonly done: (err: Error | null) => void,
  ) {}

  submit(pgConnection: pg.Connection): void {
    const connection = pgConnection as unknown as Connection;
    connection.stream.cork?.();
    try {
      for (const s of this.statements) {
        connection.parse({ text: s.text });
        connection.bind({ values: s.values, valueMapper: (utils as { prepareValue: (v: unknown) => unknown }).prepareValue });
        connection.execute({});
      }
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
  }

  // Rows and completions are the statements' own; nothing is kept of them.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}

  /** The first error: the server skips the rest until the Sync (pg stops sending this query's messages to it). */
  handleError(err: Error): void {
    if (this.failed) return;
    this.failed = err;
    this.done(err);
  }

  handleReadyForQuery(): void {
    if (!this.failed) this.done(null);
  }
}

/** Sends `statements` as one (OneSync) on `client`; resolves once committed, rejects with the first error. */
export function sendAsOne(client: pg.ClientBase, statements: Statement[]): Promise<void> {
  return new Promise((resolve, reject) => {
    void client.query(new OneSync(statements, (err) => (err ? reject(err) : resolve())));
  });
}
