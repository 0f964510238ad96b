import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A note of a tenant; its cells are rows of `cells` with owner_kind `note`. */
@Entity({ name: 'notes' })
@Index('IDX_notes_tenant_updated', ['tenantId', 'updatedAt'])
export class NoteRow {
  @PrimaryColumn({ name: 'note_id', type: 'varchar', length: 36 })
  noteId!: string;

  @Column({ name: 'tenant_id', type: 'varchar' })
  tenantId!: string;

  @Column({ name: 'title', type: 'varchar' })
  title!: string;

  @Column({ name: 'tags', type: 'simple-json' })
  tags!: string[];

  /** Git `user.name` of the creator; null when unset. */
  @Column({ name: 'author', type: 'varchar', nullable: true })
  author!: string | null;

  @Column({ name: 'created_at', type: 'varchar' })
  createdAt!: string;

  @Column({ name: 'updated_at', type: 'varchar' })
  updatedAt!: string;

  /** Raised by one with every write; the entity tag is derived from it (entity-tags.ts). */
  @Column({ name: 'revision', type: 'integer', default: 1 })
  revision!: number;
}
