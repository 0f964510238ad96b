import type Database from 'better-sqlite3';
import { hasTable } from '../search/kls-schema.js';
import { strongEtag } from '../common/entity-tags.js';

import type { ArtifactKey, ArtifactMiss, PipelineArtifact } from '../ports/tenant-reads.js';

/**
 * Content-Security-Policy per artifact. The HTML graph runs sandboxed in an opaque origin: inline scripts and
 * styles may run (interactive graphs), nothing may be fetched, no cookie or storage of this origin is
 * reachable. JSON gets the strictest policy (a browser opening it directly runs nothing).
 */
export const ARTIFACT_CSP: Readonly<Record<ArtifactKey, string>> = {
  graph_html: "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; sandbox allow-scripts",
  graph_json: "default-src 'none'; sandbox",
};

/** Reads `pipeline_artifacts.content` for `key`; graph_json must hold a JSON object. */
export function readPipelineArtifact(db: Database.Database, key: ArtifactKey): PipelineArtifact | ArtifactMiss {
  if (!hasTable(db, 'pipeline_artifacts')) return { missing: 'absent' };
  const row = db.prepare('SELECT content FROM pipeline_artifacts WHERE artifact_key = ?').get(key) as { content: unknown } | undefined;
  const content = Buffer.isBuffer(row?.content) ? row.content.toString('utf8') : row?.content;
  if (typeof content !== 'string') return { missing: 'absent' };
  if (key === 'graph_html') return { key, html: content, etag: strongEtag(content), securityPolicy: ARTIFACT_CSP.graph_html };
  let graph: unknown;
  try {
    graph = JSON.parse(content);
  } catch {
    return { missing: 'not-a-json-object' };
  }
  if (graph === null || typeof graph !== 'object' || Array.isArray(graph)) return { missing: 'not-a-json-object' };
  return { key, graph: graph as Record<string, unknown>, etag: strongEtag(content), securityPolicy: ARTIFACT_CSP.graph_json };
}
