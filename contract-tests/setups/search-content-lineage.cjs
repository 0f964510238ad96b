// Setups for the Search (search mode), Content and Lineage operations.
const fs = require('node:fs');
const path = require('node:path');

const NO_LOGO_TENANT = 'west.rehaklinik'; // no logo in its file, no file in LOGO_DIR
// The demo has no JPEG or WebP logo: these are written to LOGO_DIR for the slug of NO_LOGO_TENANT for one
// transaction (ost.rehaklinik shares the slug but has a database logo, which wins), then removed again.
const TINY_JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEAYABgAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AKp//2Q==',
  'base64',
);
const TINY_WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');

const contentTypeOf = (transaction) => (transaction.expected.headers['Content-Type'] || '').split(';')[0].trim();

function logoFile(tools, extension, bytes) {
  if (!tools.local(`needs a ${extension} logo written to the server's LOGO_DIR (the demo has none)`)) return;
  const file = path.join(tools.dataDir, 'logos', `rehaklinik.${extension}`);
  fs.writeFileSync(file, bytes);
  tools.after(() => fs.rmSync(file, { force: true }));
  tools.setTenant(NO_LOGO_TENANT);
}

module.exports = {
  getJumpbar: {
    // search needs the tenant's database (for its index), which does not open
    503: (transaction, tools) => {
      tools.setQuery('mode', 'search');
      tools.brokenTenant();
    },
  },
  getTenantLogo: {
    // one transaction per declared image type: ask for a logo that really has it
    200: (transaction, tools) => {
      const type = contentTypeOf(transaction);
      if (type === 'image/png') return tools.setTenant('kantonsspital'); // PNG in the database
      if (type === 'image/svg+xml') return tools.setTenant('ost.rehaklinik'); // SVG in the database
      if (type === 'image/jpeg') return logoFile(tools, 'jpg', TINY_JPEG);
      if (type === 'image/webp') return logoFile(tools, 'webp', TINY_WEBP);
      return tools.skip(`no logo of type ${type}`);
    },
    404: (transaction, tools) => tools.setTenant(NO_LOGO_TENANT),
    503: (transaction, tools) => tools.brokenTenant(),
  },
  getPipelineArtifact: {
    // the graph_html URL is getPipelineGraphHtml's path, matched first: it answers as getPipelineArtifact declares
    200: (transaction, tools) => tools.setLastSegment(contentTypeOf(transaction) === 'text/html' ? 'graph_html' : 'graph_json'),
    503: (transaction, tools) => tools.brokenTenant(),
  },
  getPipelineGraphHtml: {
    503: (transaction, tools) => tools.brokenTenant(),
  },
  getReport: {
    206: (transaction) => {
      transaction.request.headers.Range = 'bytes=0-99';
    },
    400: (transaction, tools) => tools.setLastSegment('Monthly-Report'),
    404: (transaction, tools) => tools.setLastSegment('no_such_report'),
    416: (transaction) => {
      transaction.request.headers.Range = 'bytes=999999999-';
    },
    503: (transaction, tools) => tools.brokenTenant(),
  },
  explainEntity: {
    503: (transaction, tools) => tools.brokenTenant(),
  },
  explainFinding: {
    404: (transaction, tools) => tools.setLastSegment('F-999999'),
    503: (transaction, tools) => tools.brokenTenant(),
  },
};
