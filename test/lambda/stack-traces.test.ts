import { transformSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { formatFrame, installLazySourceMaps, originalPosition, prepareStackTrace, sourceMapOf, sourcePath } from '../../shared/lambda/stack-traces';
import { SourceMap } from 'node:module';

// A minified build of a small TypeScript file, with its map (as the functions' bundles have).
const SOURCE = ['export function outer(n: number): number {', '  return inner(n) + 1;', '}', 'function inner(n: number): number {', '  if (n > 2) throw new Error(`too big: ${n}`);', '  return n;', '}', ''].join('\n');
const built = transformSync(SOURCE, { loader: 'ts', format: 'esm', minify: true, sourcemap: 'external', sourcefile: '../../../../build/here/shared/demo/calc.ts' });
const GENERATED = built.code;

/** Line and column (1-based) of `needle` in the generated code. */
function generatedAt(needle: string): { line: number; column: number } {
  const i = GENERATED.indexOf(needle);
  expect(i).toBeGreaterThanOrEqual(0);
  const before = GENERATED.slice(0, i).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/** A V8 CallSite stand-in for a frame in `file` at a generated position. */
function site(file: string, fn: string | null, at: { line: number; column: number }, enclosing?: { line: number; column: number }): NodeJS.CallSite {
  return {
    getFileName: () => file,
    getLineNumber: () => at.line,
    getColumnNumber: () => at.column,
    getFunctionName: () => fn,
    getEnclosingLineNumber: () => enclosing?.line ?? null,
    getEnclosingColumnNumber: () => enclosing?.column ?? null,
    toString: () => (fn ? `${fn} (${file}:${at.line}:${at.column})` : `${file}:${at.line}:${at.column}`),
  } as unknown as NodeJS.CallSite;
}

describe('sourcePath', () => {
  it.each([
    ['../../../work/main/shared/api/sql-api.ts', 'shared/api/sql-api.ts'],
    ['../../../../tmp/x/functions/ddl-api/handler.ts', 'functions/ddl-api/handler.ts'],
    ['../../node_modules/@smithy/core/dist-es/a.js', 'node_modules/@smithy/core/dist-es/a.js'],
    ['../../node_modules/x/node_modules/y/index.js', 'node_modules/y/index.js'],
    ['../lib/other.ts', 'lib/other.ts'],
    ['file:///var/task/shared/x.ts', 'shared/x.ts'],
  ])('%s → %s', (source, expected) => {
    expect(sourcePath(source)).toBe(expected);
  });
});

describe('mapping a frame', () => {
  it('the throw in the minified code maps to its line and column in the TypeScript source', () => {
    // Prepare
    const map = new SourceMap(JSON.parse(built.map));
    const at = generatedAt('throw');

    // Act
    const pos = originalPosition(map, at.line, at.column);

    // Assess: line 5, column 14 of calc.ts (`throw new Error(...)`)
    expect(pos).toMatchObject({ source: 'shared/demo/calc.ts', line: 5, column: 14 });
  });

  it("formats V8's frame with the source's location and the enclosing function's own name; reads each file's map once", () => {
    // Prepare
    const file = `/var/task/chunks/calc-${Math.random().toString(36).slice(2)}.mjs`;
    const reads: string[] = [];
    const read = (p: string) => {
      reads.push(p);
      return built.map;
    };
    const at = generatedAt('throw');
    const minifiedInner = /function (\w+)\(\w+\)\{if/.exec(GENERATED)![1]!;
    const enclosing = generatedAt(`function ${minifiedInner}(`);

    // Act
    const first = formatFrame(site(file, minifiedInner, at, { line: enclosing.line, column: enclosing.column + 'function '.length }), read);
    const second = formatFrame(site(file, null, at), read);

    // Assess
    expect(minifiedInner).not.toBe('inner');
    expect(first).toBe('inner (shared/demo/calc.ts:5:14)');
    expect(second).toBe('shared/demo/calc.ts:5:14');
    expect(reads).toEqual([`${file}.map`]);
    // A frame whose name only ends with the minified one keeps its name.
    const tail = formatFrame({ ...site(file, minifiedInner, at, { line: enclosing.line, column: enclosing.column + 'function '.length }), toString: () => `async T.x${minifiedInner} (${file}:${at.line}:${at.column})` } as NodeJS.CallSite, read);
    expect(tail).toBe(`async T.x${minifiedInner} (shared/demo/calc.ts:5:14)`);
  });

  it('leaves a frame as V8 prints it when its file has no map, or is not a file', () => {
    // Prepare
    const missing = () => {
      throw new Error('ENOENT');
    };

    // Act + Assess
    expect(formatFrame(site('/var/task/none.mjs', 'f', { line: 1, column: 5 }), missing)).toBe('f (/var/task/none.mjs:1:5)');
    expect(formatFrame(site('node:internal/process/task_queues', 'processTicksAndRejections', { line: 95, column: 5 }), missing)).toBe('processTicksAndRejections (node:internal/process/task_queues:95:5)');
    expect(sourceMapOf('/var/task/data.json', () => built.map)).toBeNull();
  });

  it('a whole trace: the header as V8 writes it, then each frame', () => {
    // Prepare
    const err = new TypeError('bad input');
    const sites = [site('node:internal/x', 'h', { line: 1, column: 1 })];

    // Act
    const trace = prepareStackTrace(err, sites);

    // Assess
    expect(trace).toBe('TypeError: bad input\n    at h (node:internal/x:1:1)');
    expect(prepareStackTrace({ toString: () => { throw new Error('no'); } }, [])).toBe('<error>');
  });
});

describe('installLazySourceMaps', () => {
  it('does nothing outside a bundle (TypeScript run by tsx or vitest map traces their own way)', () => {
    // Prepare
    const before = Error.prepareStackTrace;

    // Act
    const installed = installLazySourceMaps('file:///work/main/shared/lambda/stack-traces.ts');

    // Assess
    expect(installed).toBe(false);
    expect(Error.prepareStackTrace).toBe(before);
  });
});
