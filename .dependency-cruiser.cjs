/**
 * The layers of src/ (docs/architecture.md). Each folder is a layer; imports point one way:
 *
 *   domain ← support ← schemas ← ports ← logic ← actors | adapters ← services ← http ← main ← cli
 *
 * `schemas` is the wire contract (TypeBox schemas of requests, responses and the agent protocol,
 * compiled once); `support` is what every layer may use (config, logs, metrics, traces).
 *
 * `npm run layers` prints violations; test/architecture/layers.test.ts fails on any.
 */
const allowed = {
  domain: ['domain'],
  support: ['domain', 'support', 'ports'],
  schemas: ['domain', 'support', 'schemas'],
  ports: ['domain', 'support', 'schemas', 'ports'],
  logic: ['domain', 'support', 'schemas', 'ports', 'logic'],
  actors: ['domain', 'support', 'schemas', 'ports', 'logic', 'actors'],
  adapters: ['domain', 'support', 'schemas', 'ports', 'logic', 'adapters'],
  services: ['domain', 'support', 'ports', 'logic', 'schemas', 'actors', 'services'],
  http: ['domain', 'support', 'ports', 'logic', 'schemas', 'services', 'http'],
  main: ['domain', 'support', 'ports', 'logic', 'schemas', 'actors', 'adapters', 'services', 'http', 'main'],
  cli: ['domain', 'support', 'ports', 'logic', 'schemas', 'actors', 'adapters', 'services', 'http', 'main', 'cli'],
  client: ['client'],
};

module.exports = {
  forbidden: [
    ...Object.entries(allowed).map(([layer, may]) => ({
      name: `${layer}-imports-only-${may.join('-')}`,
      comment: `src/${layer} may import only from src/{${may.join(',')}}`,
      severity: 'error',
      from: { path: `^src/${layer}/` },
      to: { path: '^src/', pathNot: [`^src/(${may.join('|')})/`, '^src/logic/webhooks/verify\\.ts$'] },
    })),
    {
      name: 'no-unlayered-source',
      comment: 'every file under src/ lives in a layer folder',
      severity: 'error',
      from: { path: '^src/[^/]+\\.ts$' },
      to: {},
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
