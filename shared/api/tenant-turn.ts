/**
 * One request's writes at a time per tenant in this process: concurrent ones would only conflict
 * on the catalog version and replan. (A Lambda instance serves one request at a time; this
 * matters for the local API and any long-lived host.)
 */
export class TenantTurns {
  /** Per tenant, the tail of the chain of this process's writing requests. */
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(tenant: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(tenant) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(tenant, tail);
    try {
      return await run;
    } finally {
      // The last in line clears the entry, so idle tenants hold no memory.
      if (this.tails.get(tenant) === tail) this.tails.delete(tenant);
    }
  }
}
