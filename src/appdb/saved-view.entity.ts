import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A saved view of a dimension table (the contract's `SavedView`); `params` is stored as JSON text. */
@Entity({ name: 'saved_views' })
@Index('IDX_saved_views_tenant_entity', ['tenantId', 'entity'])
export class SavedViewRow {
  @PrimaryColumn({ name: 'view_id', type: 'varchar', length: 36 })
  viewId!: string;

  /** Canonical composite tenant ID (`ost.kantonsspital`). */
  @Column({ name: 'tenant_id', type: 'varchar' })
  tenantId!: string;

  @Column({ name: 'entity', type: 'varchar' })
  entity!: string;

  @Column({ name: 'name', type: 'varchar' })
  name!: string;

  @Column({ name: 'params', type: 'simple-json' })
  params!: Record<string, unknown>;

  @Column({ name: 'author', type: 'varchar', nullable: true })
  author!: string | null;

  /** ISO 8601 UTC with milliseconds; text sorts in time order. */
  @Column({ name: 'created_at', type: 'varchar' })
  createdAt!: string;

  @Column({ name: 'updated_at', type: 'varchar' })
  updatedAt!: string;

  /** Raised by one with every write; the entity tag is derived from it (entity-tags.ts). */
  @Column({ name: 'revision', type: 'integer', default: 1 })
  revision!: number;
}
