import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The one notebook of a tenant; its cells are rows of `cells` with owner_kind `notebook`. */
@Entity({ name: 'notebooks' })
export class NotebookRow {
  /** Canonical composite tenant ID: `kantonsspital` and `ost.kantonsspital` reach the same notebook. */
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar' })
  tenantId!: string;

  @Column({ name: 'created_at', type: 'varchar' })
  createdAt!: string;

  /** Last time a cell was added, changed or removed. */
  @Column({ name: 'updated_at', type: 'varchar' })
  updatedAt!: string;

  /** Raised by one with every write; the entity tag is derived from it (entity-tags.ts). */
  @Column({ name: 'revision', type: 'integer', default: 1 })
  revision!: number;
}
