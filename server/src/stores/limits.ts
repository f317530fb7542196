/**
 * The limits port: what the per-tenant limits, fault counts and event streams need of a store that
 * processes share. The PostgreSQL store implements it (postgres/shared-slots.ts, postgres/planted.ts); one process needs
 * none.
 */

/** Slots counted over every process: taken and given back per tenant. */
export interface SharedCounter {
  /** Takes one of `cap` slots of `kind` for `tenant` over every process; false when they are all taken. */
  take(kind: string, tenant: string, cap: number): Promise<boolean>;
  give(kind: string, tenant: string): void;
}

/**
 * A quota counted where every process sees it (PostgreSQL): `take` counts `n` in the change in progress when the
 * count leaves room under `cap`, one statement that never makes all of a tenant's writes wait on one row (takes in
 * flight at once may together pass the cap by what they add); past the cap the change is refused with
 * `refusal(count)` (and rolled back).
 */
export interface SharedQuota {
  take(tenant: string, n: number, cap: number, refusal: (count: number) => Error): Promise<void>;
}
