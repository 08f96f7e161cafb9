/**
 * The layering of docs/architecture.md ("Layers"), checked by dependency-cruiser with the rules in
 * .dependency-cruiser.cjs: every folder of shared/ and every top-level folder has a band, imports
 * go down the bands only, and so no two folders import each other in a circle. The same rules run
 * on a made-up tree with deliberate upward imports, so a rule that could never fail would show.
 */
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { madeUpTree } from '../helpers/architecture';
import { bandsOf, CHECKED, checkLayers, cycles, type LayerCheck } from '../helpers/layers';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Top-level folders that hold no product code, or only what may import anything (bench, test). */
const NOT_LAYERED = new Set(['node_modules', 'docs', 'bench', 'test', 'cdk.out', 'coverage', 'dist']);

describe('layers', () => {
  const bands = bandsOf(ROOT);
  let real: LayerCheck;
  beforeAll(async () => {
    real = await checkLayers(ROOT, CHECKED);
  });

  it('every folder and root file of shared/, and every top-level folder of product code, has a band', () => {
    const shared = readdirSync(join(ROOT, 'shared'), { withFileTypes: true }).filter((e) => e.isDirectory() || e.name.endsWith('.ts')).map((e) => e.name);
    expect(shared.filter((n) => !bands.shared.flat().includes(n))).toEqual([]);
    expect(bands.shared.flat().filter((n) => !shared.includes(n))).toEqual([]);
    const top = readdirSync(ROOT, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('.') && !NOT_LAYERED.has(e.name)).map((e) => e.name);
    expect(top.filter((n) => !bands.top.flat().includes(n))).toEqual([]);
    expect([...CHECKED].sort()).toEqual(bands.top.flat().sort());
  });

  it('reads every source file of the layered folders', () => {
    expect(real.modules).toBeGreaterThan(200);
    expect(real.edges.some((e) => e.from === 'shared/catalog/outbox-store.ts' && e.to === 'shared/effects/retry-policies.ts')).toBe(true);
    // Type-only imports are dependencies too.
    expect(real.edges.some((e) => e.typeOnly && e.from === 'shared/executor/executor.ts' && e.to === 'shared/catalog/model.ts')).toBe(true);
  });

  it('imports go down the bands only', () => {
    expect(real.violations).toEqual([]);
  });

  it('no two folders of shared/, nor two top-level folders, import each other in a circle', () => {
    expect(cycles(real.edges)).toEqual([]);
  });

  describe('on a made-up tree with upward imports, the checker fails', () => {
    const { root: tree, write } = madeUpTree('layers-');
    afterAll(() => rmSync(tree, { recursive: true, force: true }));
    write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', strict: true, noEmit: true } }));
    // Upward (catalog → planner), and back down again: a cycle of two folders.
    write('shared/catalog/store.ts', "import { plan } from '../planner/plan';\nexport const store = plan;\n");
    write('shared/planner/plan.ts', "import type { Store } from '../catalog/model';\nimport type { Route } from '../router/routing';\nexport const plan = 1;\nexport type P = Store | Route;\n");
    write('shared/catalog/model.ts', 'export type Store = 1;\n');
    // Beside, in the same band (planner → router).
    write('shared/router/routing.ts', 'export type Route = 2;\n');
    // A type-only import upward counts.
    write('shared/sql/parser.ts', "import type { Handler } from '../lambda/api';\nexport type Parsed = Handler;\n");
    write('shared/lambda/api.ts', "import type { Parsed } from '../sql/parser';\nexport type Handler = 1;\nexport type H = Parsed;\n");
    // A dynamic import upward counts.
    write('shared/probes/real.ts', "export const load = () => import('../api/sql-api');\n");
    write('shared/api/sql-api.ts', 'export const api = 1;\n');
    // shared/ imports no top-level folder, nor a test helper.
    write('shared/errors.ts', "export { main } from '../local/main';\n");
    write('shared/effects/model.ts', "import { fake } from '../../test/helpers/fake';\nexport const model = fake;\n");
    write('test/helpers/fake.ts', 'export const fake = 1;\n');
    write('local/main.ts', 'export const main = 1;\n');
    write('local/runtime-info.ts', 'export type Info = 1;\n');
    // The console must not import the CLI; the CLI loads local/runtime-info.ts only.
    write('console/src/sql.ts', "import { caret } from '../../cli/caret';\nexport const sql = caret;\n");
    write('cli/caret.ts', "import { main } from '../local/main';\nimport type { Info } from '../local/runtime-info';\nexport const caret = main;\nexport type I = Info;\n");
    // An import the checker cannot resolve escapes no rule.
    write('shared/dynamo.ts', "import '../nowhere';\n");

    it('names every upward, sideways and unresolvable import, type-only and dynamic ones included', async () => {
      const made = await checkLayers(tree, ['shared', 'local', 'cli', 'console'], ROOT);
      expect(made.violations).toEqual([
        'not-to-unresolvable: shared/dynamo.ts → ../nowhere',
        'shared:catalog: shared/catalog/store.ts → shared/planner/plan.ts',
        'shared:planner: shared/planner/plan.ts → shared/router/routing.ts',
        'shared:probes: shared/probes/real.ts → shared/api/sql-api.ts',
        'shared:sql: shared/sql/parser.ts → shared/lambda/api.ts',
        'top:cli-local: cli/caret.ts → local/main.ts',
        'top:console: console/src/sql.ts → cli/caret.ts',
        'top:shared: shared/errors.ts → local/main.ts',
        'top:tests-and-benchmarks: shared/effects/model.ts → test/helpers/fake.ts',
      ]);
      expect(cycles(made.edges)).toEqual([
        ['shared/catalog', 'shared/planner'],
        ['shared/lambda', 'shared/sql'],
      ]);
    });
  });
});
