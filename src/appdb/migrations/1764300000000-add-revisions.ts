import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLES = ['notebooks', 'notes', 'saved_views'] as const;

/**
 * A `revision` per notebook, note and saved view, raised by every write of it: their entity tags are derived from
 * it (src/appdb/entity-tags.ts), so every instance on one database tags the same state alike. Existing rows start
 * at 1. Two processes starting together over a new SQLite file may both run it; a column already there is left.
 */
export class AddRevisions1764300000000 implements MigrationInterface {
  name = 'AddRevisions1764300000000';

  async up(runner: QueryRunner): Promise<void> {
    for (const table of TABLES) {
      if (runner.connection.options.type === 'postgres') {
        await runner.query(`ALTER TABLE "${table}" ADD COLUMN IF NOT EXISTS "revision" integer NOT NULL DEFAULT 1`);
        continue;
      }
      const columns = (await runner.query(`PRAGMA table_info("${table}")`)) as { name: string }[];
      if (!columns.some((c) => c.name === 'revision')) await runner.query(`ALTER TABLE "${table}" ADD COLUMN "revision" integer NOT NULL DEFAULT 1`);
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of TABLES) await runner.query(`ALTER TABLE "${table}" DROP COLUMN "revision"`);
  }
}
