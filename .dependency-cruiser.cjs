/**
 * Import rules of src/ and handlers/, checked in npm test (`npm run lint:imports`): no import circle, type-only
 * imports included (a circle of types is still a circle a reader must follow); ports that do not load their
 * implementations; domain code without Koa.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'ports-import-types-only',
      severity: 'error',
      comment: 'src/ports.ts is the Deps interface handlers and domain code depend on: it names types, it never loads an implementation.',
      from: { path: '^src/ports\\.ts$' },
      to: { dependencyTypesNot: ['type-only'] },
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
