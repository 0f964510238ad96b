import { randomUUID } from 'node:crypto';
import type { QueryDeepPartialEntity } from 'typeorm';
import { listTag, rowTag } from '../common/entity-tags.js';
import { SavedViewRow } from '../appdb/saved-view.entity.js';
import type { AppDbManager } from '../appdb/unit-of-work.js';
import { assertPrecondition, type Precondition } from '../common/entity-tags.js';
import { invalidRequest } from '../common/problems.js';
import { nextRevision, type DocumentRef, type DocumentWrites } from '../collaboration/documents.js';
import type { Missing } from '../common/missing.js';
import type { ApiSavedView, SavedViews } from '../ports/collaboration.js';

const viewOf = (viewId: string): DocumentRef => ({ kind: 'view', id: viewId });

/** Largest `params` object a view stores, as JSON. */
export const VIEW_PARAMS_LIMIT_BYTES = 64 * 1024;

/** A view's entity tag (it changes with every write of the view). */
export const viewTag = (row: SavedViewRow): string => rowTag('view', row.viewId, row);

/** A saved view row as the API returns it, with its tag when `withTag` (only callers who ask get it: see `SavedView.etag`). */
export function toApiView(row: SavedViewRow, withTag = false): ApiSavedView {
  return {
    view_id: row.viewId,
    ...(withTag ? { etag: viewTag(row) } : {}),
    tenant_id: row.tenantId,
    entity: row.entity,
    name: row.name,
    params: row.params,
    author: row.author,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

function assertParamsSize(params: Record<string, unknown>): void {
  const size = Buffer.byteLength(JSON.stringify(params));
  if (size > VIEW_PARAMS_LIMIT_BYTES) {
    throw invalidRequest([{ in: 'body', name: 'params', message: `is ${size} bytes as JSON; at most ${VIEW_PARAMS_LIMIT_BYTES} are allowed` }]);
  }
}

/** The view for a write, with `If-Match` checked against it (412 when it does not hold, also when there is no view). */
async function viewForWrite(m: AppDbManager, tenantId: string, viewId: string, precondition: Precondition | undefined): Promise<SavedViewRow | null> {
  const row = await m.findOneBy(SavedViewRow, { viewId, tenantId });
  assertPrecondition(precondition, `view ${viewId}`, row === null ? null : viewTag(row));
  return row;
}

/** The tenants' saved views on the app database. */
export class AppDbSavedViews implements SavedViews {
  constructor(private readonly documents: DocumentWrites) {}

  /** The tenant's views (of one entity when given), most recently changed first, each with its tag when `withTags`, and the list's tag. */
  list(tenantId: string, entity?: string, withTags = false): Promise<{ etag: string; views: ApiSavedView[] }> {
    return this.documents.read(async (m) => {
      const rows = await m.find(SavedViewRow, {
        where: entity === undefined ? { tenantId } : { tenantId, entity },
        order: { updatedAt: 'DESC', createdAt: 'DESC', viewId: 'ASC' },
      });
      const views = rows.map((row) => toApiView(row, withTags));
      // the two representations (with and without tags) are tagged apart
      return { etag: listTag(['views', tenantId, entity ?? '', withTags ? 'etags' : ''], rows.map(viewTag)), views };
    });
  }

  /** Stores a new view: the view and its tag; 400 when `params` is beyond the size limit. */
  create(tenantId: string, view: { entity: string; name: string; params: Record<string, unknown>; author?: string | undefined }): Promise<{ view: ApiSavedView; etag: string }> {
    assertParamsSize(view.params);
    const viewId = randomUUID();
    return this.documents.write(viewOf(viewId), async (m, now) => {
      const stamp = now.toISOString();
      const row = m.create(SavedViewRow, {
        viewId,
        tenantId,
        entity: view.entity,
        name: view.name,
        params: view.params,
        author: view.author ?? null,
        createdAt: stamp,
        updatedAt: stamp,
        revision: 1,
      });
      // `params` is typed Record<string, unknown>, which TypeORM's deep-partial type does not accept as is
      await m.insert(SavedViewRow, row as QueryDeepPartialEntity<SavedViewRow>);
      return { view: toApiView(row), etag: viewTag(row) };
    });
  }

  /**
   * Replaces name and/or params: the view's tag after it (unchanged when neither is given), or missing. `precondition` (If-Match) is checked first, under the view's lock: 412 when it does not hold.
   */
  update(
    tenantId: string,
    change: { viewId: string; name?: string | undefined; params?: Record<string, unknown> | undefined },
    precondition?: Precondition,
  ): Promise<string | Missing<'view'>> {
    if (change.params !== undefined) assertParamsSize(change.params);
    return this.documents.write(viewOf(change.viewId), async (m, now) => {
      const row = await viewForWrite(m, tenantId, change.viewId, precondition);
      if (row === null) return { missing: 'view' };
      if (change.name === undefined && change.params === undefined) return viewTag(row);
      const values: QueryDeepPartialEntity<SavedViewRow> = nextRevision(row, now);
      if (change.name !== undefined) values.name = change.name;
      if (change.params !== undefined) values.params = change.params as QueryDeepPartialEntity<Record<string, unknown>>;
      await m.update(SavedViewRow, { viewId: change.viewId, tenantId }, values);
      return viewTag(row);
    });
  }

  /** Deletes a view; nothing, or missing. `precondition` (If-Match) as for update. */
  delete(tenantId: string, viewId: string, precondition?: Precondition): Promise<Missing<'view'> | undefined> {
    return this.documents.write(viewOf(viewId), async (m) => {
      if (precondition !== undefined && (await viewForWrite(m, tenantId, viewId, precondition)) === null) return { missing: 'view' };
      const result = await m.delete(SavedViewRow, { viewId, tenantId });
      return (result.affected ?? 0) > 0 ? undefined : { missing: 'view' };
    });
  }
}
