/**
 * The limits port: what the per-tenant limits, fault counts and event streams need of a store that
 * processes share. The PostgreSQL store implements it (stores/postgres/shared-slots.ts); one process needs none.
 */

/** Slots counted over every process: taken and given back per tenant. */
export interface SharedCounter {
  /** Takes one of `cap` slots of `kind` for `tenant` over every process; false when they are all taken. */
  take(kind: string, tenant: string, cap: number): Promise<boolean>;
  give(kind: string, tenant: string): void;
}
