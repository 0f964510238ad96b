import { stopSharedPostgres } from './postgres.js';

/**
 * Mocha root hooks, loaded by .mocharc.json (`require`): what the test files share is stopped once every file has
 * run, so that the run ends by itself.
 */
export const mochaHooks = {
  async afterAll(this: Mocha.Context): Promise<void> {
    // a fast shutdown, then the removal of the data of every database the run created (thousands of files)
    this.timeout(120_000);
    await stopSharedPostgres();
  },
};
