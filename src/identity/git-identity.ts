import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { childEnvironment } from '../child-environment.js';

/** `git config user.name` / `user.email`; null when unset or git is missing. */
export interface GitIdentity {
  name: string | null;
  email: string | null;
}

const GIT_TIMEOUT_MS = 3000;
/** What git needs besides the base variables to find the configuration it reads (never a secret). */
const GIT_VARIABLES = ['XDG_CONFIG_HOME', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_CONFIG_NOSYSTEM'];

function gitConfig(args: readonly string[], cwd: string): Promise<string | null> {
  return new Promise((resolve) => {
    // execFile with an argument array: no shell, nothing from a request is ever parsed as a command; the
    // environment holds no secret of the server.
    execFile('git', [...args], { cwd, timeout: GIT_TIMEOUT_MS, windowsHide: true, env: childEnvironment(GIT_VARIABLES) }, (err, stdout) => {
      const value = String(stdout ?? '').trim();
      resolve(err || value === '' ? null : value);
    });
  });
}

/**
 * Reads the git identity: from `<workspacesDir>/<tenant dir>` when that work tree exists (its config wins),
 * else from the global configuration (honouring GIT_CONFIG_GLOBAL), never from the server's working directory.
 */
export async function readGitIdentity(workspacesDir: string | null, tenantDirNames: readonly string[], fallbackCwd: string): Promise<GitIdentity> {
  if (workspacesDir !== null) {
    for (const name of tenantDirNames) {
      const workTree = path.join(workspacesDir, name);
      if (fs.existsSync(path.join(workTree, '.git'))) {
        const [n, e] = await Promise.all([gitConfig(['config', '--get', 'user.name'], workTree), gitConfig(['config', '--get', 'user.email'], workTree)]);
        return { name: n, email: e };
      }
    }
  }
  const [n, e] = await Promise.all([
    gitConfig(['config', '--global', '--get', 'user.name'], fallbackCwd),
    gitConfig(['config', '--global', '--get', 'user.email'], fallbackCwd),
  ]);
  return { name: n, email: e };
}
