/**
 * Runs dependency-cruiser with the repository's layering (.dependency-cruiser.cjs, docs/
 * architecture.md "Layers") over a tree: this checkout, or a made-up one for the test that shows
 * a rule fails (test/project/layers.test.ts).
 */
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

/** The folders and files the layering covers (bench/ and test/ may import anything). */
export const CHECKED = ['shared', 'cdk', 'functions', 'local', 'cli', 'console'] as const;

export interface Bands {
  /** The folders and root files of shared/, top band first. */
  readonly shared: readonly (readonly string[])[];
  /** The top-level folders, top band first. */
  readonly top: readonly (readonly string[])[];
}

/** The bands the configuration is written from. */
export function bandsOf(root: string): Bands {
  return (createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs')) as { bands: Bands }).bands;
}

export interface LayerCheck {
  /** `rule: from → to`, sorted. */
  readonly violations: readonly string[];
  /** Every resolved dependency between modules of the tree: `from → to` (paths relative to the tree). */
  readonly edges: readonly { readonly from: string; readonly to: string; readonly typeOnly: boolean }[];
  readonly modules: number;
}

/**
 * Cruises `paths` (relative to `tree`) with the configuration of `configRoot` (default: the tree
 * itself) and the tree's tsconfig.json.
 */
export async function checkLayers(tree: string, paths: readonly string[], configRoot = tree): Promise<LayerCheck> {
  const options = await extractDepcruiseOptions(join(configRoot, '.dependency-cruiser.cjs'));
  const tsConfigFile = join(tree, 'tsconfig.json');
  const cwd = process.cwd();
  let result: ICruiseResult;
  // dependency-cruiser reads the paths (and reports them) relative to the working directory.
  process.chdir(tree);
  try {
    const out = await cruise(
      [...paths],
      { ...options, baseDir: tree, validate: true, outputType: 'json', tsConfig: { fileName: tsConfigFile } },
      {},
      { tsConfig: extractTSConfig(tsConfigFile) },
    );
    result = (typeof out.output === 'string' ? JSON.parse(out.output) : out.output) as ICruiseResult;
  } finally {
    process.chdir(cwd);
  }
  const rel = (p: string) => relative(tree, join(tree, p)).split('\\').join('/');
  return {
    violations: result.summary.violations.map((v: IViolation) => `${v.rule.name}: ${rel(v.from)} → ${rel(v.to)}`).sort(),
    edges: result.modules.flatMap((m) =>
      m.dependencies.filter((d) => !d.coreModule && !d.couldNotResolve && !d.resolved.includes('node_modules')).map((d) => ({ from: rel(m.source), to: rel(d.resolved), typeOnly: d.dependencyTypes.includes('type-only') })),
    ),
    modules: result.modules.filter((m) => !m.source.includes('node_modules') && !m.coreModule).length,
  };
}

/** The folder (or root file) of shared/ a path is in, or the top-level folder outside shared/. */
export function unitOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] !== 'shared') return parts[0]!;
  return parts.length > 2 ? `shared/${parts[1]}` : path;
}

/** Groups of units that import each other in a circle (Tarjan's strongly connected components, more than one unit). */
export function cycles(edges: readonly { readonly from: string; readonly to: string }[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    const a = unitOf(e.from);
    const b = unitOf(e.to);
    if (a === b) continue;
    if (!next.has(a)) next.set(a, new Set());
    next.get(a)!.add(b);
    if (!next.has(b)) next.set(b, new Set());
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}
