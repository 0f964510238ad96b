// Setups for saved views, notebooks and notes. The IDs in the contract's examples cannot exist in a fresh app
// database, so each 2xx transaction first creates its resource through the API and puts the new ID into the
// request; the 404 transactions of cell and note operations keep the example ID (unknown) with a known tenant, so
// they check "unknown cell/note" rather than "unknown tenant". The 503 transactions take the app database away
// (through the local world's control endpoint: PostgreSQL stopped, or SQLite's write lock held by another
// connection) and give it back afterwards.
const http = require('node:http');

const TENANT = 'kantonsspital';

/** POST to run.ts's control server (stop or start the app database). */
function control(action) {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(`/app-db/${action}`, process.env.CONTRACT_CONTROL_URL), { method: 'POST' }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`control ${action} answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The app database is down for this transaction; afterwards it is started and the server healthy again. */
async function appDbDown(transaction, tools) {
  if (!tools.local('needs the app database stopped') || !process.env.CONTRACT_CONTROL_URL) return;
  if (tools.appDatabase === 'sqlite' && tools.route.method === 'GET') {
    // (the notebook's first read writes the empty notebook; every later one, as here, only reads)
    return tools.skip('a read of a SQLite app database waits for no lock (WAL), so nothing outside the server makes it fail; the PostgreSQL runs check this 503');
  }
  await control('stop');
  tools.after(async () => {
    await control('start');
    const deadline = Date.now() + 15_000;
    for (;;) {
      const health = await tools.request('GET', '/health');
      if (health.status === 200) return;
      if (Date.now() > deadline) throw new Error('the server did not become healthy after the app database came back');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
}

/** Replaces the path segment of template parameter `name` (e.g. cell_id) in the transaction's URI. */
function setPathParam(transaction, tools, name, value) {
  const index = tools.route.template.split('/').indexOf(`{${name}}`);
  if (index < 0) throw new Error(`no {${name}} in ${tools.route.template}`);
  const uri = tools.splitUri(transaction.request.uri);
  uri.segments[index] = value;
  transaction.request.uri = tools.joinUri(uri);
  transaction.fullPath = transaction.request.uri;
}

function setBodyMember(transaction, name, value) {
  const body = JSON.parse(transaction.request.body);
  body[name] = value;
  transaction.request.body = JSON.stringify(body);
  transaction.request.headers['Content-Length'] = String(Buffer.byteLength(transaction.request.body));
}

async function created(response, what) {
  if (response.status !== 200 && response.status !== 201) throw new Error(`creating ${what} answered ${response.status}: ${response.text}`);
  return response.body;
}

async function newView(tools) {
  const body = await created(await tools.request('POST', '/api/views', { tenant: TENANT, entity: 'cost_centres', name: 'Dredd view', params: { sort: 'name' } }), 'a view');
  return body.view.view_id;
}

async function newNotebookCell(tools, cell) {
  const body = await created(await tools.request('POST', `/${TENANT}/api/notebook/cells`, { cell }), 'a notebook cell');
  return JSON.parse(body.notebook.cells).at(-1).id;
}

async function newNote(tools) {
  const body = await created(await tools.request('POST', `/${TENANT}/api/notes`, { title: 'Dredd note', tags: ['contract'] }), 'a note');
  return body.note.note_id;
}

const keepExampleId = () => undefined; // the example ID is unknown in a fresh app database: 404 with a known tenant

module.exports = {
  listViews: {
    200: async (transaction, tools) => {
      await newView(tools);
    },
  },
  updateView: {
    200: async (transaction, tools) => setBodyMember(transaction, 'view_id', await newView(tools)),
  },
  deleteView: {
    200: async (transaction, tools) => {
      tools.setQuery('view_id', await newView(tools));
      // BooleanOk declares the tag a change leaves; a deleted view has none
      delete transaction.expected.headers.ETag;
    },
  },
  updateNotebookCell: {
    200: async (transaction, tools) => setPathParam(transaction, tools, 'cell_id', await newNotebookCell(tools, { type: 'narrative', text: { en: 'Dredd' } })),
    404: keepExampleId,
  },
  deleteNotebookCell: {
    200: async (transaction, tools) => setPathParam(transaction, tools, 'cell_id', await newNotebookCell(tools, { type: 'narrative', text: { en: 'Dredd' } })),
    404: keepExampleId,
  },
  addDiscussionReply: {
    201: async (transaction, tools) => setPathParam(transaction, tools, 'cell_id', await newNotebookCell(tools, { type: 'discussion', title: 'Dredd discussion' })),
    // a cell that exists but is not a discussion
    404: async (transaction, tools) => setPathParam(transaction, tools, 'cell_id', await newNotebookCell(tools, { type: 'narrative', text: { en: 'Dredd' } })),
  },
  getNote: {
    200: async (transaction, tools) => setPathParam(transaction, tools, 'note_id', await newNote(tools)),
    // a note that exists, then the generic revalidation with the ETag its 200 carries
    304: async (transaction, tools) => {
      setPathParam(transaction, tools, 'note_id', await newNote(tools));
      await tools.generic();
    },
    404: keepExampleId,
  },
  addToNote: {
    200: async (transaction, tools) => setPathParam(transaction, tools, 'note_id', await newNote(tools)),
    404: keepExampleId,
  },
  updateNote: {
    200: async (transaction, tools) => setPathParam(transaction, tools, 'note_id', await newNote(tools)),
  },
  deleteNote: {
    200: async (transaction, tools) => {
      const noteId = await newNote(tools);
      const cell = await created(await tools.request('POST', `/${TENANT}/api/notes/${noteId}`, { cell: { type: 'narrative', text: { en: 'Dredd' } } }), 'a note cell');
      setPathParam(transaction, tools, 'note_id', noteId);
      tools.setQuery('cell_id', cell.cell_id);
    },
  },
};

// 412: the write's target exists (made as for its 2xx), and If-Match names a state it never had; the problem names
// the current tag in ETag
const viewInQuery = async (transaction, tools) => tools.setQuery('view_id', await newView(tools));
for (const operationId of ['updateView', 'deleteView', 'addToNote', 'updateNote', 'deleteNote']) {
  const made = operationId === 'deleteView' ? viewInQuery : module.exports[operationId][200];
  module.exports[operationId] = {
    ...module.exports[operationId],
    412: async (transaction, tools) => {
      await made(transaction, tools);
      await tools.generic();
    },
  };
}

// every operation of this area answers 503 while the app database does not answer
for (const operationId of [
  'listViews', 'createView', 'updateView', 'deleteView',
  'getNotebook', 'addNotebookCell', 'updateNotebookCell', 'deleteNotebookCell', 'addDiscussionReply',
  'listNotes', 'createNote', 'getNote', 'addToNote', 'updateNote', 'deleteNote',
]) {
  module.exports[operationId] = { ...(module.exports[operationId] || {}), 503: appDbDown };
}
