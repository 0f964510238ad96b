import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Saved views, notebooks, notes and their cells. The same SQL for SQLite and PostgreSQL. IF NOT EXISTS: two
 * processes starting together over a new SQLite file may both run it; the second then finds the tables made
 * (PostgreSQL instances take turns: see migrate() in app-database.ts).
 */
export class CreateCollaboration1763800000000 implements MigrationInterface {
  name = 'CreateCollaboration1763800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'CREATE TABLE IF NOT EXISTS "saved_views" ("view_id" varchar(36) PRIMARY KEY NOT NULL, "tenant_id" varchar NOT NULL, "entity" varchar NOT NULL, ' +
        '"name" varchar NOT NULL, "params" text NOT NULL, "author" varchar, "created_at" varchar NOT NULL, "updated_at" varchar NOT NULL)',
    );
    await runner.query('CREATE INDEX IF NOT EXISTS "IDX_saved_views_tenant_entity" ON "saved_views" ("tenant_id", "entity")');
    await runner.query('CREATE TABLE IF NOT EXISTS "notebooks" ("tenant_id" varchar PRIMARY KEY NOT NULL, "created_at" varchar NOT NULL, "updated_at" varchar NOT NULL)');
    await runner.query(
      'CREATE TABLE IF NOT EXISTS "notes" ("note_id" varchar(36) PRIMARY KEY NOT NULL, "tenant_id" varchar NOT NULL, "title" varchar NOT NULL, ' +
        '"tags" text NOT NULL, "author" varchar, "created_at" varchar NOT NULL, "updated_at" varchar NOT NULL)',
    );
    await runner.query('CREATE INDEX IF NOT EXISTS "IDX_notes_tenant_updated" ON "notes" ("tenant_id", "updated_at")');
    await runner.query(
      'CREATE TABLE IF NOT EXISTS "cells" ("cell_id" varchar(36) PRIMARY KEY NOT NULL, "owner_kind" varchar NOT NULL, "owner_id" varchar NOT NULL, ' +
        '"position" integer NOT NULL, "type" varchar NOT NULL, "author" varchar, "content" text NOT NULL, "created_at" varchar NOT NULL, ' +
        '"updated_at" varchar NOT NULL, CONSTRAINT "UQ_cells_owner_position" UNIQUE ("owner_kind", "owner_id", "position"), ' +
        `CONSTRAINT "CHK_cells_owner_kind" CHECK ("owner_kind" IN ('notebook', 'note')))`,
    );
    await runner.query('CREATE INDEX IF NOT EXISTS "IDX_cells_owner" ON "cells" ("owner_kind", "owner_id")');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE "cells"');
    await runner.query('DROP TABLE "notes"');
    await runner.query('DROP TABLE "notebooks"');
    await runner.query('DROP TABLE "saved_views"');
  }
}
