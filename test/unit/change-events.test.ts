import { expect } from 'chai';
import fs from 'node:fs';
import YAML from 'yaml';
import { CHANGES } from '../../src/http/change-events.js';
import { EventLog, eventIdOf, seqOf } from '../../src/events/event-log.js';
import { parseEvent } from '../../src/events/event-channel.js';
import { contractOperations } from '../helpers/contract.js';

describe('change events (src/http/change-events.ts, src/events/)', () => {
  it('publish an event for every write of the notebook, the notes and the views, and for nothing else', () => {
    const document = YAML.parse(fs.readFileSync('openapi.yaml', 'utf8'));
    const tagged = (op: { path: string; method: string }): string[] => document.paths[op.path][op.method.toLowerCase()].tags;
    const writes = contractOperations()
      .filter((op) => op.method !== 'GET' && tagged(op).some((tag) => ['Notebooks', 'Notes', 'Views'].includes(tag)))
      .map((op) => op.operationId);
    expect(Object.keys(CHANGES).sort()).to.deep.equal(writes.sort());
    const names = new Set<string>(document.components.schemas.ChangeEventName.enum);
    for (const [operationId, changeOf] of Object.entries(CHANGES)) {
      for (const ids of [{}, { cell_id: 'c', note_id: 'n', view_id: 'v' }] as Record<string, string>[]) {
        for (const created of [{}, { cell_id: 'c2', note_id: 'n2', view_id: 'v2' }] as Record<string, string>[]) {
          const change = changeOf(ids, created);
          expect(names.has(change.name), `${operationId}: ${change.name}`).to.equal(true);
          expect(document.components.schemas.ChangeEvent.properties.resource.enum).to.include(change.resource);
        }
      }
    }
  });

  it('name a note\'s added cell by the ID it created and an added reply by its discussion cell', () => {
    expect(CHANGES['addToNote']!({ note_id: 'n' }, { cell_id: 'new' })).to.deep.include({ name: 'note-cell-added', id: 'new', noteId: 'n' });
    expect(CHANGES['addToNote']!({ note_id: 'n', cell_id: 'd' }, {})).to.deep.include({ name: 'note-reply-added', id: 'd', noteId: 'n' });
    expect(CHANGES['deleteNote']!({ note_id: 'n' }, {})).to.deep.include({ name: 'note-deleted', id: 'n' });
    expect(CHANGES['deleteNote']!({ note_id: 'n', cell_id: 'c' }, {})).to.deep.include({ name: 'note-cell-deleted', id: 'c', noteId: 'n' });
  });

  it('keep at most the last events of a tenant, none older than the window, and know where they begin', () => {
    const log = new EventLog(3, 1000);
    for (let seq = 1; seq <= 5; seq++) log.append({ seq, atMs: seq * 10, text: `${seq}` });
    expect(log.after(0).map((e) => e.seq)).to.deep.equal([3, 4, 5]);
    expect(log.floor).to.equal(2);
    expect(log.after(4).map((e) => e.seq)).to.deep.equal([5]);
    log.prune(1045);
    expect(log.after(0).map((e) => e.seq)).to.deep.equal([5]);
    expect(log.floor).to.equal(4);
  });

  it('read IDs of their own order only', () => {
    expect(seqOf('pg', eventIdOf('pg', 41))).to.equal(41);
    expect(seqOf('pg', 'mip3q2kx-41')).to.equal(null);
    expect(seqOf('pg', 'pg-')).to.equal(null);
    expect(seqOf('pg', 'pg-1e3')).to.equal(null);
    expect(seqOf('pg', `pg-${'9'.repeat(16)}`)).to.equal(null);
  });

  it('take from the PostgreSQL channel only events of their own form (any role may NOTIFY)', () => {
    const data = { tenant_id: 'ost.kantonsspital', resource: 'view', id: 'v' };
    expect(parseEvent(`7 ${JSON.stringify({ t: 'ost.kantonsspital', e: 'view-created', d: data })}`)).to.deep.equal({ seq: 7, tenantId: 'ost.kantonsspital', name: 'view-created', data: JSON.stringify(data) });
    for (const bad of [
      undefined,
      'x {}',
      `7 ${JSON.stringify({ t: 'ost.kantonsspital', e: 'reload', d: data })}`,
      `7 ${JSON.stringify({ t: 'west.other', e: 'view-created', d: data })}`,
      `7 ${JSON.stringify({ t: '../x', e: 'view-created', d: data })}`,
      `7 ${JSON.stringify({ t: 'ost.kantonsspital', e: 'view-created', d: [1] })}`,
      `7 {"t":`,
      `7 ${'x'.repeat(9000)}`,
    ]) {
      expect(parseEvent(bad), String(bad).slice(0, 40)).to.equal(null);
    }
  });
});
