/**
 * Import rules of src/ and handlers/, checked in npm test (`npm run lint:imports`): the layers of
 * docs/architecture.md stand the right way up (the edge above the handlers, the handlers above the ports, the
 * domain below them, what both speak at the bottom); no import circle, type-only imports included (a circle of
 * types is still a circle a reader must follow); ports that do not load their implementations; domain code
 * without Koa.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'ports-import-types-only',
      severity: 'error',
      comment: 'src/ports/ holds the interfaces handlers and the domain meet at: they name types, never load an implementation.',
      from: { path: '^src/ports/' },
      to: { dependencyTypesNot: ['type-only'], pathNot: 'generated/openapi' },
    },
    {
      name: 'domain-below-the-edge',
      severity: 'error',
      comment: 'Only the app, the server and the edge itself know src/http/: the domain reports problems of src/common/, which the edge renders.',
      from: { path: '^(src|handlers)/', pathNot: '^src/(http/|app\\.ts$|server\\.ts$|main\\.ts$)' },
      to: { path: '^src/http/' },
    },
    {
      name: 'handlers-through-ports',
      severity: 'error',
      comment: 'A handler unpacks its input, calls a port of deps and maps the result: it reaches nothing of src/ but the ports, the handlers\' own types and results, and what every layer speaks.',
      from: { path: '^handlers/' },
      to: { path: '^src/', pathNot: '^src/(ports|operations|common)/' },
    },
    {
      name: 'common-at-the-bottom',
      severity: 'error',
      comment: 'src/common/ is what the domain and the edge both speak (problems, entity tags, encoded JSON): it imports nothing of the server.',
      from: { path: '^src/common/' },
      to: { path: '^(src|handlers)/', pathNot: '^src/common/' },
    },
    {
      name: 'readers-know-no-job',
      severity: 'error',
      comment: 'The readers of long reads step any job a JobMaker makes; the jobs are handed to them (src/reader-jobs/).',
      from: { path: '^src/reader-threads/' },
      to: { path: '^src/', pathNot: '^src/(reader-threads/|worker-entry\\.ts$)' },
    },
    {
      name: 'port-not-importing-its-implementation',
      severity: 'error',
      comment: 'A port module (the tenants and metrics ports) must not import what implements it.',
      from: { path: '^src/(tenants/tenants|metrics/metrics)\\.ts$' },
      to: { path: '^src/(tenants/registry|metrics/prometheus-metrics|metrics/create-metrics)\\.ts$' },
    },
    {
      name: 'domain-without-koa',
      severity: 'error',
      comment: 'Domain code under src/<area>/ knows nothing of Koa; only src/http/ and the app touch ctx.',
      from: { path: '^src/', pathNot: '^src/(http/|app\\.ts$|server\\.ts$)' },
      to: { path: '^node_modules/(@types/)?koa(-body)?/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules that import each other, directly or through others, cannot be read, tested or replaced one at a time.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|generated)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
