import fs from 'node:fs';
import { maskedText, maskedUrl, urlSecrets } from '../../common/secrets.js';
import { ConfigError, parseAppDbUrl, type AppDbConfig } from '../../config.js';
import type { CopyConnection } from './connection.js';
import { CopyRefusal, oneLine } from './failures.js';
import { openPostgresCopyConnection } from './postgres-connection.js';
import { openSqliteCopyConnection } from './sqlite-connection.js';

/** One end of a copy: an app database named by a URL the server's APP_DB_URL accepts. */
export interface AppDbEndpoint {
  readonly role: 'source' | 'target';
  readonly config: AppDbConfig;
  /** As the command prints it: `sqlite:<absolute path>`, or the URL with its secrets masked (maskedUrl). */
  readonly shown: string;
  /** The URL's password and credential parameters (as written, encoded and decoded), masked in every message the command prints. */
  readonly secrets: readonly string[];
}

/** `raw` (the value of `option`) read as the server reads APP_DB_URL; a CopyRefusal naming the option when it is not one. */
export function appDbEndpoint(role: 'source' | 'target', option: string, raw: string, cwd: string = process.cwd()): AppDbEndpoint {
  let config: AppDbConfig;
  try {
    config = parseAppDbUrl(option, raw, cwd);
  } catch (err) {
    if (err instanceof ConfigError) throw new CopyRefusal(err.problems.join('; '));
    throw err;
  }
  if (config.kind === 'sqlite') return { role, config, shown: `sqlite:${config.path}`, secrets: [] };
  return { role, config, shown: maskedUrl(config.url), secrets: urlSecrets(config.url) };
}

/** The endpoint's error as one line naming it, with its secrets and any URL in it masked. */
export function endpointProblem(endpoint: AppDbEndpoint, what: string, err: unknown): string {
  return `${what} the ${endpoint.role} ${endpoint.shown}: ${maskedText(oneLine(err), endpoint.secrets)}`;
}

/**
 * A connection to look at an endpoint (a SQLite file that exists; read-only for a source, and for a target before
 * the copy writes it: target-writer.ts opens that). A CopyRefusal when the database cannot be reached or opened.
 */
export async function connectTo(endpoint: AppDbEndpoint, options: { readonly: boolean }): Promise<CopyConnection> {
  const { config } = endpoint;
  try {
    if (config.kind === 'sqlite') {
      if (!fs.existsSync(config.path)) throw new Error('no such file');
      if (!fs.statSync(config.path).isFile()) throw new Error('not a file');
      return openSqliteCopyConnection(config.path, options);
    }
    return await openPostgresCopyConnection(config.url, 'ads-appdb copy');
  } catch (err) {
    throw new CopyRefusal(endpointProblem(endpoint, 'cannot open', err));
  }
}
