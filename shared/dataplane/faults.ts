/**
 * Fault injection for the reference data plane and the executors: tests and the chaos run use
 * it to stand for failures the emulators cannot produce on demand.
 */
import { DataPlaneError, SimulatedCrash } from '../errors';

/**
 * `apply-then-fail`: the call takes effect, then answers a transient error. `apply-unhealthy`: the
 * call takes effect and answers success, but what it made runs unhealthy (a replica that never
 * hydrates), until `setHealth` says otherwise.
 */
export type FaultKind = 'transient' | 'terminal' | 'apply-then-fail' | 'apply-unhealthy';

export class FaultInjector {
  private readonly queued: { kind: FaultKind; remaining: number; message: string; skip: number }[] = [];
  private readonly crashPoints = new Map<string, number>();
  /** Passes of a crash point to let through before its armed crashes fire. */
  private readonly crashSkips = new Map<string, number>();
  private readonly pauses = new Map<string, { reached: () => void; resumed: Promise<void> }[]>();
  latencyMs = 0;
  /** Data-plane calls seen (tests compare it with the real changes in the action log). */
  calls = 0;

  /** The next `n` data-plane calls fail with this kind of error. */
  failNext(n: number, kind: FaultKind, message = `injected ${kind} fault`): void {
    this.queued.push({ kind, remaining: n, message, skip: 0 });
  }

  /** Lets `skip` calls through, then fails the `n` after them. */
  failAfter(skip: number, n: number, kind: FaultKind, message = `injected ${kind} fault`): void {
    this.queued.push({ kind, remaining: n, message, skip });
  }

  /**
   * The next `n` times the code passes `point`, it "dies" there (throws SimulatedCrash); with
   * `skip`, the first `skip` passes go through before that (the crash matrix's "at the k-th step").
   */
  crashAt(point: string, n = 1, skip = 0): void {
    this.crashPoints.set(point, (this.crashPoints.get(point) ?? 0) + n);
    if (skip > 0) this.crashSkips.set(point, (this.crashSkips.get(point) ?? 0) + skip);
  }

  /** Crashes armed but not yet reached. */
  pendingCrashes(): number {
    return [...this.crashPoints.values()].reduce((a, b) => a + b, 0);
  }

  /**
   * The next time the code passes `point` (an awaited `checkpoint`), it stops there until
   * `resume()`: a slow reader or a paused process, ordered by the test instead of by sleeps.
   */
  pauseAt(point: string): { reached: Promise<void>; resume: () => void } {
    let reached!: () => void;
    let resume!: () => void;
    const reachedP = new Promise<void>((r) => (reached = r));
    const resumed = new Promise<void>((r) => (resume = r));
    this.pauses.set(point, [...(this.pauses.get(point) ?? []), { reached, resumed }]);
    return { reached: reachedP, resume };
  }

  /** Like `point`, and where a pause may be injected. */
  async checkpoint(name: string): Promise<void> {
    this.point(name);
    const pause = this.pauses.get(name)?.shift();
    if (!pause) return;
    pause.reached();
    await pause.resumed;
  }

  clear(): void {
    this.queued.length = 0;
    this.crashPoints.clear();
    this.crashSkips.clear();
    this.pauses.clear();
    this.latencyMs = 0;
  }

  /** Called where a crash may be injected. */
  point(name: string): void {
    const n = this.crashPoints.get(name) ?? 0;
    const skip = this.crashSkips.get(name) ?? 0;
    if (n > 0 && skip > 0) {
      this.crashSkips.set(name, skip - 1);
      return;
    }
    if (n > 0) {
      this.crashPoints.set(name, n - 1);
      throw new SimulatedCrash(name);
    }
  }

  /** Called before a data-plane call; returns the fault to apply after it, if any. */
  async beforeCall(): Promise<FaultKind | undefined> {
    this.calls++;
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    const f = this.queued[0];
    if (!f) return undefined;
    if (f.skip > 0) {
      f.skip--;
      return undefined;
    }
    f.remaining--;
    if (f.remaining <= 0) this.queued.shift();
    if (f.kind === 'apply-then-fail' || f.kind === 'apply-unhealthy') return f.kind;
    throw new DataPlaneError(f.message, f.kind === 'transient');
  }
}

