import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The sequence that gives every change event of every instance its place (src/events/event-channel.ts). */
export const CHANGE_EVENT_SEQUENCE = 'analytics_desk_change_event_seq';

/**
 * PostgreSQL: the sequence the change events take their `seq` from (docs/live-updates.md). Made here, with the
 * tables, so that a server whose role may not create anything (after an operator ran the migrations) still sends
 * events. SQLite needs none: one instance counts its events in its own process.
 */
export class AddChangeEventSequence1765100000000 implements MigrationInterface {
  name = 'AddChangeEventSequence1765100000000';

  async up(runner: QueryRunner): Promise<void> {
    if (runner.connection.options.type !== 'postgres') return;
    // IF NOT EXISTS: servers of the previous build made it themselves at start
    await runner.query(`CREATE SEQUENCE IF NOT EXISTS "${CHANGE_EVENT_SEQUENCE}"`);
  }

  async down(runner: QueryRunner): Promise<void> {
    if (runner.connection.options.type !== 'postgres') return;
    await runner.query(`DROP SEQUENCE IF EXISTS "${CHANGE_EVENT_SEQUENCE}"`);
  }
}
