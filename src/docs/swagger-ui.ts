import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { strongEtag } from '../common/entity-tags.js';
import type { ApiDocs, DocAssetName, StaticBody } from '../ports/server-state.js';

/** The Swagger UI files served under /docs, from the npm package (no CDN), and their media types. */
export const DOC_ASSETS: Readonly<Record<DocAssetName, string>> = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
  'swagger-ui-standalone-preset.js': 'application/javascript',
  'favicon-32x32.png': 'image/png',
};

/** The /docs page: Swagger UI reading /openapi.json. */
const DOCS_PAGE = `<!doctype html>
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

/** Swagger UI at /docs: the page, and the files of the swagger-ui-dist package it loads, each read once. */
export class SwaggerUi implements ApiDocs {
  readonly #page: StaticBody = { data: DOCS_PAGE, mediaType: 'text/html', etag: strongEtag(DOCS_PAGE) };
  readonly #assets = new Map<DocAssetName, StaticBody>();
  readonly #dir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

  page(): StaticBody {
    return this.#page;
  }

  asset(name: DocAssetName): StaticBody {
    let asset = this.#assets.get(name);
    if (asset === undefined) {
      const data = fs.readFileSync(path.join(this.#dir, name));
      asset = { data, mediaType: DOC_ASSETS[name], etag: strongEtag(data) };
      this.#assets.set(name, asset);
    }
    return asset;
  }
}
