import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';

/** Who holds a cell: the tenant's notebook (owner_id = tenant ID) or a note (owner_id = note ID). */
export type CellOwnerKind = 'notebook' | 'note';

/**
 * One cell of a notebook or a note. Cells are rows (not one JSON array per notebook): an append is one INSERT
 * at `position` max + 1 inside a write transaction, and the notebook's `cells` JSON string is built on read.
 */
@Entity({ name: 'cells' })
@Unique('UQ_cells_owner_position', ['ownerKind', 'ownerId', 'position'])
@Index('IDX_cells_owner', ['ownerKind', 'ownerId'])
export class CellRow {
  @PrimaryColumn({ name: 'cell_id', type: 'varchar', length: 36 })
  cellId!: string;

  @Column({ name: 'owner_kind', type: 'varchar' })
  ownerKind!: CellOwnerKind;

  @Column({ name: 'owner_id', type: 'varchar' })
  ownerId!: string;

  /** Display order within the owner; gaps after deletions are fine. */
  @Column({ name: 'position', type: 'integer' })
  position!: number;

  @Column({ name: 'type', type: 'varchar' })
  type!: string;

  @Column({ name: 'author', type: 'varchar', nullable: true })
  author!: string | null;

  /** Every member of the cell except id, type, author, created_at and updated_at (replies of a discussion included). */
  @Column({ name: 'content', type: 'simple-json' })
  content!: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'varchar' })
  createdAt!: string;

  @Column({ name: 'updated_at', type: 'varchar' })
  updatedAt!: string;
}
