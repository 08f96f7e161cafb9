/**
 * The pipelines this worker started and has not stopped, which the suite-wide invariant checks
 * walk (test/setup/invariants.ts). A module of its own, with no imports, so that the setup file
 * every test file loads does not pull in the pipeline, the AWS SDK and the emulators' clients:
 * a pure unit test file pays for none of them.
 */
import type { Pipeline } from '../../local/pipeline';

export const livePipelines = new Set<Pipeline>();
