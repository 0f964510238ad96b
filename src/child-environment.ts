/** What every child process may see of the server's environment: enough to run, none of its secrets. */
const BASE_VARIABLES = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'SYSTEMROOT'] as const;

/**
 * The environment for a child process: the variables of BASE_VARIABLES and `extra` that are set, nothing else
 * (API keys, tokens and database URLs never reach a child).
 */
export function childEnvironment(extra: readonly string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of [...BASE_VARIABLES, ...extra]) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  return env;
}
