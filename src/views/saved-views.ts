import { randomUUID } from 'node:crypto';
import type { DataSource, QueryDeepPartialEntity } from 'typeorm';
import type { components } from '../../generated/openapi.js';
import { SavedViewRow } from '../appdb/saved-view.entity.js';
import { readUnit, writeUnit, type LockKey } from '../appdb/unit-of-work.js';
import { invalidRequest } from '../http/errors.js';

/** Writes to one view wait for each other (see unit-of-work.ts). */
const lockOf = (viewId: string): LockKey => `view:${viewId}`;

/** A saved view as the API returns it. */
export type ApiSavedView = components['schemas']['SavedView'];

/** Largest `params` object a view stores, as JSON. */
export const VIEW_PARAMS_LIMIT_BYTES = 64 * 1024;

/** A saved view row as the API returns it. */
export function toApiView(row: SavedViewRow): ApiSavedView {
  return {
    view_id: row.viewId,
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

/** The tenant's views (of one entity when given), most recently changed first. */
export function listViews(dataSource: DataSource, tenantId: string, entity?: string): Promise<ApiSavedView[]> {
  return readUnit(dataSource, async (m) => {
    const rows = await m.find(SavedViewRow, {
      where: entity === undefined ? { tenantId } : { tenantId, entity },
      order: { updatedAt: 'DESC', createdAt: 'DESC', viewId: 'ASC' },
    });
    return rows.map(toApiView);
  });
}

/** Stores a new view; 400 when `params` is beyond the size limit. */
export function createView(
  dataSource: DataSource,
  tenantId: string,
  view: { entity: string; name: string; params: Record<string, unknown>; author?: string | undefined },
): Promise<ApiSavedView> {
  assertParamsSize(view.params);
  const viewId = randomUUID();
  return writeUnit(dataSource, lockOf(viewId), async (m) => {
    const stamp = new Date().toISOString();
    const row = m.create(SavedViewRow, {
      viewId,
      tenantId,
      entity: view.entity,
      name: view.name,
      params: view.params,
      author: view.author ?? null,
      createdAt: stamp,
      updatedAt: stamp,
    });
    // `params` is typed Record<string, unknown>, which TypeORM's deep-partial type does not accept as is
    await m.insert(SavedViewRow, row as QueryDeepPartialEntity<SavedViewRow>);
    return toApiView(row);
  });
}

/** Replaces name and/or params; false when the tenant has no such view. */
export function updateView(
  dataSource: DataSource,
  tenantId: string,
  change: { viewId: string; name?: string | undefined; params?: Record<string, unknown> | undefined },
): Promise<boolean> {
  if (change.params !== undefined) assertParamsSize(change.params);
  return writeUnit(dataSource, lockOf(change.viewId), async (m) => {
    const exists = await m.existsBy(SavedViewRow, { viewId: change.viewId, tenantId });
    if (!exists) return false;
    if (change.name === undefined && change.params === undefined) return true;
    const values: QueryDeepPartialEntity<SavedViewRow> = { updatedAt: new Date().toISOString() };
    if (change.name !== undefined) values.name = change.name;
    if (change.params !== undefined) values.params = change.params as QueryDeepPartialEntity<Record<string, unknown>>;
    await m.update(SavedViewRow, { viewId: change.viewId, tenantId }, values);
    return true;
  });
}

/** Deletes a view; false when the tenant has no such view. */
export function deleteView(dataSource: DataSource, tenantId: string, viewId: string): Promise<boolean> {
  return writeUnit(dataSource, lockOf(viewId), async (m) => {
    const result = await m.delete(SavedViewRow, { viewId, tenantId });
    return (result.affected ?? 0) > 0;
  });
}
