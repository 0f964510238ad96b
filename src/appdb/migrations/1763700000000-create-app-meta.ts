import type { MigrationInterface, QueryRunner } from 'typeorm';

/** First migration: a key/value table recording facts about the app database itself. */
export class CreateAppMeta1763700000000 implements MigrationInterface {
  name = 'CreateAppMeta1763700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE TABLE IF NOT EXISTS "app_meta" ("key" varchar PRIMARY KEY NOT NULL, "value" text NOT NULL)');
    // the time is written as a literal: SQLite and PostgreSQL have no common function for it
    await runner.query(`INSERT INTO "app_meta" ("key", "value") VALUES ('created_at', '${new Date().toISOString().slice(0, 19)}Z')`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE "app_meta"');
  }
}
