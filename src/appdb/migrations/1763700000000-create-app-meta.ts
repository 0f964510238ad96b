import type { MigrationInterface, QueryRunner } from 'typeorm';

/** First migration: a key/value table recording facts about the app database itself. */
export class CreateAppMeta1763700000000 implements MigrationInterface {
  name = 'CreateAppMeta1763700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE TABLE "app_meta" ("key" varchar PRIMARY KEY NOT NULL, "value" text NOT NULL)');
    await runner.query(`INSERT INTO "app_meta" ("key", "value") VALUES ('created_at', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE "app_meta"');
  }
}
