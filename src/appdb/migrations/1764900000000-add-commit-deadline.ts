import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Every table a unit of work writes. */
const TABLES = ['notebooks', 'notes', 'saved_views', 'cells'] as const;

/** The SQLSTATE a write past its commit deadline fails with (a class of its own: no PostgreSQL code uses `AD`). */
export const COMMIT_DEADLINE_SQLSTATE = 'AD001';
/** The transaction-local setting a write unit puts its commit deadline in: epoch milliseconds on the database's clock. */
export const COMMIT_DEADLINE_SETTING = 'ads.commit_by';

/**
 * PostgreSQL: a write of the server never commits after its deadline. A deferred constraint trigger on every table
 * a unit writes runs at COMMIT and fails the transaction when the database's clock is past the deadline the unit
 * set (`ads.commit_by`); a transaction without one (ads-appdb copy, an operator's psql) is not checked. So a COMMIT
 * that waited in a frozen database until after the server answered 503 is rolled back when the database resumes
 * (docs/deployment.md). SQLite runs in the server's process and needs none.
 */
export class AddCommitDeadline1764900000000 implements MigrationInterface {
  name = 'AddCommitDeadline1764900000000';

  async up(runner: QueryRunner): Promise<void> {
    if (runner.connection.options.type !== 'postgres') return;
    await runner.query(`
      CREATE OR REPLACE FUNCTION ads_commit_deadline() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        commit_by text := current_setting('${COMMIT_DEADLINE_SETTING}', true);
      BEGIN
        IF commit_by IS NOT NULL AND commit_by <> '' AND extract(epoch FROM clock_timestamp()) * 1000 > commit_by::numeric THEN
          RAISE EXCEPTION 'the commit deadline of this write has passed' USING ERRCODE = '${COMMIT_DEADLINE_SQLSTATE}';
        END IF;
        RETURN NULL;
      END $$`);
    for (const table of TABLES) {
      await runner.query(`DROP TRIGGER IF EXISTS ads_commit_deadline ON "${table}"`);
      await runner.query(
        `CREATE CONSTRAINT TRIGGER ads_commit_deadline AFTER INSERT OR UPDATE OR DELETE ON "${table}" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ads_commit_deadline()`,
      );
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    if (runner.connection.options.type !== 'postgres') return;
    for (const table of TABLES) await runner.query(`DROP TRIGGER IF EXISTS ads_commit_deadline ON "${table}"`);
    await runner.query('DROP FUNCTION IF EXISTS ads_commit_deadline()');
  }
}
