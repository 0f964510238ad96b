import type Koa from 'koa';
import { CODING_SUFFIXES } from '../common/entity-tags.js';
import type { ChangeEventData, ChangeEventName, ChangeEvents } from '../ports/events.js';
import type { RequestRecord } from './request-record.js';

type Change = { name: Exclude<ChangeEventName, 'reload'>; resource: ChangeEventData['resource']; id: string | undefined; noteId?: string | undefined };
type Ids = Readonly<Record<string, string>>;

/**
 * The event each write of the notebook, the notes and the saved views publishes, from the IDs its request named
 * (`ids`) and the IDs it created (`test/unit/change-events.test.ts` holds it to the contract's writes of those tags).
 */
export const CHANGES: Readonly<Record<string, (ids: Ids, created: Ids) => Change>> = {
  addNotebookCell: (_ids, created) => ({ name: 'notebook-cell-added', resource: 'notebook-cell', id: created['cell_id'] }),
  updateNotebookCell: (ids) => ({ name: 'notebook-cell-changed', resource: 'notebook-cell', id: ids['cell_id'] }),
  deleteNotebookCell: (ids) => ({ name: 'notebook-cell-deleted', resource: 'notebook-cell', id: ids['cell_id'] }),
  addDiscussionReply: (ids) => ({ name: 'discussion-reply-added', resource: 'discussion-reply', id: ids['cell_id'] }),
  createNote: (_ids, created) => ({ name: 'note-created', resource: 'note', id: created['note_id'] }),
  updateNote: (ids) =>
    ids['cell_id'] === undefined
      ? { name: 'note-changed', resource: 'note', id: ids['note_id'] }
      : { name: 'note-cell-changed', resource: 'note-cell', id: ids['cell_id'], noteId: ids['note_id'] },
  deleteNote: (ids) =>
    ids['cell_id'] === undefined
      ? { name: 'note-deleted', resource: 'note', id: ids['note_id'] }
      : { name: 'note-cell-deleted', resource: 'note-cell', id: ids['cell_id'], noteId: ids['note_id'] },
  addToNote: (ids, created) =>
    created['cell_id'] === undefined
      ? { name: 'note-reply-added', resource: 'note-cell', id: ids['cell_id'], noteId: ids['note_id'] }
      : { name: 'note-cell-added', resource: 'note-cell', id: created['cell_id'], noteId: ids['note_id'] },
  createView: (_ids, created) => ({ name: 'view-created', resource: 'view', id: created['view_id'] }),
  updateView: (ids) => ({ name: 'view-changed', resource: 'view', id: ids['view_id'] }),
  deleteView: (ids) => ({ name: 'view-deleted', resource: 'view', id: ids['view_id'] }),
};

/** The answer of a write that found nothing to change (`ok: false`, as the edge wrote it: answer.ts). */
const NOTHING_CHANGED = '{"ok":false}';

/**
 * A step at the end of the request's pass (request-pass.ts), beside the audit line: a write of the notebook, a note
 * or a saved view that was answered 2xx and changed something publishes its event, with the IDs it named and
 * created, the entity tag it answered (as the identity representation's, whatever the coding), who and when.
 */
export function changePublisher(events: ChangeEvents, now: () => number): (ctx: Koa.Context, record: RequestRecord) => void {
  return (ctx, record) => {
    const operation = record.operation;
    if (operation === null || ctx.status < 200 || ctx.status > 299) return;
    const changeOf = CHANGES[operation.operationId];
    const tenantId = record.tenants?.resolved[0];
    if (changeOf === undefined || tenantId === undefined || ctx.body === NOTHING_CHANGED) return;
    const change = changeOf(record.named.ids, record.createdIds);
    if (change.id === undefined) return;
    const caller = record.caller;
    const etag = ctx.res.getHeader('etag');
    events.publish(change.name, {
      tenant_id: tenantId,
      resource: change.resource,
      id: change.id,
      note_id: change.noteId ?? null,
      etag: typeof etag === 'string' ? identityTag(etag, String(ctx.res.getHeader('content-encoding') ?? '')) : null,
      by: caller === null || caller.sub === null ? null : { sub: caller.sub, name: caller.name, email: caller.email },
      at: new Date(now()).toISOString(),
    });
  };
}

/** The tag of the identity representation, when compression marked the answer's with its coding (`"abc-gzip"` → `"abc"`). */
function identityTag(etag: string, coding: string): string {
  const suffix = CODING_SUFFIXES[coding as keyof typeof CODING_SUFFIXES];
  return suffix !== undefined && etag.endsWith(`${suffix}"`) ? `${etag.slice(0, -suffix.length - 1)}"` : etag;
}
