/** The fault injector's crash points: armed crashes fire at the passes they were armed for. */
import { describe, expect, it } from 'vitest';
import { FaultInjector } from '../../shared/dataplane/faults';
import { SimulatedCrash } from '../../shared/errors';

describe('FaultInjector.crashAt', () => {
  it('dies at the next pass, or after `skip` passes go through', () => {
    const f = new FaultInjector();
    f.crashAt('p');
    expect(() => f.point('p')).toThrow(SimulatedCrash);
    f.point('p');
    f.crashAt('p', 1, 2);
    f.point('other');
    f.point('p');
    f.point('p');
    expect(f.pendingCrashes()).toBe(1);
    expect(() => f.point('p')).toThrow(SimulatedCrash);
    expect(f.pendingCrashes()).toBe(0);
    f.point('p');
  });
});
