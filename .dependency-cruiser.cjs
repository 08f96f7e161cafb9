/**
 * The layering of docs/architecture.md ("Layers"), as rules dependency-cruiser checks
 * (test/project/layers.test.ts runs them in `npm test`; `npx depcruise shared cdk functions local
 * cli console --config .dependency-cruiser.cjs` from the shell).
 *
 * Each band below may import its own folder and the bands under it, never a band above it nor
 * another folder of its own band. Type-only imports count (they couple the layers too), as do
 * re-exports and dynamic imports. Ordering the bands this way is what keeps the folders free of
 * cycles.
 */

/** The folders and root files of shared/, top band first. */
const SHARED_BANDS = [
  ['lambda', 'pgwire'], // the wiring of each function and task: configuration, clients, stores
  ['config.ts'], // the configuration, loaded once and validated
  ['checker', 'sweeper', 'executor', 'status-ingest'], // what runs after a commit
  ['api'], // the DDL API and its stages
  ['auth', 'system', 'pglite'], // app passwords, the system relations, the SQL engine host
  ['planner', 'router'], // planning; routing, admitting and sending effects
  ['events'], // status events picked from the stream
  ['catalog'], // the stores of the app table, the catalog model, ids, derived effects
  ['definitions.ts', 'status'], // the deployment's description; the connector status model
  ['dataplane'], // the controller contract, the reference data plane, the HTTP client
  ['secrets', 'probes'], // the secret stores; the upstream probes
  ['sql', 'wire'], // the SQL language; the Postgres wire protocol's codecs
  ['effects', 'connectors', 'aws.ts'], // the effect model and retry policies; the connector types' descriptors; SDK clients
  ['mz-errors.ts'], // Materialize's error kinds and texts, keyed by kind
  ['clients', 'dynamo.ts', 'errors.ts'], // client builders, the paging helper, errors
];

/**
 * The top-level folders, top band first. bench/ and test/ may import anything; shared/ nothing of
 * these. The CLI reads a running `npm start` through local/runtime-info.ts only (kept free of the
 * SDK and the emulators), never the runtime itself.
 */
const TOP_BANDS = [['cdk', 'functions'], ['cli'], ['local'], ['console'], ['shared']];

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A path pattern for folders or files relative to `root`. */
const under = (root, names) => `^${root}(${names.map((n) => (n.endsWith('.ts') ? `${escape(n)}$` : `${escape(n)}/`)).join('|')})`;

function bandRules(root, bands, scope) {
  const rules = [];
  bands.forEach((band, i) => {
    for (const name of band) {
      const above = bands.slice(0, i).flat();
      const beside = band.filter((n) => n !== name);
      const forbidden = [...above, ...beside];
      if (forbidden.length === 0) continue;
      rules.push({
        name: `${scope}:${name}`,
        comment: `${root}${name} is in band ${i + 1} of ${scope}: it imports only the bands below it (docs/architecture.md, "Layers")`,
        severity: 'error',
        from: { path: under(root, [name]) },
        to: { path: under(root, forbidden) },
      });
    }
  });
  return rules;
}

module.exports = {
  forbidden: [
    ...bandRules('shared/', SHARED_BANDS, 'shared'),
    ...bandRules('', TOP_BANDS, 'top'),
    {
      name: 'top:cli-local',
      comment: 'ddlctl finds a running npm start through local/runtime-info.ts and loads nothing else of the runtime.',
      severity: 'error',
      from: { path: '^cli/' },
      to: { path: '^local/', pathNot: '^local/runtime-info\\.ts$' },
    },
    {
      name: 'top:tests-and-benchmarks',
      comment: 'bench/ and test/ may import anything; the product imports neither.',
      severity: 'error',
      from: { path: '^(shared|cdk|functions|cli|local|console)/' },
      to: { path: '^(bench|test)/' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import the checker cannot resolve would escape every rule above.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|cdk\\.out|coverage|\\.data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.mts', '.mjs', '.js', '.cjs', '.json', '.d.ts'] },
    skipAnalysisNotInRules: true,
  },
};

// The bands themselves, for the test that checks every folder of shared/ has one (not enumerable:
// dependency-cruiser validates the configuration's own properties).
Object.defineProperty(module.exports, 'bands', { value: { shared: SHARED_BANDS, top: TOP_BANDS }, enumerable: false });
