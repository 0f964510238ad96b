import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('signal tool configuration', () => {
  it('reads SIGNAL_*_CMD as a JSON argument vector or one executable path, never splitting on spaces', () => {
    const config = loadConfig({ SIGNAL_CHECKER_CMD: '["/usr/bin/node", "/opt/my checker.js", "--strict"]', SIGNAL_COMPILER_CMD: '/opt/my compiler' });
    expect(config.signalCheckerCmd).to.deep.equal(['/usr/bin/node', '/opt/my checker.js', '--strict']);
    expect(config.signalCompilerCmd).to.deep.equal(['/opt/my compiler']);
    expect(loadConfig({}).signalCheckerCmd).to.equal(null);
    expect(loadConfig({}).signalToolTimeoutMs).to.equal(10000);
  });

  it('refuses malformed commands and time limits, naming the variable', () => {
    for (const env of [{ SIGNAL_CHECKER_CMD: '[]' }, { SIGNAL_CHECKER_CMD: '["a", 1]' }, { SIGNAL_COMPILER_CMD: '[not json' }, { SIGNAL_TOOL_TIMEOUT_MS: '5' }]) {
      const name = Object.keys(env)[0] as string;
      expect(() => loadConfig(env), name).to.throw(ConfigError, new RegExp(name));
    }
  });
});
