import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { strongEtag } from '../common/entity-tags.js';

/** The Swagger UI files served under /docs, from the npm package (no CDN). */
export const DOC_ASSETS = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
  'swagger-ui-standalone-preset.js': 'application/javascript',
  'favicon-32x32.png': 'image/png',
} as const;

export type DocAsset = keyof typeof DOC_ASSETS;

const assetDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const cache = new Map<DocAsset, { data: Buffer; etag: string }>();

/** One asset's bytes and ETag, read once. */
export function readDocAsset(name: DocAsset): { data: Buffer; etag: string; mediaType: string } {
  let entry = cache.get(name);
  if (entry === undefined) {
    const data = fs.readFileSync(path.join(assetDir, name));
    entry = { data, etag: strongEtag(data) };
    cache.set(name, entry);
  }
  return { ...entry, mediaType: DOC_ASSETS[name] };
}

/** The /docs page: Swagger UI reading /openapi.json. */
export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Analytics Desk Server API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout', persistAuthorization: true });
  </script>
</body>
</html>
`;
export const DOCS_PAGE_ETAG = strongEtag(DOCS_PAGE);
